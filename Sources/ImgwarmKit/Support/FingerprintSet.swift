/// A set of 64-bit fingerprints (the first half of an MD5 digest), in 8 bytes per slot.
///
/// The list reader remembers every distinct key it has read (to report duplicates) and the hit
/// check remembers every name in the cache folder; with `Set<MD5.Digest>` that costs 16 bytes per
/// slot, 32 MiB for a million keys, and twice that while the table grows. MD5's first 64 bits are
/// already uniformly spread, so they serve as both fingerprint and hash: open addressing with
/// linear probing, at most 3/4 full. Two distinct keys share a fingerprint with probability about
/// n²/2⁶⁵ (3·10⁻⁸ for a million keys); SDWebImage's own file names, being the whole MD5, already
/// merge keys whose digests collide.
public struct FingerprintSet: Sendable {
    /// Slots; 0 marks an empty one (the fingerprint 0 is kept in `holdsZero` instead).
    private var slots: [UInt64]
    private var mask: Int
    private var holdsZero = false
    public private(set) var count = 0

    public init(minimumCapacity: Int = 0) {
        var capacity = 16
        while capacity * 3 / 4 < minimumCapacity { capacity <<= 1 }
        slots = Array(repeating: 0, count: capacity)
        mask = capacity - 1
    }

    /// Every fingerprint held, in no order.
    public var fingerprints: [UInt64] { (holdsZero ? [0] : []) + slots.filter { $0 != 0 } }

    public static func fingerprint(_ digest: MD5.Digest) -> UInt64 {
        UInt64(digest.a) | UInt64(digest.b) << 32
    }

    /// Inserts `digest`'s fingerprint; false when it was already there.
    @discardableResult
    public mutating func insert(_ digest: MD5.Digest) -> Bool {
        insert(fingerprint: FingerprintSet.fingerprint(digest))
    }

    public func contains(_ digest: MD5.Digest) -> Bool {
        let value = FingerprintSet.fingerprint(digest)
        if value == 0 { return holdsZero }
        let mask = self.mask
        return slots.withUnsafeBufferPointer { table in
            table[FingerprintSet.probe(table, value, mask)] == value
        }
    }

    /// The slot that holds `value`, or the empty slot where it belongs (linear probing).
    @inline(__always)
    private static func probe(_ table: UnsafeBufferPointer<UInt64>, _ value: UInt64, _ mask: Int) -> Int {
        var index = Int(truncatingIfNeeded: value) & mask
        while table[index] != value && table[index] != 0 { index = (index + 1) & mask }
        return index
    }

    private mutating func insert(fingerprint value: UInt64) -> Bool {
        if value == 0 {
            if holdsZero { return false }
            holdsZero = true
            count += 1
            return true
        }
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let mask = self.mask
        let inserted = slots.withUnsafeMutableBufferPointer { table -> Bool in
            let index = FingerprintSet.probe(UnsafeBufferPointer(table), value, mask)
            guard table[index] == 0 else { return false }
            table[index] = value
            return true
        }
        if inserted { count += 1 }
        return inserted
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        mask = slots.count - 1
        let mask = self.mask
        slots.withUnsafeMutableBufferPointer { table in
            for value in old where value != 0 {
                table[FingerprintSet.probe(UnsafeBufferPointer(table), value, mask)] = value
            }
        }
    }
}
