/// `<key>.0` read as OkHttp's `Cache.Entry(Source)` reads it (3.x `Cache.java`, 4.x `Cache.kt`;
/// docs/cache-formats-android.md, "OkHttp"), within bounds of imgwarm's own: a file that OkHttp's
/// reader refuses (a count that is not a decimal int of 0…2^31−1, a line missing its `\n`, a status
/// line `StatusLine.parse` refuses, a non-blank line before an https entry's handshake) is
/// `Unreadable`, and so is one past `Limits`: OkHttp's reader would only stop at the end of the
/// file, imgwarm stops at the limit and never loops on a count the file cannot hold.
struct OkHttpMetadata: Sendable {
    /// The most imgwarm reads of one `<key>.0`; past any of them the entry is a miss, with the
    /// limit named. Far above what a response OkHttp stores carries.
    struct Limits: Sendable {
        /// The whole file: `1048576` (1 MiB).
        var fileBytes = 1 << 20
        /// One line (a header, a base64 certificate): `65536` (64 KiB).
        var lineBytes = 64 << 10
        /// Request header lines the response's `Vary` named: `256`.
        var varyLines = 256
        /// Response header lines, OkHttp's own two included: `1024`.
        var headerLines = 1024
        /// Certificates in each of the handshake's two lists: `32`.
        var certificates = 32
    }

    /// Why OkHttp (or imgwarm, past a limit) does not read the file as an entry.
    struct Unreadable: Error, Sendable, Equatable, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// The TLS block of an https entry.
    struct Handshake: Sendable, Equatable {
        var cipherSuite: String
        var peerCertificates: [String]
        var localCertificates: [String]
        /// nil when the file ends before it (OkHttp then takes `SSL_3_0`).
        var tlsVersion: String?
    }

    var url: String
    var method: String
    /// The request header lines, as stored.
    var varyLines: [String]
    var statusLine: String
    var status: Int
    /// The response header fields as `Headers.Builder.addLenient` keeps them, in order, OkHttp's
    /// own `OkHttp-Sent-Millis` and `OkHttp-Received-Millis` left out.
    var fields: [(String, String)]
    var sentMillis: Int64
    var receivedMillis: Int64
    var handshake: Handshake?

    init(_ bytes: [UInt8], limits: Limits = Limits()) throws(Unreadable) {
        guard bytes.count <= limits.fileBytes else {
            throw Unreadable(
                reason: "it is larger than the \(limits.fileBytes) bytes imgwarm reads of an entry's metadata")
        }
        var reader = LineReader(bytes: bytes, limit: limits.lineBytes)
        url = try reader.line("the URL")
        method = try reader.line("the request method")
        let varyCount = try reader.count("the count of Vary request headers", limit: limits.varyLines)
        varyLines = []
        for _ in 0..<varyCount { varyLines.append(try reader.line("a Vary request header")) }
        statusLine = try reader.line("the status line")
        guard let code = OkHttpMetadata.statusCode(of: statusLine) else {
            throw Unreadable(reason: "OkHttp's StatusLine.parse refuses the status line \(Self.quoted(statusLine))")
        }
        status = code
        let headerCount = try reader.count("the count of response headers", limit: limits.headerLines)
        var fields: [(String, String)] = []
        fields.reserveCapacity(headerCount)
        for _ in 0..<headerCount {
            fields.append(OkHttpMetadata.lenientField(try reader.line("a response header")))
        }
        func millis(_ name: String) -> Int64 {
            fields.first { $0.0.lowercased() == name }.flatMap { Int64($0.1) } ?? 0
        }
        sentMillis = millis("okhttp-sent-millis")
        receivedMillis = millis("okhttp-received-millis")
        self.fields = fields.filter {
            let name = $0.0.lowercased()
            return name != "okhttp-sent-millis" && name != "okhttp-received-millis"
        }
        guard url.hasPrefix("https://") else {
            handshake = nil
            return
        }
        let blank = try reader.line("the blank line before the handshake")
        guard blank.isEmpty else {
            throw Unreadable(reason: "OkHttp expects a blank line before the handshake, not \(Self.quoted(blank))")
        }
        let suite = try reader.line("the cipher suite")
        let peer = try reader.certificates("peer", limit: limits.certificates)
        let local = try reader.certificates("local", limit: limits.certificates)
        let version = reader.atEnd ? nil : try reader.line("the TLS version")
        handshake = Handshake(cipherSuite: suite, peerCertificates: peer, localCertificates: local, tlsVersion: version)
    }

    /// The values of header `name` (lower-case), in order.
    func values(_ name: String) -> [String] { fields.filter { $0.0.lowercased() == name }.map(\.1) }

