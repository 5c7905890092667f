/// A string split into its RFC 3986 components, when it is a valid URI-reference.
///
/// This is the one URL parser imgwarm has: the SDWebImage file-name rule asks "does the key parse
/// as a URL, and does it have a path?", and the list reader asks "is this an absolute http(s) URI?".
/// Parsing is strict RFC 3986 over ASCII: any character that must be percent-encoded (a space,
/// a non-ASCII letter, `<`, `"`, `\`…) or a malformed `%` escape makes the string not a URI.
public struct URIReference: Sendable, Equatable {
    /// The scheme without its colon, as written (`HTTP` stays `HTTP`); nil for a relative reference.
    public var scheme: Substring?
    /// The authority (after `//`, up to the path), nil when the reference has none.
    public var authority: Substring?
    /// The user information of the authority, without its `@`.
    public var userinfo: Substring?
    /// The host of the authority: a name, an IPv4 address or a bracketed IP literal.
    public var host: Substring?
    /// The digits after the host's colon, when there are some.
    public var port: Substring?
    /// The path, still percent-encoded; possibly empty.
    public var path: Substring
    public var query: Substring?
    public var fragment: Substring?

    /// True when the reference has a hierarchical path: it has no scheme, or `/` follows `scheme:`.
    public var isHierarchical: Bool {
        scheme == nil || authority != nil || path.first == "/"
    }

    /// Parses `string`; nil when it is not a valid RFC 3986 URI-reference.
    public init?(_ string: String) {
        guard let parsed = URIReference.parse(Substring(string)) else { return nil }
        self = parsed
    }

    private init(path: Substring) {
        self.path = path
    }

    // MARK: - Character classes (ASCII only)

