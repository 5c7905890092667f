import ImgwarmSystem

/// SDWebImage's `removeExpiredData`, run on demand (docs/cache-contract.md §3), plus `--all`.
///
/// The pass streams: memory does not grow with the number of files (docs/cache-contract.md §3,
/// "Bounded memory"). A first walk of the folder (`survey`) counts the totals, checks the guard,
/// and builds a histogram of the allocated bytes of the files the size pass looks at, by date
/// (`DateHistogram`: at most `DateHistogram.bucketCount` buckets). A second walk (`clean`) deletes
/// the expired files and the files of the buckets that lie wholly below the cut the histogram
/// gives; only the files of the buckets at the cut are collected (at most `pageCapacity` at a
/// time) and removed in the exact order of SDWebImage's sort: date, then name.
extension DiskCache {
    /// What a clean pass removes. The defaults are SDWebImage's: access dates, one week, no size
    /// limit.
    public struct CleanPolicy: Sendable, Equatable {
        /// The date files are judged by. `.access` by default. Formats whose rules name the date
        /// (`CleanRules.trimDate`) use theirs.
        public var expireType: ExpireType = .access
        /// Files whose date is at or before now − maxAge are expired (SDWebImage's `maxDiskAge`;
        /// only for formats whose expiry is `.age`). `.after(seconds: 604800)` (7 days) by default.
        public var maxAge: Expiry = .after(seconds: 7 * 86400)
        /// The size limit of the format's size pass (`CleanRules`; SDWebImage: when the allocated
        /// size of what remains is strictly above it, the oldest files go until it is strictly
        /// below half of it). `0` (no limit) by default.
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
        /// The call that failed (`"unlinkat"`), when known.
        public var call: String?
        public var message: String { SystemError.message(code) }
    }

    /// Why an entry the clean chose was not deleted.
    public enum RemovalError: Error, Sendable {
        /// The file is no longer the one scanned: replaced since (another inode), or read since
        /// (a prefetch hit moved its access time). It is left alone, and it is not a failure.
        case changedSinceScan
        /// A system call failed; `SystemError.isNotFound` (gone since the scan) is not a failure.
        case system(SystemError)
    }

    /// What a clean pass tells its observer, as it happens: each removal and each failure once.
    public enum CleanEvent: Sendable {
        case removed(Removal)
        case failed(RemovalFailure)
    }

    /// The outcome of a clean pass: counts and totals only. The removals and failures themselves
    /// went to the observer as they happened (a clean of millions of files keeps no list).
    public struct CleanResult: Sendable {
        public var before: DiskTotals
        public var after: DiskTotals
        /// Entries removed (or, in a dry run, removable), by reason.
        public var expired = 0
        public var trimmed = 0
        public var cleared = 0
        /// The sums of `st_size` and `st_blocks × 512` of the removed entries.
        public var removedLogicalBytes: UInt64 = 0
        public var removedAllocatedBytes: UInt64 = 0
        /// Files that should have gone and could not.
        public var failed = 0
        /// Entries whose index line or row names no plain file of the folder (`../x`, `a/b`, a
        /// NUL): their index line or row went, no file was opened or removed for them
        /// (docs/hardening.md); and the first such name.
        public var skipped = 0
        public var firstSkippedName: String?
        /// What remains as the format's size pass counts it (`CleanRules.measure`, and for a
        /// journal its listed lengths), after the passes: the figure `--max-size` is compared
        /// with. nil when no pass counted (`--all`, an index whose cleanup knows no size).
        public var remainingCounted: UInt64?
        public var folderExists: Bool
        /// State rows deleted with the files (and stale ones found on the way).
        public var stateRowsRemoved = 0
        /// Why the state database could not be updated, if it could not.
        public var stateWarning: String?
        /// How many times the folder was read (the survey included): 2 normally, 1 when there is
        /// nothing to do, more only when removals failed or a cut fell among more than
        /// `pageCapacity` files.
        public var passes = 0
        /// Set when the format orders by creation date and the file system records none: the
        /// change time stood in (`CleanRules.creationFallsBackToChange`).
        public var orderedByChangeTime = false

