/// The end of a run into a cache with an index (a DiskLruCache journal, docs/cache-formats-android.md):
/// what the index recorded is written; and for any cache the app trims to a size limit on its
/// own, a cache left above that limit is reported.
extension PrefetchJob {
    /// Writes the index's last lines under the shared cache lock (after every store is done),
    /// then says whether the cache is above the library's size limit.
    func writeIndex(_ store: CacheStore, lock: CacheLock) {
        guard let index = store.index else {
            warnAboveSizeLimit(size: { (try? DiskCache(location: location).totals())?.allocatedBytes })
            return
        }
        do {
            try lock.lockShared(timeout: configuration.lockTimeout)
        } catch {
            note(.lockTimeout(error))
            return
        }
        defer { lock.unlock() }
        do {
            try store.flushIndex(lockTimeout: configuration.lockTimeout)
        } catch {
            note(.indexFailure(error))
            return
        }
        warnAboveSizeLimit(size: { index.accountedBytes })
    }

    /// Warns when the format's library trims to a size limit on its own and `size` (the bytes it
    /// counts) is above it. `size` is asked only for such a format.
    private func warnAboveSizeLimit(size: () -> UInt64?) {
        let format = location.format
        guard format.trimsItselfToSizeLimit else { return }
        let limit = configuration.sizeLimit ?? format.cleanRules.defaultMaxSize
        guard limit > 0, let size = size(), size > limit else { return }
        observer?.prefetchWarning(
            "the cache now holds \(Quantities.formatBytes(size)), above \(format.library)'s limit of \(Quantities.formatBytes(limit)) (\(Setting.maxSize)): the app will remove its least recently used entries on its own"
        )
    }

    /// The index as the library would read it, for a dry run (which writes nothing); nil for a
    /// plain-files cache. When the library would not read it, the run says so and fails as the
    /// real run would (every key is then a miss).
    func readIndexWithoutWriting() -> (any CacheIndex)? {
        guard let index = location.format.makeIndex(for: location) else { return nil }
        do {
            try index.load()
        } catch {
            note(.indexFailure(error))
        }
        return index
    }
}
