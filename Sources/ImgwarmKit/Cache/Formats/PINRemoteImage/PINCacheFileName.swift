/// The file name PINRemoteImage 3.x and PINCache 3.x give a key (docs/cache-formats.md,
/// "PINRemoteImage"):
///
/// 1. `cacheKeyForURL:processorKey:` — a key longer than 200 UTF-16 units
///    (`PINRemoteImageManagerCacheKeyMaxLength`, `NSString.length`) becomes the MD5 of its UTF-8
///    bytes, 32 lower-case hex digits;
/// 2. `PINDiskCache`'s default key encoder (`PINDiskCache.m`, `defaultKeyEncoder`, PINCache 3.0.4)
///    — `stringByAddingPercentEncodingWithAllowedCharacters:` with the inverted set of `.:/%`.
///    Foundation's implementation on Apple's systems (CoreFoundation's
///    `CFStringCreateByAddingPercentEncodingWithAllowedCharacters`, over the string's UTF-8 bytes)
///    keeps a byte only when it is 7-bit ASCII *and* in the allowed set: `.`, `:`, `/` and `%`
///    become `%2E`, `%3A`, `%2F` and `%25`, every UTF-8 byte of a character outside ASCII becomes
///    `%XX` (upper-case hex), and everything else (spaces, `?`, `<`, controls) stays as it is.
///
/// PINCache's own test: `http://www.test.de-<CoolStuff>?%` → `http%3A%2F%2Fwww%2Etest%2Ede-<CoolStuff>?%25`.
/// A name is never longer than a file name may be on the app's file system (`maxNameBytes`):
/// `PINRemoteImageFormat.refusal(forKey:)` refuses a key whose name would be.
public enum PINCacheFileName {
    /// `PINRemoteImageManagerCacheKeyMaxLength`.
    public static let maxKeyLength = 200

    /// The name of `key`'s file.
    public static func forKey(_ key: String) -> String {
        if key.utf16.count > maxKeyLength { return MD5.digest(Array(key.utf8)).hex }
        return encode(key)
    }

    /// The longest file name APFS (and every file system imgwarm writes on) takes, in bytes.
    public static let maxNameBytes = 255

    /// PINDiskCache's default key encoding of `key`.
    public static func encode(_ key: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(key.utf8.count + 16)
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in key.utf8 {
            if byte >= 0x80 || encoded.contains(byte) {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0xf)])
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The four ASCII bytes the encoder escapes (besides every byte of 0x80 and above).
    static let encoded: [UInt8] = [UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "%")]

    /// True when `name` can be an encoded key: not empty, at most `maxNameBytes`, 7-bit ASCII
    /// without `.`, `:` or `/`, and every `%` followed by two hex digits (what the encoder leaves;
    /// an MD5 name is one too).
    public static func isEncoded(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !name.isEmpty, name.count <= maxNameBytes else { return false }
        var index = 0
        while index < name.count {
            let byte = name[index]
            if byte >= 0x80 || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "/") {
                return false
            }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < name.count, isHex(name[index + 1]), isHex(name[index + 2]) else { return false }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
