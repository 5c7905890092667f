/// `--shard K/N`: this process handles the lines of shard K of N (docs/usage.md, "Running on many machines").
///
/// A line belongs to shard `1 + (first 8 bytes of MD5(key) read as a big-endian UInt64) mod N`,
/// so every process of a fleet agrees without talking to the others, whatever the order of the
/// lists, and all lines of one key (its duplicates) belong to the same shard.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based index of this process's shard.
    public let index: Int
    /// Number of shards, at most 65536.
    public let count: Int

    public static let maxCount = 65536

    /// Why a `K/N` is not a shard: a usage error whose message ends with an example.
    public struct SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public init(index: Int, count: Int) throws(SyntaxError) {
        guard (1...Shard.maxCount).contains(count), (1...count).contains(index) else {
            throw SyntaxError(
                message:
                    "invalid shard \(index)/\(count): K/N needs 1 ≤ K ≤ N ≤ \(Shard.maxCount), e.g. \(Setting.shard) 2/8"
            )
        }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`, e.g. `2/8`.
    public init(parsing text: String) throws(SyntaxError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else {
            throw SyntaxError(
                message:
                    "invalid shard '\(text)': write K/N with 1 ≤ K ≤ N ≤ \(Shard.maxCount), e.g. \(Setting.shard) 2/8 (the second of eight)"
            )
        }
        try self.init(index: index, count: count)
    }

    /// The shard (1...count) the key with this MD5 digest belongs to.
    public static func of(_ digest: MD5.Digest, count: Int) -> Int {
        // Digest words hold the bytes little-endian: byte-swapping gives them in digest order.
        let high = UInt64(digest.a.byteSwapped)
        let low = UInt64(digest.b.byteSwapped)
        return 1 + Int((high << 32 | low) % UInt64(count))
    }

    /// The shard of `key`.
    public static func of(key: String, count: Int) -> Int {
        of(MD5.digest(Array(key.utf8)), count: count)
    }

    /// True when the key with this digest is this process's to handle.
    public func owns(_ digest: MD5.Digest) -> Bool {
        Shard.of(digest, count: count) == index
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }
}