        public init(before: DiskTotals, folderExists: Bool) {
            self.before = before
            self.after = before
            self.folderExists = folderExists
        }

        /// Every removal, whatever the reason.
        public var removedCount: Int { expired + trimmed + cleared }

        /// Removes the file at `path` (`name` in the folder, `info` its status), unless `dryRun`,
        /// and counts it under `reason`, telling `observe`: the removal pass of the formats whose
        /// index chooses the files (`CacheIndex.clean`). False when it did not go: a failure is
        /// counted and observed, a file already gone is neither.
        mutating func remove(
            _ name: String, _ info: FileStatus, path: String, reason: RemovalReason, dryRun: Bool,
            observe: (CleanEvent) -> Void
        ) -> Bool {
            remove(name, info, reason: reason, dryRun: dryRun, observe: observe) { () throws(SystemError) in
                try FileSystem.removeFile(path)
            }
        }

        /// `remove(_:_:path:…)` of the plain name `name` in `folder` (`unlinkat`): an index's
        /// names (a journal's keys, a database's rows) go only this way.
        mutating func remove(
            _ name: String, _ info: FileStatus, in folder: FileDescriptor, reason: RemovalReason, dryRun: Bool,
            observe: (CleanEvent) -> Void
        ) -> Bool {
            remove(name, info, reason: reason, dryRun: dryRun, observe: observe) { () throws(SystemError) in
                try folder.removeEntry(name)
            }
        }

        /// Counts an entry whose index names no plain file of the folder: nothing is removed.
        mutating func skip(_ name: String) {
            skipped += 1
            if firstSkippedName == nil { firstSkippedName = name }
        }

        private mutating func remove(
            _ name: String, _ info: FileStatus, reason: RemovalReason, dryRun: Bool,
            observe: (CleanEvent) -> Void, unlink: () throws(SystemError) -> Void
        ) -> Bool {
            let entry = CacheEntry(
                name: name, kind: info.kind, logicalSize: info.size, allocatedSize: info.allocatedSize,
                date: info.modified, device: info.device, inode: info.inode)
            if !dryRun {
                do throws(SystemError) {
                    try unlink()
                } catch {
                    if !error.isNotFound {
                        failed += 1
                        observe(.failed(RemovalFailure(entry: entry, code: error.code, call: error.call)))
                    }
                    return false
                }
            }
            switch reason {
            case .expired: expired += 1
            case .trimmed: trimmed += 1
            case .cleared: cleared += 1
            }
            removedLogicalBytes += info.size
            removedAllocatedBytes += info.allocatedSize
            after.subtract(logical: info.size, allocated: info.allocatedSize)
            observe(.removed(Removal(entry: entry, reason: reason)))
            return true
        }
    }

    /// What the first walk of the folder found: totals, the guard's findings, and what the size
    /// pass needs (the allocated bytes of the files it looks at, by date). No per-file storage.
    public struct Survey: Sendable {
        /// False when the folder does not exist (then everything else is empty).
        public var exists = true
        /// SDWebImage's totals over the whole tree.
        public var totals = DiskTotals()
        /// Non-hidden regular files whose names are not cache file names: the first three, and
        /// how many in all.
        public var foreignNames: [String] = []
        public var foreignCount = 0
        /// Expired files (the age pass removes them).
        public var expiredCount = 0
        /// The allocated bytes of the non-hidden regular files that are not expired.
        public var currentSize: UInt64 = 0
        /// Those bytes by date.
        public var histogram = DateHistogram()
        /// The file system records no birth times and the change time stood in for them.
        public var orderedByChangeTime = false
    }

