import ImgwarmSystem

/// SDWebImage's `removeExpiredData`, run on demand (docs/cache-contract.md §3), plus `--all`.
extension DiskCache {
    /// What a clean pass removes. The defaults are SDWebImage's: access dates, one week, no size
    /// limit.
    public struct CleanPolicy: Sendable, Equatable {
        /// The date files are judged by. `.access` by default.
        public var expireType: ExpireType = .access
        /// Files whose date is at or before now − maxAge are expired (SDWebImage's `maxDiskAge`).
        /// `.after(seconds: 604800)` (7 days) by default.
        public var maxAge: Expiry = .after(seconds: 7 * 86400)
        /// When the allocated size of what remains is strictly above this, the oldest files go
        /// until it is strictly below half of it. `0` (no limit) by default.
        public var maxSize: UInt64 = 0
        /// Remove every entry that is not a folder, hidden ones and links (never their targets)
        /// included. `false` by default.
        public var removeAll = false

        public init() {}
    }

    /// Why a file was removed.
    public enum RemovalReason: String, Codable, Sendable {
        /// Its date was at or before now − max-age.
        case expired
        /// The size pass removed it, oldest first.
        case trimmed
        /// `--all` removed it.
        case cleared
    }

    /// One removed (or, in a dry run, removable) entry.
    public struct Removal: Sendable {
        public var entry: CacheEntry
        public var reason: RemovalReason
    }

    /// A file that should have gone and could not.
    public struct RemovalFailure: Sendable {
        public var entry: CacheEntry
        public var code: Int32
        public var message: String { SystemError.message(code) }
    }

    /// The outcome of a clean pass.
    public struct CleanResult: Sendable {
        public var before: DiskTotals
        public var after: DiskTotals
        public var removed: [Removal] = []
        public var failures: [RemovalFailure] = []
        /// The totals of the files the age and size passes looked at, after the pass.
        public var remainingAllocated: UInt64 = 0
        public var folderExists: Bool
        /// State rows deleted with the files (and stale ones found on the way).
        public var stateRowsRemoved = 0
        /// Why the state database could not be updated, if it could not.
        public var stateWarning: String?
    }

    /// Runs the age pass and then the size pass over `scan`, exactly as SDWebImage does.
    ///
    /// Only non-hidden regular files take part: hidden entries, folders (never entered), symbolic
    /// links and other kinds are neither counted in the size pass nor removed. `remove` deletes one
    /// entry or throws why not; a dry run passes one that deletes nothing. As in
    /// SDWebImage, a file that cannot be removed does not lower the size the trim works towards.
    public static func clean(
        _ scan: Scan, policy: CleanPolicy, now: Timestamp,
        remove: (CacheEntry) throws(SystemError) -> Void
    ) -> CleanResult {
        var result = CleanResult(before: scan.totals, after: scan.totals, folderExists: scan.exists)
        func attempt(_ entry: CacheEntry, _ reason: RemovalReason) -> Bool {
            do {
                try remove(entry)
            } catch {
                if !error.isNotFound && error != .stale {
                    result.failures.append(RemovalFailure(entry: entry, code: error.code))
                }
                return false
            }
            result.removed.append(Removal(entry: entry, reason: reason))
            result.after.subtract(logical: entry.logicalSize, allocated: entry.allocatedSize)
            return true
        }

        if policy.removeAll {
            for entry in scan.entries where entry.kind != .directory && entry.kind != .other {
                _ = attempt(entry, .cleared)
            }
            return result
        }

        let expiration = policy.maxAge.seconds.map { now.adding(seconds: -$0) }
        // Indices into scan.entries (not copies): a cache can hold hundreds of thousands of files.
        var remaining: [Int32] = []
        var currentSize: UInt64 = 0
        for (index, entry) in scan.entries.enumerated() where entry.kind == .file && !entry.isHidden {
            if let expiration, entry.date <= expiration {
                // Like SDWebImage, an expired file that cannot be removed is not counted again.
                _ = attempt(entry, .expired)
                continue
            }
            remaining.append(Int32(index))
            currentSize &+= entry.allocatedSize
        }

        if policy.maxSize > 0 && currentSize > policy.maxSize {
            let desired = policy.maxSize / 2
            let entries = scan.entries
            remaining.sort { a, b in
                let x = entries[Int(a)]
                let y = entries[Int(b)]
                return x.date != y.date ? x.date < y.date : x.name < y.name
            }
            for index in remaining {
                let entry = entries[Int(index)]
                if attempt(entry, .trimmed) {
                    currentSize -= entry.allocatedSize
                    if currentSize < desired { break }
                }
            }
        }
        result.remainingAllocated = currentSize
        return result
    }

    /// Deletes `entry` from the folder if it is still the file that was scanned, with the date
    /// it was judged by. A file replaced since the scan (another inode), or read since (a
    /// prefetch hit moved its access time), is left alone (`SystemError.stale`), as is one
    /// already gone (`ENOENT`).
    public func removeIfUnchanged(_ entry: CacheEntry, in directory: FileDescriptor, expireType: ExpireType)
        throws(SystemError)
    {
        let info = try directory.status(of: entry.name)
        guard info.inode == entry.inode, info.device == entry.device else { throw .stale }
        if entry.kind == .file {
            var date = DiskCache.date(of: info, expireType)
            if expireType == .creation, let birth = try? directory.birthTime(of: entry.name) { date = birth }
            guard date == entry.date else { throw .stale }
        }
        try directory.removeFile(entry.name)
    }
}
