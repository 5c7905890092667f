/// The URL as OkHttp 3.x/4.x prints it (`HttpUrl.parse(url).toString()`): its cache key is the MD5
/// of that text, not of the URL as written (docs/cache-formats-android.md, "OkHttp"). The rules
/// are `HttpUrl.Builder.parse`'s: leading and trailing ASCII white space dropped, the scheme
/// (`http` or `https` only) and host lower-cased, the default port dropped, an empty path made
/// `/`, `.` and `..` segments resolved, tabs and line breaks inside removed, and each part's own
/// set of characters percent-encoded (upper-case hex; a `%` already there is kept).
///
/// The host is `Util.canonicalizeHost`'s (`OkHttpHost`): IPv6 literals compressed, international
/// names in punycode.
public enum OkHttpURL {
    /// `HttpUrl`'s encode sets: what each part percent-encodes besides controls, DEL and
    /// (but in the fragment) non-ASCII.
    static let userInfoSet = EncodeSet(" \"':;<=>@[]^`{}|/\\?#")
    static let pathSegmentSet = EncodeSet(" \"<>^`{}|/\\?#")
    static let querySet = EncodeSet(" \"'<>#")
    /// White space `HttpUrl` trims from both ends.
    static let blanks = EncodeSet("\t\n\u{0C}\r ")

    /// A set of ASCII characters as two 64-bit masks: a `Set<Unicode.Scalar>` hashed every
    /// character of every URL (a twentieth of an okhttp hits-only pass in `Hasher`).
    struct EncodeSet {
        private var masks: (UInt64, UInt64) = (0, 0)

