/// The rules for list lines (docs/cache-contract.md §2): only absolute `http`/`https` URLs that are valid RFC 3986
/// strings. Every rejection says precisely why, with a column when one character is at fault.
public enum URLRules {
    /// The longest line imgwarm reads as a URL; longer lines are rejected without being kept.
    public static let maxLineLength = 65536

    /// The cache key of a valid line (the line without surrounding white space), or why not.
    public static func key(from line: ArraySlice<UInt8>) -> Result<String, LineError> {
        let trimmed = trim(line)
        if let nul = trimmed.firstIndex(of: 0) {
            return .failure(LineError("contains a NUL byte at column \(nul - trimmed.startIndex + 1)"))
        }
        guard let text = String(validating: trimmed, as: UTF8.self) else {
            let column = firstInvalidUTF8(trimmed)
            return .failure(LineError("is not valid UTF-8 (at byte \(column))"))
        }
        return validate(text).map { text }
    }

    /// Checks that `text` is an absolute http(s) URL valid under RFC 3986.
    public static func validate(_ text: String) -> Result<Void, LineError> {
        var column = 0
        var iterator = text.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            column += 1
            if !scalar.isASCII {
                return .failure(
                    LineError("has the non-ASCII character '\(scalar)' at column \(column): percent-encode it"))
            }
            let byte = UInt8(scalar.value)
            if !isAllowed(byte) {
                let shown = byte < 0x20 || byte == 0x7F ? "U+\(hex4(byte))" : "'\(scalar)'"
                return .failure(
                    LineError(
                        "has the character \(shown) at column \(column), which must be percent-encoded (%\(hex2(byte)))"
                    ))
            }
        }
        // Malformed escapes.
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                let ok =
                    index + 2 < bytes.count && URIReference.isHex(bytes[index + 1])
                    && URIReference.isHex(bytes[index + 2])
                if !ok {
                    let excerpt = String(decoding: bytes[index..<min(index + 3, bytes.count)], as: UTF8.self)
                    return .failure(LineError("has a malformed percent-escape '\(excerpt)' at column \(index + 1)"))
                }
                index += 3
            } else {
                index += 1
            }
        }
        guard let uri = URIReference(text) else {
            return .failure(LineError("is not a valid URL (RFC 3986)"))
        }
        guard let scheme = uri.scheme else {
            return .failure(LineError("is not an absolute URL: it has no scheme (expected http:// or https://)"))
        }
        let lower = scheme.lowercased()
        guard lower == "http" || lower == "https" else {
            return .failure(LineError("has the scheme '\(scheme)', which is not allowed: only http and https"))
        }
        guard let host = uri.host, !host.isEmpty, uri.authority != nil else {
            return .failure(LineError("has no host (expected \(lower)://host/path)"))
        }
        if let port = uri.port {
            guard port.count <= 5, let number = Int(port), number <= 65535 else {
                return .failure(LineError("has the port \(port), which is out of range (0-65535)"))
            }
        }
        return .success(())
    }

    /// Why a list line is not a URL imgwarm fetches.
    public struct LineError: Error, Equatable, Sendable {
        public var message: String
        init(_ message: String) { self.message = message }
    }

    // MARK: - Helpers

    /// Characters allowed anywhere in an RFC 3986 URI: unreserved, reserved and `%`.
    static func isAllowed(_ c: UInt8) -> Bool {
        if URIReference.isUnreserved(c) || URIReference.isSubDelim(c) { return true }
        switch c {
        case UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "@"), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    static func trim(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (c >= 0x09 && c <= 0x0D) }
        guard let first = line.firstIndex(where: { !isSpace($0) }) else { return line[line.endIndex...] }
        let last = line.lastIndex(where: { !isSpace($0) })!
        return line[first...last]
    }

    static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var consumed = 0
        var column = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                consumed += UTF8.width(scalar)
                column = consumed + 1
            case .emptyInput:
                return column
            case .error:
                return column
            }
        }
    }

    static func hex2(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    static func hex4(_ byte: UInt8) -> String { "00" + hex2(byte) }
}
