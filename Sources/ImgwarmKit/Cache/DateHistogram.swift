import ImgwarmSystem

/// Allocated bytes and file counts by date, in at most `bucketCount` buckets of equal width: the
/// width is a power of two nanoseconds, doubled (neighbouring buckets merged) whenever the dates
/// seen span more buckets than half of `bucketCount`. Memory is fixed (about 800 KB) whatever
/// the number of files; resolution is the span of the dates divided by at least
/// `bucketCount / 4` (a week of dates: buckets of about 37 seconds or finer).
public struct DateHistogram: Sendable {
    /// `65536`.
    public static let bucketCount = 1 << 16

    /// Bytes and counts of the buckets in date order.
    public private(set) var bytes: [UInt64] = []
    public private(set) var counts: [UInt32] = []
    /// The bucket width is `1 << shift` nanoseconds.
    public private(set) var shift = 0
    /// Bucket 0 holds the dates `d` with `d >> shift == base`.
    private var base: Int64 = 0
    /// The smallest and largest `d >> shift` seen.
    private var low = Int64.max
    private var high = Int64.min

    public init() {}

    /// The number of buckets in use (0 when empty).
    public var count: Int { low > high ? 0 : Int(high - base) + 1 }

    /// `date` as nanoseconds since the epoch, clamped to ±2⁶² (years ±146 million); monotonic.
    public static func nanoseconds(_ date: Timestamp) -> Int64 {
        let limit = Int64(1) << 62
        let seconds = max(min(date.seconds, limit / 1_000_000_000 - 1), -(limit / 1_000_000_000 - 1))
        return seconds * 1_000_000_000 + date.nanoseconds
    }

    /// The first nanosecond of bucket `index`.
    public func start(of index: Int) -> Int64 { (base + Int64(index)) << shift }

    /// The bucket of `time` (clamped to the buckets in use).
    public func index(of time: Int64) -> Int {
        Int(max(min(time >> shift, high), low) - base)
    }

    public mutating func add(_ date: Timestamp, bytes size: UInt64) {
        let time = DateHistogram.nanoseconds(date)
        if low > high {
            bytes = Array(repeating: 0, count: DateHistogram.bucketCount)
            counts = Array(repeating: 0, count: DateHistogram.bucketCount)
            low = time
            high = time
            base = time - Int64(DateHistogram.bucketCount / 4)
        }
        var key = time >> shift
        if key < base || key >= base + Int64(DateHistogram.bucketCount) {
            rearrange(including: key)
            key = time >> shift
        }
        let index = Int(key - base)
        bytes[index] &+= size
        counts[index] &+= 1
        low = min(low, key)
        high = max(high, key)
    }

    /// Widens the buckets until the span with `key` fits in half of them, and re-centres.
    private mutating func rearrange(including key: Int64) {
        let half = Int64(DateHistogram.bucketCount / 2)
        var newShift = shift
        var lowKey = min(low, key)
        var highKey = max(high, key)
        while highKey - lowKey >= half {
            newShift += 1
            lowKey >>= 1
            highKey >>= 1
        }
        let extra = newShift - shift
        let newBase = lowKey - (half - (highKey - lowKey)) / 2
        var newBytes = Array(repeating: UInt64(0), count: DateHistogram.bucketCount)
        var newCounts = Array(repeating: UInt32(0), count: DateHistogram.bucketCount)
        if low <= high {
            for old in Int(low - base)...Int(high - base) where counts[old] > 0 {
                let moved = Int(((base + Int64(old)) >> extra) - newBase)
                newBytes[moved] &+= bytes[old]
                newCounts[moved] &+= counts[old]
            }
        }
        bytes = newBytes
        counts = newCounts
        shift = newShift
        base = newBase
        low = low <= high ? low >> extra : low
        high = low <= high ? high >> extra : high
    }
}
