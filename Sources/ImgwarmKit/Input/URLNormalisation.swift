/// The normalisations an app's key may have made of a URL that `--key-filter` has no filter for
/// (`keys detect` names them in words): each a pure function of a string.
enum URLNormalisation {
    /// Each normalisation in words, with the function.
    static let all: [(String, @Sendable (String) -> String)] = [
        ("the scheme and host lower-cased", lowercaseSchemeAndHost),
        ("https for http", { swapScheme($0, from: "http://", to: "https://") }),
        ("http for https", { swapScheme($0, from: "https://", to: "http://") }),
        ("a trailing / added to the path", { toggleSlash($0, add: true) }),
        ("the trailing / of the path removed", { toggleSlash($0, add: false) }),
        ("percent-encoding normalised (unreserved characters decoded, hex upper-cased)", normalisePercent),
    ]

    static func lowercaseSchemeAndHost(_ url: String) -> String {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return url }
        let rest = url[url.index(colon, offsetBy: 3)...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let scheme = url[..<colon].lowercased()
        let authority = rest[..<authorityEnd].lowercased()
        return scheme + "://" + authority + String(rest[authorityEnd...])
    }

    static func swapScheme(_ url: String, from: String, to: String) -> String {
        url.lowercased().hasPrefix(from) ? to + url.dropFirst(from.count) : url
    }

    static func toggleSlash(_ url: String, add: Bool) -> String {
        let parts = KeyFilter.URLParts(url)
        var path = String(parts.beforeQuery)
        if add {
            guard !path.hasSuffix("/") else { return url }
            path += "/"
        } else {
            guard path.hasSuffix("/"), !path.hasSuffix("://") else { return url }
            path.removeLast()
        }
        return path + (parts.query.map { "?" + $0 } ?? "") + (parts.fragment.map { "#" + $0 } ?? "")
    }

    /// `%41` → `A` for unreserved characters (RFC 3986 §6.2.2.2); other escapes upper-cased.
    static func normalisePercent(_ url: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(url.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let value = UInt8(String(decoding: utf8[index + 1...index + 2], as: UTF8.self), radix: 16)
            {
                let character = Character(UnicodeScalar(value))
                if value < 0x80, character.isLetter || character.isNumber || "-._~".contains(character) {
                    bytes.append(value)
                } else {
                    let hex = String(decoding: utf8[index + 1...index + 2], as: UTF8.self).uppercased()
                    bytes.append(contentsOf: Array(("%" + hex).utf8))
                }
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
