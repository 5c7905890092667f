import Curl

/// The host of a URL as OkHttp 3.13's `Util.canonicalizeHost` makes it, after `HttpUrl` has
/// percent-decoded it (docs/cache-formats-android.md, "OkHttp"): a host with a `:` is an IPv6
/// literal, printed in RFC 5952's compressed form (`inet6AddressToAscii`; an IPv4-mapped address
/// as the IPv4 address, as `InetAddress` hands it back); any other goes through `IDN.toASCII`
/// (non-ASCII labels to punycode, by libidn2: `IDNA`) and is lower-cased. nil: OkHttp refuses it.
enum OkHttpHost {
    /// `host` percent-decoded (UTF-8, with invalid sequences replaced as Java's decoder does).
    static func canonical(_ host: String) -> String? {
        if let name = asciiName(host) { return name }
        if host.utf8.contains(UInt8(ascii: ":")) {
            let scalars = Array(host.unicodeScalars)
            let bracketed = scalars.first == "[" && scalars.last == "]" && scalars.count >= 2
            let inner = bracketed ? Array(scalars[1..<(scalars.count - 1)]) : scalars
            guard let address = ipv6(inner) else { return nil }
            if address[0..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF {
                return address[12...].map { String($0) }.joined(separator: ".")
            }
            return text(ofIPv6: address)
        }
        // `IDN.toASCII` works label by label and leaves an ASCII label as it is.
        var labels: [String] = []
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            if label.utf8.allSatisfy({ $0 < 0x80 }) {
                labels.append(String(label))
            } else {
                guard let ascii = IDNA.toASCII(String(label)) else { return nil }
                labels.append(ascii)
            }
        }
        let name = labels.joined(separator: ".").lowercased()
        guard !name.isEmpty else { return nil }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        for (index, label) in parts.enumerated() {
            let last = index == parts.count - 1
            guard label.utf8.count <= 63, !label.isEmpty || (last && parts.count > 1) else { return nil }
        }
        guard name.utf8.allSatisfy({ $0 > 0x1F && $0 < 0x7F && !refusedInName($0) }) else { return nil }
        return name
    }

    /// `canonical(_:)` of a name that is ASCII and has no `:` (the usual host), in one pass over
    /// its bytes rather than labels split, joined, lower-cased and split again (a tenth of an
    /// okhttp hits-only pass): `.some(nil)` when OkHttp refuses it, nil for any other host.
    private static func asciiName(_ host: String) -> String?? {
        var bytes = Array(host.utf8)
        // A `:` makes it an IPv6 literal, whatever comes before it (`[`).
        guard !bytes.contains(UInt8(ascii: ":")) else { return nil }
        guard !bytes.isEmpty else { return .some(nil) }
        var labelLength = 0
        for index in bytes.indices {
            let byte = bytes[index]
            // Another refused character or label found first refuses the name all the same.
            if byte >= 0x80 { return nil }
            if byte == UInt8(ascii: ".") {
                // Only the last label may be empty (`example.com.`).
                if labelLength == 0 { return .some(nil) }
                labelLength = 0
                continue
            }
            if byte <= 0x1F || byte == 0x7F || refusedInName(byte) { return .some(nil) }
            labelLength += 1
            if labelLength > 63 { return .some(nil) }
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { bytes[index] = byte | 0x20 }
        }
        return .some(String(decoding: bytes, as: UTF8.self))
    }

    /// `Util.containsInvalidHostnameAsciiCodes`' characters besides the controls.
    private static func refusedInName(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "#"), UInt8(ascii: "%"), UInt8(ascii: "/"), UInt8(ascii: ":"),
            UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "\\"), UInt8(ascii: "]"):
            return true
        default:
            return false
        }
    }

    /// `decodeIpv6`: eight groups of one to four hex digits, one `::` at most, an IPv4 suffix in
    /// place of the last two groups (no leading zeros); the 16 bytes, or nil.
    static func ipv6(_ s: [Unicode.Scalar]) -> [UInt8]? {
        var address = [UInt8](repeating: 0, count: 16)
        var b = 0
        var compress = -1
        var groupOffset = -1
        var i = 0
        while i < s.count {
            if b == 16 { return nil }
            if i + 1 < s.count && s[i] == ":" && s[i + 1] == ":" {
                if compress != -1 { return nil }
                i += 2
                b += 2
                compress = b
                if i == s.count { break }
            } else if b != 0 {
                if s[i] == ":" {
                    i += 1
                } else if s[i] == "." {
                    guard groupOffset >= 0, ipv4Suffix(s[groupOffset...], into: &address, at: b - 2) else { return nil }
                    b += 2
                    break
                } else {
                    return nil
                }
            }
            var value = 0
            groupOffset = i
            while i < s.count, let digit = hexValue(s[i]) {
                value = value << 4 + digit
                i += 1
                if i - groupOffset > 4 { return nil }
            }
            if i == groupOffset { return nil }
            address[b] = UInt8(value >> 8 & 0xFF)
            address[b + 1] = UInt8(value & 0xFF)
            b += 2
        }
        if b != 16 {
            guard compress != -1 else { return nil }
            let moved = Array(address[compress..<b])
            for k in compress..<16 { address[k] = 0 }
            address.replaceSubrange((16 - moved.count)..<16, with: moved)
        }
        return address
    }

    /// `decodeIpv4Suffix`: four decimal bytes 0…255 without leading zeros, at `offset`.
    static func ipv4Suffix(_ s: ArraySlice<Unicode.Scalar>, into address: inout [UInt8], at offset: Int) -> Bool {
        var b = offset
        var i = s.startIndex
        while i < s.endIndex {
            if b == 16 { return false }
            if b != offset {
                guard s[i] == "." else { return false }
                i += 1
            }
            var value = 0
            let start = i
            while i < s.endIndex, ("0"..."9").contains(s[i]) {
                if value == 0 && i != start { return false }
                value = value * 10 + Int(s[i].value - 48)
                if value > 255 { return false }
                i += 1
            }
            if i == start { return false }
            address[b] = UInt8(value)
            b += 1
        }
        return b == offset + 4
    }

    static func hexValue(_ c: Unicode.Scalar) -> Int? {
        switch c {
        case "0"..."9": return Int(c.value - 48)
        case "a"..."f": return Int(c.value - 87)
        case "A"..."F": return Int(c.value - 55)
        default: return nil
        }
    }

    /// `inet6AddressToAscii`: lower-case hex groups without leading zeros, the first longest run
    /// of two or more zero groups written `::`.
    static func text(ofIPv6 address: [UInt8]) -> String {
        var runOffset = -1
        var runLength = 0
        var i = 0
        while i < 16 {
            let start = i
            while i < 16 && address[i] == 0 && address[i + 1] == 0 { i += 2 }
            if i - start > runLength && i - start >= 4 {
                runOffset = start
                runLength = i - start
            }
            i += 2
        }
        var out = ""
        i = 0
        while i < 16 {
            if i == runOffset {
                out += ":"
                i += runLength
                if i == 16 { out += ":" }
            } else {
                if i > 0 { out += ":" }
                out += String(Int(address[i]) << 8 | Int(address[i + 1]), radix: 16)
                i += 2
            }
        }
        return out
    }
}
