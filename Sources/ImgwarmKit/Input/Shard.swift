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
    /// The scheduler `--shard auto` read K and N from; nil for a `K/N` given.
    public let origin: ShardScheduler.Origin?

    public static let maxCount = 65536

    /// Why a `K/N` is not a shard: a usage error whose message ends with an example.
    public struct SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public init(index: Int, count: Int, origin: ShardScheduler.Origin? = nil) throws(SyntaxError) {
        guard (1...Shard.maxCount).contains(count), (1...count).contains(index) else {
            throw SyntaxError(
                message:
                    "invalid shard \(index)/\(count): K/N needs 1 ≤ K ≤ N ≤ \(Shard.maxCount), e.g. \(Setting.shard) 2/8"
            )
        }
        self.index = index
        self.count = count
        self.origin = origin
    }

    /// Parses `K/N`, e.g. `2/8`.
    public init(parsing text: String) throws(SyntaxError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else {
            throw SyntaxError(
                message:
                    "invalid shard '\(text)': write K/N with 1 ≤ K ≤ N ≤ \(Shard.maxCount), e.g. \(Setting.shard) 2/8 (the second of eight), or auto under a scheduler that numbers its tasks"
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

/// What `--shard` asks for: a shard given as `K/N`, or `auto` and `auto/N`, whose K (and N) the
/// scheduler's variables give when the command starts (`ShardScheduler`).
public enum ShardRequest: Sendable, Equatable {
    case given(Shard)
    case automatic(count: Int?)

    /// Parses `K/N`, `auto` or `auto/N`.
    public init(parsing text: String) throws(Shard.SyntaxError) {
        guard text == "auto" || text.hasPrefix("auto/") else {
            self = .given(try Shard(parsing: text))
            return
        }
        guard text != "auto" else {
            self = .automatic(count: nil)
            return
        }
        let digits = text.dropFirst("auto/".count)
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let count = Int(digits), (1...Shard.maxCount).contains(count)
        else {
            throw Shard.SyntaxError(
                message:
                    "invalid shard '\(text)': write auto/N with 1 ≤ N ≤ \(Shard.maxCount), N being the number of tasks, e.g. \(Setting.shard) auto/8"
            )
        }
        self = .automatic(count: count)
    }

    /// The shard: the one given, or the one the scheduler's variables in `environment` give.
    public func shard(environment: [String: String]) throws(ShardScheduler.Refusal) -> Shard {
        switch self {
        case .given(let shard): return shard
        case .automatic(let count): return try ShardScheduler.shard(environment: environment, count: count)
        }
    }
}