    /// The most entries the size pass holds at once: the files at the cut, sorted by date and
    /// name. `32768` (a few megabytes); a cut among more files than this takes another walk per
    /// `pageCapacity` files.
    public static let pageCapacity = 32768

    /// The first walk: totals (subfolders entered to count, as `scan` does), the guard's foreign
    /// names, the expired count, and the histogram of what the size pass looks at.
    public func survey(policy: CleanPolicy, now: Timestamp) throws(DiskCacheError) -> Survey {
        guard let directory = try openExistingFolder() else { return Survey(exists: false) }
        defer { directory.close() }
        let rules = location.format.cleanRules
        let isExpired = expiryTest(policy: policy, now: now)
        var survey = Survey()
        var noBirthTime = false
        try walkEntries(
            directory, expireType: dateType(policy),
            { walked in
                survey.totals.add(logical: walked.info.size, allocated: walked.info.allocatedSize)
                guard walked.kind == .file && !walked.isHidden else { return }
                if !location.format.isEntryName(bytes: walked.nameBytes) {
                    survey.foreignCount += 1
                    if survey.foreignNames.count < 3 { survey.foreignNames.append(walked.entry().name) }
                }
                if isExpired(walked) {
                    survey.expiredCount += 1
                } else {
                    let size = rules.size(walked.info)
                    survey.currentSize &+= size
                    survey.histogram.add(walked.date, bytes: size)
                }
            },
            folders: { name, info in
                addSubfolder(parent: directory, name: name, info: info, to: &survey.totals)
            }, noBirthTime: birthFallback { noBirthTime = true })
        survey.orderedByChangeTime = noBirthTime
        return survey
    }

