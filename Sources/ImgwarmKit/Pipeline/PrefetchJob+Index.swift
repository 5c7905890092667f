/// The end of a run into a cache with an index (a DiskLruCache journal, docs/cache-formats-android.md):
/// what the index recorded is written, and a cache left above the library's size limit is
/// reported, since the app trims it at its first write to the cache.
extension PrefetchJob {
    /// Writes the index's last lines under the shared cache lock (after every store is done).
    func writeIndex(_ store: CacheStore, lock: CacheLock, summary: inout PrefetchSummary) {
        guard let index = store.index else { return }
        do {
            try lock.lockShared(timeout: configuration.lockTimeout)
        } catch {
            if lockFailure == nil {
                lockFailure = error
                observer?.prefetchHalted(.lockTimeout(error))
            }
            return
        }
        defer { lock.unlock() }
        do {
            try store.flushIndex(lockTimeout: configuration.lockTimeout)
        } catch {
            summary.indexFailure = error
            observer?.prefetchHalted(.indexFailure(error))
            return
        }
        let limit = configuration.sizeLimit ?? location.format.cleanRules.defaultMaxSize
        let size = index.accountedBytes
        if limit > 0 && size > limit {
            observer?.prefetchWarning(
                "the cache now holds \(Quantities.formatBytes(size)), above \(location.format.library)'s limit of \(Quantities.formatBytes(limit)) (\(Setting.maxSize)): the app will remove its least recently used entries as soon as it writes to the cache"
            )
        }
    }

    /// The index as the library would read it, for a dry run (which writes nothing); nil for a
    /// plain-files cache. When the library would not read it, the run says so and fails as the
    /// real run would (every key is then a miss).
    func readIndexWithoutWriting(_ failure: inout CacheIndexError?) -> (any CacheIndex)? {
        guard let index = location.format.makeIndex(for: location) else { return nil }
        do {
            try index.load()
        } catch {
            failure = error
            observer?.prefetchHalted(.indexFailure(error))
        }
        return index
    }
}
