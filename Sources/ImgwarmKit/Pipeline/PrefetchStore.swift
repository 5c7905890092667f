/// The cache as a prefetch uses it, on the thread that runs it: an entry's file name and what
/// is there (a damaged hit is a miss), touching hits under the shared cache lock, a 304's touch,
/// and the end of the run (the index's last lines, the library's size limit). Storing is the
/// `ValidationPool`'s, on its threads, through `cache`.
final class PrefetchStore {
    let cache: CacheStore
    private let lock: CacheLock
    private let lockTimeout: Double
    /// The hit the last lookup found while the shared lock was held; nil once it is released.
    private var foundUnderLock: String?
    /// That hit's file, open since the lookup (`CacheStore.lookupChecking`): its touch sets the
    /// times through it. At most one is open; `forgetHit` closes it.
    private var openHit: FileDescriptor?

    init(location: CacheLocation, lockTimeout: Double, index: CacheIndexPreload? = nil) throws(CacheStoreError) {
        cache = try CacheStore(location: location, preloaded: index)
        lock = try CacheLock(location: location)
        self.lockTimeout = lockTimeout
    }

    /// Opens the cache for a run: temporary files an earlier run left are removed, and `warn`
    /// is told when they cannot stay out of the folder's listing. `ahead`: holds the folder's
    /// index, read while the lists were (`CacheIndexPreload`).
    static func open(
        location: CacheLocation, lockTimeout: Double, ahead: PrefetchReadAhead?, warn: (String) -> Void
    ) throws(CacheStoreError) -> PrefetchStore {
        let store = try PrefetchStore(location: location, lockTimeout: lockTimeout, index: ahead?.index)
        store.cache.removeStaleTemporaryFiles()
        if store.cache.usesHiddenTemporaryFiles {
            warn(
                "\(location.privateFolder) is on another file system than the cache folder: temporary files go to hidden names inside it"
            )
        }
        return store
    }

    var index: (any CacheIndex)? { cache.index }

    /// Settles `entry`'s file name, and looks it up; a hit the app would not decode is a miss,
    /// and `damage` says why.
    func lookup(_ entry: inout PendingEntry) -> (name: String, lookup: CacheStore.Lookup, damage: String?) {
        let name = entry.settleFileName(in: cache.location, index: cache.index)
        forgetHit()
        let (lookup, damage, file) = cache.lookupChecking(name)
        if let damage { return (name, .miss, damage) }
        if case .hit = lookup, lock.isHeld {
            foundUnderLock = name
            openHit = file
        } else {
            file?.close()
        }
        return (name, lookup, nil)
    }

    /// Touches hit `name` as the app's read would, under the shared cache lock, which stays
    /// held until `endTouches` (one hold for the hits of a round).
    func touchHit(_ name: String) throws(CacheLock.Timeout) {
        try lock.lockShared(timeout: lockTimeout)
        // Found by a lookup under the lock held since: one file status a hit, not two.
        let found = foundUnderLock == name
        cache.touch(name, foundUnderLock: found, file: found ? openHit : nil)
        forgetHit()
    }

    func endTouches() {
        lock.unlock()
        forgetHit()
    }

    /// The last lookup's hit is no longer known to be there (or has been touched).
    private func forgetHit() {
        foundUnderLock = nil
        openHit?.close()
        openHit = nil
    }

    /// Touches `name` after a 304 (the index records `response`); returns its size now.
    func touchRevalidated(_ name: String, by response: CacheIndexResponse) -> Int? {
        _ = try? lock.withShared(timeout: lockTimeout) { cache.touch(name, revalidatedBy: response) }
        forgetHit()
        if case .hit(let size) = cache.lookup(name) { return size }
        return nil
    }

    /// Writes the index's last lines under the shared cache lock (after every store is done);
    /// returns what stopped it, if anything did. Then `warn` gets the warning of a cache left
    /// above `maxSize` (or the format's own limit) by a format whose library trims itself to it.
    func finish(maxSize: UInt64?, warn: (String) -> Void) -> PrefetchJob.Halt? {
        let location = cache.location
        guard let index = cache.index else {
            warnAboveSizeLimit(maxSize, warn) { (try? DiskCache(location: location).totals())?.allocatedBytes }
            return nil
        }
        do {
            try lock.lockShared(timeout: lockTimeout)
        } catch {
            return .lockTimeout(error)
        }
        defer {
            lock.unlock()
            forgetHit()
        }
        do {
            try cache.flushIndex(lockTimeout: lockTimeout)
        } catch {
            return .indexFailure(error)
        }
        warnAboveSizeLimit(maxSize, warn) { index.accountedBytes }
        return nil
    }

    /// `size` (the bytes the library counts) is asked only for a format that trims itself.
    private func warnAboveSizeLimit(_ maxSize: UInt64?, _ warn: (String) -> Void, size: () -> UInt64?) {
        let format = cache.location.format
        guard format.trimsItselfToSizeLimit else { return }
        let limit = maxSize ?? format.cleanRules.defaultMaxSize
        guard limit > 0, let size = size(), size > limit else { return }
        warn(
            "the cache now holds \(Quantities.formatBytes(size)), above \(format.library)'s limit of \(Quantities.formatBytes(limit)) (\(Setting.maxSize)): the app will remove its least recently used entries on its own"
        )
    }
}
