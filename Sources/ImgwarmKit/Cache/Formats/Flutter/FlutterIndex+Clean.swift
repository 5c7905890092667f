import ImgwarmSystem

/// `clean` of a flutter_cache_manager cache as the library's cleanup removes (docs/cache-formats-android.md,
/// "flutter_cache_manager"): rows untouched for 30 days, and beyond 200 objects the least recently
/// touched of the rows untouched for a day, in the library's batches of 100, repeated until a
/// batch finds nothing (the library runs one batch at most every 10 seconds while the app reads;
/// the repeated batches are where it ends up). The rows go first, in one transaction, then their
/// files: a crash in between leaves files no row names, which the library never reads. (The
/// library itself deletes the files by their relative path from the app's working folder, so on
/// a device they stay; imgwarm removes them.) `--all` empties it as `emptyCache` does.
extension FlutterIndex {
    public func clean(
        policy: DiskCache.CleanPolicy, dryRun: Bool, lockTimeout: Double, observe: (DiskCache.CleanEvent) -> Void
    ) throws(CacheIndexError) -> DiskCache.CleanResult {
        let cache = DiskCache(location: CacheLocation(folder: folder))
        let before: DiskTotals?
        do { before = try cache.totals() } catch { throw .folder(error) }
        var result = DiskCache.CleanResult(before: before ?? DiskTotals(), folderExists: before != nil)
        result.passes = 1
        guard before != nil, FileSystem.exists(databasePath) else { return result }
        guard let db = try open(create: false, readOnly: false, busyTimeout: lockTimeout) else { return result }
        let removed: [(row: FlutterDatabase.Row, stale: Bool)]
        do {
            removed = try db.cleanup(
                now: FlutterIndex.milliseconds(.now()), all: policy.removeAll, apply: !dryRun)
        } catch {
            throw FlutterIndex.indexError(error, path: databasePath, timeout: lockTimeout)
        }
        let directory: FileDescriptor
        do { directory = try FileDescriptor.openFolder(folder) } catch { throw .system(path: folder, error) }
        defer { directory.close() }
        for (row, stale) in removed {
            let reason: DiskCache.RemovalReason = policy.removeAll ? .cleared : stale ? .expired : .trimmed
            // A row that names no plain file of the folder (`../x`): the row went, nothing is opened.
            guard FileDescriptor.isPlainName(row.relativePath) else {
                result.skip(row.relativePath)
                continue
            }
            guard let info = try? directory.status(of: row.relativePath) else { continue }
            _ = result.remove(row.relativePath, info, in: directory, reason: reason, dryRun: dryRun, observe: observe)
        }
        if !dryRun { try? load() }
        return result
    }
}