    /// `StatusLine.parse`'s code: `HTTP/1.0 ` or `HTTP/1.1 ` (or `ICY `), three digits, then
    /// nothing or a space and the message; nil for anything else.
    static func statusCode(of line: String) -> Int? {
        let bytes = Array(line.utf8)
        let start: Int
        if bytes.starts(with: Array("HTTP/1.".utf8)) {
            guard bytes.count >= 12, bytes[7] == UInt8(ascii: "0") || bytes[7] == UInt8(ascii: "1"),
                bytes[8] == UInt8(ascii: " ")
            else { return nil }
            start = 9
        } else if bytes.starts(with: Array("ICY ".utf8)) {
            start = 4
        } else {
            return nil
        }
        guard bytes.count >= start + 3 else { return nil }
        var code = 0
        for byte in bytes[start..<(start + 3)] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            code = code * 10 + Int(byte - UInt8(ascii: "0"))
        }
        if bytes.count > start + 3 && bytes[start + 3] != UInt8(ascii: " ") { return nil }
        return code
    }

    /// `Headers.Builder.addLenient`: the name before the first `:` after the first character
    /// (a leading `:` belongs to the name, as HTTP/2 pseudo-headers), the value after it, trimmed
    /// as Java's `trim` does; a line without one is a field with an empty name.
    static func lenientField(_ line: String) -> (String, String) {
        func trimmed(_ text: Substring) -> String {
            let bytes = Array(text.utf8)
            guard let first = bytes.firstIndex(where: { $0 > 0x20 }), let last = bytes.lastIndex(where: { $0 > 0x20 })
            else { return "" }
            return String(decoding: bytes[first...last], as: UTF8.self)
        }
        if let colon = line.dropFirst().firstIndex(of: ":") {
            return (String(line[..<colon]), trimmed(line[line.index(after: colon)...]))
        }
        if line.hasPrefix(":") { return ("", trimmed(line.dropFirst())) }
        return ("", trimmed(Substring(line)))
    }

    /// A line as a message quotes it: at most 80 characters.
    static func quoted(_ text: String) -> String {
        "\"" + (text.count > 80 ? text.prefix(80) + "…" : text) + "\""
    }

    /// `readUtf8LineStrict` and `readInt` over the file's bytes.
    private struct LineReader {
        let bytes: [UInt8]
        let limit: Int
        var position = 0

        init(bytes: [UInt8], limit: Int) { (self.bytes, self.limit) = (bytes, limit) }

        var atEnd: Bool { position >= bytes.count }

        /// The next line without its `\n` (and a `\r` before it); the file must hold its `\n`.
        mutating func line(_ what: String) throws(Unreadable) -> String {
            guard position < bytes.count else { throw Unreadable(reason: "the file ends before \(what)") }
            let end = min(bytes.count, position + limit + 2)
            guard let newline = bytes[position..<end].firstIndex(of: UInt8(ascii: "\n")) else {
                if end - position > limit {
                    throw Unreadable(reason: "\(what) is longer than the \(limit) bytes imgwarm reads of a line")
                }
                throw Unreadable(reason: "the file ends in the middle of \(what) (no line break)")
            }
            var last = newline
            if last > position && bytes[last - 1] == UInt8(ascii: "\r") { last -= 1 }
            guard last - position <= limit else {
                throw Unreadable(reason: "\(what) is longer than the \(limit) bytes imgwarm reads of a line")
            }
            defer { position = newline + 1 }
            return String(decoding: bytes[position..<last], as: UTF8.self)
        }

        /// `readInt`: a decimal long, then the end of the line, within 0…2^31−1; and within `limit`.
        mutating func count(_ what: String, limit: Int) throws(Unreadable) -> Int {
            let text = try line(what)
            var digits = Substring(text)
            let negative = digits.first == "-"
            if negative { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw Unreadable(reason: "\(what) is not a number: \(OkHttpMetadata.quoted(text))")
            }
            guard !negative, digits.count <= 10, let value = Int(digits), value <= Int(Int32.max) else {
                throw Unreadable(
                    reason: "\(what) is \(OkHttpMetadata.quoted(text)), outside the 0…2147483647 OkHttp reads")
            }
            guard value <= limit else {
                throw Unreadable(reason: "\(what) is \(value), more than the \(limit) imgwarm reads")
            }
            return value
        }

        /// `readCertificateList`: a count, then one base64 line each.
        mutating func certificates(_ which: String, limit: Int) throws(Unreadable) -> [String] {
            let count = try count("the count of \(which) certificates", limit: limit)
            var lines: [String] = []
            for _ in 0..<count { lines.append(try line("a \(which) certificate")) }
            return lines
        }
    }
}