        init(_ characters: String) {
            for scalar in characters.unicodeScalars where scalar.value < 128 {
                if scalar.value < 64 {
                    masks.0 |= 1 << UInt64(scalar.value)
                } else {
                    masks.1 |= 1 << UInt64(scalar.value - 64)
                }
            }
        }

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let value = scalar.value
            if value < 64 { return masks.0 & (1 << UInt64(value)) != 0 }
            if value < 128 { return masks.1 & (1 << UInt64(value - 64)) != 0 }
            return false
        }
    }
    /// The characters that end a part, searched a few at a time: arrays made once (a `Set` made
    /// at each search took 4 % of an okhttp hits-only pass).
    static let authorityEnd: [Unicode.Scalar] = ["@", "/", "\\", "?", "#"]
    static let passwordStart: [Unicode.Scalar] = [":"]
    static let pathEnd: [Unicode.Scalar] = ["?", "#"]
    static let queryEnd: [Unicode.Scalar] = ["#"]
    static let segmentEnd: [Unicode.Scalar] = ["/", "\\"]

    /// The canonical text of `input`, or nil when OkHttp would refuse it.
    public static func canonical(_ input: String) -> String? {
        var parser = Parser(Array(input.unicodeScalars))
        return parser.parse()
    }

    struct Parser {
        let s: [Unicode.Scalar]
        var segments = [""]

        init(_ scalars: [Unicode.Scalar]) { s = scalars }

        mutating func parse() -> String? {
            let blanks = OkHttpURL.blanks
            var pos = 0
            var limit = s.count
            while pos < limit && blanks.contains(s[pos]) { pos += 1 }
            while limit > pos && blanks.contains(s[limit - 1]) { limit -= 1 }
            guard let colon = schemeDelimiter(pos, limit) else { return nil }
            let scheme = String(String.UnicodeScalarView(s[pos..<colon])).lowercased()
            guard scheme == "http" || scheme == "https" else { return nil }
            let defaultPort = scheme == "http" ? 80 : 443
            pos = colon + 1
            while pos < limit && (s[pos] == "/" || s[pos] == "\\") { pos += 1 }
            var user = ""
            var password = ""
            var hasUser = false
            var hasPassword = false
            var host = ""
            var port = defaultPort
            while true {
                let end = delimiter(pos, limit, OkHttpURL.authorityEnd)
                if end < limit && s[end] == "@" {
                    if !hasPassword {
                        let colon = delimiter(pos, end, OkHttpURL.passwordStart)
                        let name = canonicalize(pos, colon, OkHttpURL.userInfoSet)
                        user = hasUser ? user + "%40" + name : name
                        if colon != end {
                            hasPassword = true
                            password = canonicalize(colon + 1, end, OkHttpURL.userInfoSet)
                        }
                        hasUser = true
                    } else {
                        password += "%40" + canonicalize(pos, end, OkHttpURL.userInfoSet)
                    }
                    pos = end + 1
                    continue
                }
                let portColon = portColonOffset(pos, end)
                guard let name = canonicalHost(pos, portColon) else { return nil }
                host = name
                if portColon + 1 < end {
                    guard let number = parsePort(portColon + 1, end) else { return nil }
                    port = number
                }
                pos = end
                break
            }
            let pathEnd = delimiter(pos, limit, OkHttpURL.pathEnd)
            resolvePath(pos, pathEnd)
            pos = pathEnd
            var query: String?
            if pos < limit && s[pos] == "?" {
                let end = delimiter(pos, limit, OkHttpURL.queryEnd)
                query = canonicalize(pos + 1, end, OkHttpURL.querySet)
                pos = end
            }
            var fragment: String?
            if pos < limit && s[pos] == "#" {
                fragment = canonicalize(pos + 1, limit, EncodeSet(""), asciiOnly: false)
            }
            var text = scheme + "://"
            if !user.isEmpty || !password.isEmpty {
                text += user + (password.isEmpty ? "" : ":" + password) + "@"
            }
            text += host.contains(":") ? "[" + host + "]" : host
            if port != defaultPort { text += ":\(port)" }
            text += "/" + segments.joined(separator: "/")
            if let query { text += "?" + query }
            if let fragment { text += "#" + fragment }
            return text
        }

        /// The `:` after a scheme that starts at `pos` (a letter, then letters, digits, `+-.`).
        func schemeDelimiter(_ pos: Int, _ limit: Int) -> Int? {
            guard limit - pos >= 2, isLetter(s[pos]) else { return nil }
            for i in (pos + 1)..<limit {
                let c = s[i]
                if isLetter(c) || ("0"..."9").contains(c) || c == "+" || c == "-" || c == "." { continue }
                return c == ":" ? i : nil
            }
            return nil
        }

        func isLetter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) }

        func delimiter(_ pos: Int, _ limit: Int, _ set: [Unicode.Scalar]) -> Int {
            var i = pos
            while i < limit && !set.contains(s[i]) { i += 1 }
            return i
        }

        /// The first `:` outside square brackets.
        func portColonOffset(_ pos: Int, _ limit: Int) -> Int {
            var i = pos
            while i < limit {
                if s[i] == "[" {
                    while i + 1 < limit {
                        i += 1
                        if s[i] == "]" { break }
                    }
                } else if s[i] == ":" {
                    return i
                }
                i += 1
            }
            return limit
        }

        /// `Integer.parseInt` of the port text (an optional sign, ASCII digits) within 1…65535.
        func parsePort(_ pos: Int, _ limit: Int) -> Int? {
            var digits = s[pos..<limit].map { Character($0) }
            if digits.first == "+" { digits.removeFirst() }
            guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(String(digits)), value >= 1 && value <= 65535
            else { return nil }
            return value
        }

        /// The host percent-decoded (`percentDecode`: invalid UTF-8 replaced), then
        /// `Util.canonicalizeHost` (`OkHttpHost`).
        func canonicalHost(_ pos: Int, _ limit: Int) -> String? {
            var bytes: [UInt8] = []
            var i = pos
            while i < limit {
                if s[i] == "%" && i + 2 < limit, let high = hex(s[i + 1]), let low = hex(s[i + 2]) {
                    bytes.append(high << 4 | low)
                    i += 3
                    continue
                }
                UTF8.encode(s[i]) { bytes.append($0) }
                i += 1
            }
            return OkHttpHost.canonical(String(decoding: bytes, as: UTF8.self))
        }

        func hex(_ c: Unicode.Scalar) -> UInt8? { OkHttpHost.hexValue(c).map(UInt8.init) }

        /// `resolvePath`: segments split at `/` and `\`, `.` skipped, `..` removing the last.
        mutating func resolvePath(_ start: Int, _ limit: Int) {
            guard start < limit else { return }
            var pos = start
            if s[pos] == "/" || s[pos] == "\\" {
                segments = [""]
                pos += 1
            } else {
                segments[segments.count - 1] = ""
            }
            var i = pos
            while i < limit {
                let end = delimiter(i, limit, OkHttpURL.segmentEnd)
                let trailingSlash = end < limit
                push(canonicalize(i, end, OkHttpURL.pathSegmentSet), trailingSlash: trailingSlash)
                i = trailingSlash ? end + 1 : end
            }
        }

        mutating func push(_ segment: String, trailingSlash: Bool) {
            // Only a segment of at most 6 bytes can be a dot segment: the rest are not lower-cased.
            let lower = segment.utf8.count <= 6 ? segment.lowercased() : ""
            if lower == "." || lower == "%2e" { return }
            if lower == ".." || lower == "%2e." || lower == ".%2e" || lower == "%2e%2e" {
                let removed = segments.removeLast()
                if removed.isEmpty && !segments.isEmpty {
                    segments[segments.count - 1] = ""
                } else {
                    segments.append("")
                }
                return
            }
            if segments[segments.count - 1].isEmpty {
                segments[segments.count - 1] = segment
            } else {
                segments.append(segment)
            }
            if trailingSlash { segments.append("") }
        }

        /// `canonicalize(…, alreadyEncoded: true, strict: false, …)`: tabs and line breaks
        /// dropped, controls, DEL, `set` and (with `asciiOnly`) non-ASCII percent-encoded as UTF-8.
        func canonicalize(_ pos: Int, _ limit: Int, _ set: EncodeSet, asciiOnly: Bool = true) -> String {
            var out = ""
            for c in s[pos..<limit] {
                if c == "\t" || c == "\n" || c == "\u{0C}" || c == "\r" { continue }
                if c.value < 0x20 || c.value == 0x7F || (c.value >= 0x80 && asciiOnly) || set.contains(c) {
                    for byte in String(c).utf8 {
                        out +=
                            "%" + String(byte >> 4, radix: 16, uppercase: true)
                            + String(byte & 0xF, radix: 16, uppercase: true)
                    }
                } else {
                    out.unicodeScalars.append(c)
                }
            }
            return out
        }
    }
}