    static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a }
    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    /// The value of an ASCII hex digit, either case (SDWebImage's and the processed keys' `%XX`).
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
    static func isHex(_ c: UInt8) -> Bool { isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66) }
    static func isUnreserved(_ c: UInt8) -> Bool {
        isAlpha(c) || isDigit(c) || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "_")
            || c == UInt8(ascii: "~")
    }
    static func isSubDelim(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
    static func isPChar(_ c: UInt8) -> Bool {
        isUnreserved(c) || isSubDelim(c) || c == UInt8(ascii: ":") || c == UInt8(ascii: "@")
    }

    /// Checks that every byte is allowed by `allowed` or starts a well-formed `%XX` escape.
    static func isValid(_ part: Substring.UTF8View, _ allowed: (UInt8) -> Bool) -> Bool {
        var index = part.startIndex
        while index != part.endIndex {
            let c = part[index]
            if c == UInt8(ascii: "%") {
                let first = part.index(after: index)
                guard first != part.endIndex, isHex(part[first]) else { return false }
                let second = part.index(after: first)
                guard second != part.endIndex, isHex(part[second]) else { return false }
                index = part.index(after: second)
                continue
            }
            guard allowed(c) else { return false }
            index = part.index(after: index)
        }
        return true
    }

    // MARK: - Parsing

    static func parse(_ string: Substring) -> URIReference? {
        let bytes = string.utf8
        var rest = string[...]
        var reference = URIReference(path: "")

        // scheme ":" — only if the first character is a letter and ':' comes before any of "/?#".
        if let first = bytes.first, isAlpha(first),
            let colon = bytes.firstIndex(where: {
                $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?")
                    || $0 == UInt8(ascii: "#")
            }),
            bytes[colon] == UInt8(ascii: ":")
        {
            let scheme = string[string.startIndex..<colon]
            let schemeOK = scheme.utf8.allSatisfy {
                isAlpha($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: ".")
            }
            if schemeOK {
                reference.scheme = scheme
                rest = string[string.utf8.index(after: colon)...]
            }
        }

        // fragment and query split from the end of the hierarchical part.
        if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) {
            let fragment = rest[rest.utf8.index(after: hash)...]
            guard isValid(fragment.utf8, { isPChar($0) || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") })
            else { return nil }
            reference.fragment = fragment
            rest = rest[rest.startIndex..<hash]
        }
        if let question = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
            let query = rest[rest.utf8.index(after: question)...]
            guard isValid(query.utf8, { isPChar($0) || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") })
            else { return nil }
            reference.query = query
            rest = rest[rest.startIndex..<question]
        }

        // "//" authority path-abempty
        if rest.utf8.starts(with: "//".utf8) {
            let afterSlashes = rest.utf8.index(rest.startIndex, offsetBy: 2)
            let authorityEnd = rest.utf8[afterSlashes...].firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            let authority = rest[afterSlashes..<authorityEnd]
            guard parseAuthority(authority, into: &reference) else { return nil }
            reference.authority = authority
            rest = rest[authorityEnd...]
        } else if reference.scheme == nil {
            // path-noscheme: the first segment of a relative path cannot hold ':'.
            let firstSegmentEnd = rest.utf8.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            if rest[rest.startIndex..<firstSegmentEnd].utf8.contains(UInt8(ascii: ":")) { return nil }
        }
        guard isValid(rest.utf8, { isPChar($0) || $0 == UInt8(ascii: "/") }) else { return nil }
        // path-absolute cannot start with "//" when there is no authority (it would be one).
        reference.path = rest
        return reference
    }

    private static func parseAuthority(_ authority: Substring, into reference: inout URIReference) -> Bool {
        var hostPart = authority
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
            let userinfo = authority[authority.startIndex..<at]
            guard isValid(userinfo.utf8, { isUnreserved($0) || isSubDelim($0) || $0 == UInt8(ascii: ":") })
            else { return false }
            reference.userinfo = userinfo
            hostPart = authority[authority.utf8.index(after: at)...]
        }
        if hostPart.utf8.first == UInt8(ascii: "[") {
            guard let close = hostPart.utf8.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = hostPart[hostPart.utf8.index(after: hostPart.startIndex)..<close]
            guard isIPv6Address(literal) || isIPvFuture(literal) else { return false }
            reference.host = hostPart[hostPart.startIndex...close]
            let afterHost = hostPart[hostPart.utf8.index(after: close)...]
            if afterHost.isEmpty { return true }
            guard afterHost.utf8.first == UInt8(ascii: ":") else { return false }
            let port = afterHost.dropFirst()
            guard port.utf8.allSatisfy(isDigit) else { return false }
            if !port.isEmpty { reference.port = port }
            return true
        }
        var name = hostPart
        if let colon = hostPart.utf8.lastIndex(of: UInt8(ascii: ":")) {
            let port = hostPart[hostPart.utf8.index(after: colon)...]
            guard port.utf8.allSatisfy(isDigit) else { return false }
            if !port.isEmpty { reference.port = port }
            name = hostPart[hostPart.startIndex..<colon]
        }
        guard isValid(name.utf8, { isUnreserved($0) || isSubDelim($0) }) else { return false }
        reference.host = name
        return true
    }

    private static func isIPvFuture(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 4, bytes[0] | 0x20 == UInt8(ascii: "v"),
            let dot = bytes.firstIndex(of: UInt8(ascii: ".")), dot > 1, dot < bytes.count - 1
        else { return false }
        return bytes[1..<dot].allSatisfy(isHex)
            && bytes[(dot + 1)...].allSatisfy { isUnreserved($0) || isSubDelim($0) || $0 == UInt8(ascii: ":") }
    }

    /// RFC 3986 IPv6address: eight 16-bit groups, one `::` standing for one or more zero groups,
    /// the last 32 bits optionally written as an IPv4 address.
    static func isIPv6Address(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        var doubleColon: Int? = nil
        var i = 0
        while i + 1 < bytes.count {
            if bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == UInt8(ascii: ":") {
                guard doubleColon == nil else { return false }
                doubleColon = i
                i += 2
            } else {
                i += 1
            }
        }
        /// Counts the 16-bit groups of one side of `::`; nil when the side is malformed.
        func groups(_ side: ArraySlice<UInt8>, mayEndWithIPv4: Bool) -> Int? {
            if side.isEmpty { return 0 }
            let fields = side.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            var count = 0
            for (index, field) in fields.enumerated() {
                if index == fields.count - 1, mayEndWithIPv4, field.contains(UInt8(ascii: ".")) {
                    guard isIPv4Address(Substring(String(decoding: field, as: UTF8.self))) else {
                        return nil
                    }
                    count += 2
                } else {
                    guard (1...4).contains(field.count), field.allSatisfy(isHex) else { return nil }
                    count += 1
                }
            }
            return count
        }
        if let at = doubleColon {
            guard let head = groups(bytes[0..<at], mayEndWithIPv4: false),
                let tail = groups(bytes[(at + 2)...], mayEndWithIPv4: true)
            else { return false }
            return head + tail <= 7
        }
        return groups(bytes[...], mayEndWithIPv4: true) == 8
    }

    static func isIPv4Address(_ text: Substring) -> Bool {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return false }
        for octet in octets {
            guard !octet.isEmpty, octet.utf8.count <= 3, octet.utf8.allSatisfy(isDigit), let value = Int(octet),
                value <= 255, octet.utf8.count == 1 || octet.utf8.first != UInt8(ascii: "0")
            else { return false }
        }
        return true
    }
}