    /// Runs the age pass and then the size pass over the folder `survey` describes, with the
    /// results SDWebImage's `removeExpiredData` gives: the expired files, then the oldest files
    /// (by date, then name) until the allocated size is strictly below half of `maxSize`.
    ///
    /// Only non-hidden regular files take part: hidden entries, folders (never entered), symbolic
    /// links and other kinds are neither counted in the size pass nor removed. `remove` deletes one
    /// entry or throws why not; a dry run passes one that deletes nothing. As in SDWebImage, a
    /// file that cannot be removed does not lower the size the trim works towards; a file gone or
    /// changed since the scan (`RemovalError.changedSinceScan`) is neither removed nor a failure. `observe` hears of every
    /// removal and failure as it happens: the expired files and the trimmed files wholly below
    /// the cut in directory order, then the files at the cut in date-and-name order (every trimmed
    /// file in that order when the files up to the cut are at most `pageCapacity`).
    ///
    /// Files are judged as the second walk finds them: the result is exactly the full sort's for a
    /// folder nobody else changes meanwhile (the CLI holds the cache lock).
    public func clean(
        _ survey: Survey, in directory: FileDescriptor?, policy: CleanPolicy, now: Timestamp,
        pageCapacity: Int = DiskCache.pageCapacity,
        remove: (CacheEntry) throws(RemovalError) -> Void,
        observe: (CleanEvent) -> Void = { _ in }
    ) throws(DiskCacheError) -> CleanResult {
        var result = CleanResult(before: survey.totals, folderExists: survey.exists)
        guard survey.exists, let directory else { return result }
        func attempt(_ entry: CacheEntry, _ reason: RemovalReason) -> Bool {
            do {
                try remove(entry)
            } catch {
                if case .system(let failure) = error, !failure.isNotFound {
                    result.failed += 1
                    observe(.failed(RemovalFailure(entry: entry, code: failure.code, call: failure.call)))
                }
                return false
            }
            switch reason {
            case .expired: result.expired += 1
            case .trimmed: result.trimmed += 1
            case .cleared: result.cleared += 1
            }
            result.removedLogicalBytes &+= entry.logicalSize
            result.removedAllocatedBytes &+= entry.allocatedSize
            result.after.subtract(logical: entry.logicalSize, allocated: entry.allocatedSize)
            observe(.removed(Removal(entry: entry, reason: reason)))
            return true
        }
        let expireType = dateType(policy)
        let rules = location.format.cleanRules
        let birthFallback = self.birthFallback { result.orderedByChangeTime = true }
        result.orderedByChangeTime = survey.orderedByChangeTime
        result.passes = 1

        if policy.removeAll {
            result.passes += 1
            try walk(directory, expireType: expireType) { entry in
                guard entry.kind != .other else { return }
                if rules.clearsOnlyEntryNames
                    && !Array(entry.name.utf8).withUnsafeBufferPointer({ location.format.isEntryName(bytes: $0) })
                {
                    return
                }
                _ = attempt(entry, .cleared)
            }
            return result
        }

        let isExpired = expiryTest(policy: policy, now: now)
        var currentSize = survey.currentSize
        result.remainingCounted = currentSize
        let trimming = policy.maxSize > 0 && currentSize > rules.trimThreshold(limit: policy.maxSize)
        guard trimming else {
            guard survey.expiredCount > 0 else { return result }
            result.passes += 1
            try walkEntries(
                directory, expireType: expireType,
                { walked in
                    if walked.kind == .file && !walked.isHidden && isExpired(walked) {
                        _ = attempt(walked.entry(), .expired)
                    }
                }, noBirthTime: birthFallback)
            return result
        }

        let desired = rules.trimGoal(limit: policy.maxSize)
        let histogram = survey.histogram
        var handled = HandledPrefix.none
        var firstBucket = 0
        var expiring = true  // the first walk removes the expired files; later ones skip them
        rounds: while currentSize >= desired && firstBucket < histogram.count {
            let need = currentSize - desired + 1
            // The cut: the first bucket where the running total of bytes, oldest first, reaches
            // what must go. Buckets before `window` go whole; `window...cut` is sorted.
            var cut = histogram.count - 1
            var running: UInt64 = 0
            for index in firstBucket..<histogram.count {
                running &+= histogram.bytes[index]
                if running >= need {
                    cut = index
                    break
                }
            }
            var window = cut
            var windowCount = Int(histogram.counts[cut])
            while window > firstBucket && windowCount + Int(histogram.counts[window - 1]) <= pageCapacity {
                window -= 1
                windowCount += Int(histogram.counts[window])
            }
            let windowStart = histogram.start(of: window)
            let windowEnd = cut + 1 < histogram.count ? histogram.start(of: cut + 1) : Int64.max
            var page = Page(capacity: max(pageCapacity, 1))
            result.passes += 1
            try walkEntries(
                directory, expireType: expireType,
                { walked in
                    guard walked.kind == .file && !walked.isHidden else { return }
                    if isExpired(walked) {
                        if expiring { _ = attempt(walked.entry(), .expired) }
                        return
                    }
                    guard !handled.contains(walked) else { return }
                    let time = DateHistogram.nanoseconds(walked.date)
                    if time < windowStart {
                        if attempt(walked.entry(), .trimmed) {
                            currentSize &-= min(rules.size(walked.info), currentSize)
                        }
                    } else if time < windowEnd {
                        page.add(walked)
                    }
                }, noBirthTime: birthFallback)
            expiring = false
            let (sorted, overflowed) = page.finish()
            for entry in sorted where attempt(entry, .trimmed) {
                currentSize &-= min(rules.size(entry), currentSize)
                if currentSize < desired { break rounds }
            }
            if overflowed, let last = sorted.last {
                handled = .upTo(last.date, last.name)
                firstBucket = histogram.index(of: DateHistogram.nanoseconds(last.date))
            } else {
                if windowEnd == Int64.max { break }
                handled = .before(windowEnd)
                firstBucket = cut + 1
            }
        }
        result.remainingCounted = currentSize
        return result
    }

    /// The date the passes judge files by: the format's (`CleanRules.trimDate`), else the policy's.
    public func dateType(_ policy: CleanPolicy) -> ExpireType {
        location.format.cleanRules.trimDate ?? policy.expireType
    }

