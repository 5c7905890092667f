internal import CCrypto

/// SHA-1 and SHA-256 of a cache key's UTF-8 bytes, as lower-case hex: the file names of Nuke's
/// `DataCache` (SHA-1), Kingfisher 8 (SHA-256) and the Android libraries (SPEC §11 in
/// docs/cache-formats.md).
///
/// OpenSSL's libcrypto does the hashing: libcurl4-openssl links it already, so it costs no new
/// runtime package, and its SHA code uses the CPU's SHA instructions. MD5 stays hand-written
/// (`MD5`): SDWebImage's names need the digest's words for the hit snapshot, and it predates this.
/// Checked against the FIPS 180 examples in `DigestTests`.
public enum Digest {
    /// The 40 hex digits of the SHA-1 of `text`'s UTF-8 bytes.
    public static func sha1Hex(_ text: String) -> String {
        hex(of: text, length: Int(SHA_DIGEST_LENGTH)) { SHA1($0, $1, $2) }
    }

    /// The 64 hex digits of the SHA-256 of `text`'s UTF-8 bytes.
    public static func sha256Hex(_ text: String) -> String {
        hex(of: text, length: Int(SHA256_DIGEST_LENGTH)) { SHA256($0, $1, $2) }
    }

    /// The raw SHA-1 of `text`'s UTF-8 bytes (20 bytes).
    public static func sha1(_ text: String) -> [UInt8] {
        raw(of: text, length: Int(SHA_DIGEST_LENGTH)) { SHA1($0, $1, $2) }
    }

    private static func raw(
        of text: String, length: Int,
        _ hash: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?
    ) -> [UInt8] {
        var text = text
        var digest = [UInt8](repeating: 0, count: length)
        text.withUTF8 { bytes in
            digest.withUnsafeMutableBufferPointer { out in _ = hash(bytes.baseAddress, bytes.count, out.baseAddress) }
        }
        return digest
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hex(
        of text: String, length: Int,
        _ hash: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?
    ) -> String {
        let digest = raw(of: text, length: length, hash)
        let digits = Digest.hexDigits
        return String(unsafeUninitializedCapacity: length * 2) { out in
            for (index, byte) in digest.enumerated() {
                out[2 * index] = digits[Int(byte >> 4)]
                out[2 * index + 1] = digits[Int(byte & 0x0f)]
            }
            return length * 2
        }
    }
}
