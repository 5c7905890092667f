import ImgwarmSystem

/// How a library expires and trims its own disk cache, which `clean` reproduces
/// (docs/cache-formats.md; SDWebImage: docs/cache-contract.md §3).
public struct CleanRules: Sendable, Equatable {
    public enum Expiry: Sendable, Equatable {
        /// Files whose date (`--expire-type`) is at least `--max-age` old (SDWebImage).
        case age
        /// Files whose modification time, the expiry date the library stamped, is at or before
        /// now (Kingfisher). `--max-age` and `--expire-type` do not apply.
        case stamped
        /// The library expires nothing by age (Nuke).
        case none
        /// The library's index decides what goes, by its own fixed rules, in these words
        /// (flutter_cache_manager's cleanup); neither an age nor a size limit applies.
        case index(String)
    }

    public enum Measure: String, Sendable, Equatable {
        /// `st_blocks × 512`, what `totalFileAllocatedSize` and SDWebImage's trim add up.
        case allocated
        /// `st_size`, what Kingfisher's `fileSizeKey` adds up.
        case logical
    }

    /// Which files the size pass removes first.
    public enum Order: Sendable, Equatable {
        /// The oldest by `trimDate` (else `--expire-type`) first: the passes of the plain-files
        /// caches (SDWebImage, Kingfisher, Nuke).
        case oldestFirst
        /// The least recently used first, in the order the library's index lists its entries
        /// (a DiskLruCache journal's `trimToSize`: Glide, Coil).
        case indexOrder
        /// Files dated more than two hours ahead first, then the oldest by `trimDate` (Fresco's
        /// `DefaultEntryEvictionComparatorSupplier`).
        case futureDatedThenOldest
    }

    public var expiry: Expiry
    /// The date the size pass orders files by, oldest first; nil: `--expire-type` (SDWebImage).
    public var trimDate: ExpireType?
    /// True when a file system without birth times orders by the change time instead
    /// (Kingfisher: see docs/cache-formats.md); false makes `.creation` an error there.
    public var creationFallsBackToChange = false
    public var measure: Measure
    /// The size pass starts when the total is at or above the limit (Kingfisher), not only above it.
    public var startsAtLimit = false
    /// The size pass removes files until the total is at most (`stopsAtTarget`) or below
    /// limit × keep.numerator / keep.denominator.
    public var keep: (numerator: UInt64, denominator: UInt64) = (1, 2)
    /// Set, the target is limit × `trimRatio` in floating point, truncated, instead of `keep`'s
    /// exact fraction: Nuke's `Int(Double(sizeLimit) * trimRatio)`, which for some limits is one
    /// byte below the exact 70 % (a limit of 90 bytes: 62, not 63).
    public var trimRatio: Double?
    public var stopsAtTarget = false
    /// What goes first. `.oldestFirst` by default.
    public var order: Order = .oldestFirst
    /// `--max-size` when it is not given; 0 for no limit.
    public var defaultMaxSize: UInt64 = 0
    /// The app's own limit depends on the device (Picasso's: 2 % of the disk within 5–50 MB), so
    /// there is no default to name: without `--max-size` nothing is trimmed.
    public var limitDependsOnDevice = false
    /// `--all` removes only names of the format's entry shape (Kingfisher: a link or file of
    /// another name stays); false: every entry but folders and special files (SDWebImage, whose
    /// `clearDiskOnCompletion` removes the folder).
    public var clearsOnlyEntryNames = false

    public init(expiry: Expiry, trimDate: ExpireType?, measure: Measure) {
        self.expiry = expiry
        self.trimDate = trimDate
        self.measure = measure
    }

    /// A file's size as the size pass adds it up.
    public func size(_ info: FileStatus) -> UInt64 { measure == .logical ? info.size : info.allocatedSize }

    /// An entry's size as the size pass adds it up.
    public func size(_ entry: CacheEntry) -> UInt64 { measure == .logical ? entry.logicalSize : entry.allocatedSize }

    /// The size pass runs when the total is strictly above this (`limit` > 0).
    public func trimThreshold(limit: UInt64) -> UInt64 { startsAtLimit ? limit - 1 : limit }

    /// The size pass removes files until the total is strictly below this.
    public func trimGoal(limit: UInt64) -> UInt64 {
        let quotient: UInt64
        if let trimRatio {
            quotient = UInt64((Double(limit) * trimRatio).rounded(.towardZero))
        } else {
            let target = limit.multipliedFullWidth(by: keep.numerator)
            (quotient, _) = keep.denominator.dividingFullWidth(target)
        }
        return stopsAtTarget ? quotient + 1 : quotient
    }

    public static func == (a: CleanRules, b: CleanRules) -> Bool {
        a.expiry == b.expiry && a.trimDate == b.trimDate && a.creationFallsBackToChange == b.creationFallsBackToChange
            && a.measure == b.measure && a.startsAtLimit == b.startsAtLimit && a.keep == b.keep
            && a.trimRatio == b.trimRatio
            && a.stopsAtTarget == b.stopsAtTarget && a.defaultMaxSize == b.defaultMaxSize && a.order == b.order
            && a.limitDependsOnDevice == b.limitDependsOnDevice
    }
}