    /// What a walk does without birth times: nil (an error) unless the format lets the change
    /// time stand in, then `note` hears of it.
    private func birthFallback(_ note: @escaping () -> Void) -> (() -> Void)? {
        location.format.cleanRules.creationFallsBackToChange ? note : nil
    }

    /// Whether a walked file is expired under the format's rules at `now`.
    private func expiryTest(policy: CleanPolicy, now: Timestamp) -> (WalkedEntry) -> Bool {
        switch location.format.cleanRules.expiry {
        case .age:
            guard let seconds = policy.maxAge.seconds else { return { _ in false } }
            let expiration = now.adding(seconds: -seconds)
            return { $0.date <= expiration }
        case .stamped:
            return { $0.info.modified <= now }
        case .none, .index:
            return { _ in false }
        }
    }

    /// The files the size pass has already judged: always a prefix in (date, name) order.
    enum HandledPrefix {
        case none
        /// Every file dated before this many nanoseconds since the epoch.
        case before(Int64)
        /// Every file up to and including this date and name.
        case upTo(Timestamp, String)

        func contains(_ walked: WalkedEntry) -> Bool {
            switch self {
            case .none: return false
            case .before(let time): return DateHistogram.nanoseconds(walked.date) < time
            case .upTo(let date, let name):
                // The name (a String, compared as the sort compares) only for a tie of dates.
                return walked.date < date || (walked.date == date && walked.entry().name <= name)
            }
        }
    }

    /// The smallest `capacity` entries by (date, name) among those added: holds at most twice
    /// `capacity`, sorting and dropping the largest half when full.
    struct Page {
        let capacity: Int
        var entries: [CacheEntry] = []
        /// The largest kept entry once some were dropped: anything after it is dropped too.
        var bound: CacheEntry?

        init(capacity: Int) {
            self.capacity = capacity
        }

        static func precedes(_ x: CacheEntry, _ y: CacheEntry) -> Bool {
            x.date != y.date ? x.date < y.date : x.name < y.name
        }

        mutating func add(_ walked: WalkedEntry) {
            // Past the bound by date alone: no String made for it.
            if let bound, walked.date > bound.date { return }
            let entry = walked.entry()
            if let bound, !Page.precedes(entry, bound) { return }
            entries.append(entry)
            if entries.count == 2 * capacity { keepSmallest() }
        }

        private mutating func keepSmallest() {
            entries.sort(by: Page.precedes)
            entries.removeLast(entries.count - capacity)
            bound = entries.last
        }

        /// The kept entries, sorted; and whether some were dropped (they all come after the last).
        mutating func finish() -> ([CacheEntry], Bool) {
            if entries.count > capacity {
                keepSmallest()
            } else {
                entries.sort(by: Page.precedes)
            }
            return (entries, bound != nil)
        }
    }

    /// Deletes `entry` from the folder if it is still the file that was scanned, with the date
    /// it was judged by. A file replaced since the scan (another inode), or read since (a
    /// prefetch hit moved its access time), is left alone (`RemovalError.changedSinceScan`), as
    /// is one already gone (`ENOENT`).
    public func removeIfUnchanged(_ entry: CacheEntry, in directory: FileDescriptor, expireType: ExpireType)
        throws(RemovalError)
    {
        let info: FileStatus
        do { info = try directory.status(of: entry.name) } catch { throw .system(error) }
        guard info.inode == entry.inode, info.device == entry.device else { throw .changedSinceScan }
        if entry.kind == .file {
            var date = DiskCache.date(of: info, expireType)
            if expireType == .creation, let birth = try? directory.birthTime(of: entry.name) { date = birth }
            guard date == entry.date else { throw .changedSinceScan }
        }
        do { try directory.removeFile(entry.name) } catch { throw .system(error) }
    }
}
