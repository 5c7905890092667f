import ImgwarmSystem

/// Fresco's index is its folder tree (`DiskStorageCache` rebuilds its in-memory index from it):
/// `load` says whether Fresco keeps the folder, `prepare` makes the version folder Fresco looks
/// for, `clean` evicts as `DiskStorageCache.evictAboveSize` does. Stores and hits need no record.
final class FrescoTree: FolderPreparingIndex {
    private let folder: String
    private let format: FrescoFormat
    private var library: String { format.library }
    private var version: String { CacheLocation.join(folder, FrescoFormat.versionFolder) }

    init(location: CacheLocation, format: FrescoFormat) {
        folder = location.folder
        self.format = format
    }

    /// `recreateDirectoryIfVersionChanges`: a cache folder without its version folder is deleted
    /// whole. imgwarm refuses one that holds anything (it is not Fresco's, or Fresco would wipe
    /// it); an empty one, or none, is a new cache.
    func load() throws(CacheIndexError) {
        guard FileSystem.exists(folder), !FileSystem.exists(version) else { return }
        var empty = true
        do {
            let descriptor = try FileDescriptor.openFolder(folder)
            defer { descriptor.close() }
            try descriptor.forEachRawName { _ in empty = false }
        } catch {
            throw .system(path: folder, (error as? SystemError) ?? SystemError(code: 0))
        }
        if !empty {
            // Fresco keeps no journal: what it reads is the folder, by its version folder.
            throw .unreadable(
                path: folder, library: library, reason: "there is no \(FrescoFormat.versionFolder) folder in it",
                index: "the folder", repair: "put its \(FrescoFormat.versionFolder) folder back")
        }
    }

    func prepare() throws(CacheIndexError) {
        guard !FileSystem.exists(version) else { return }
        do { try FileSystem.makeFolder(version) } catch { throw .system(path: version, error) }
    }

    func check(_ name: String) -> EntryMiss? { nil }
    func didStore(_ name: String) {}
    func didRead(_ name: String) {}
    func flush(force: Bool, lockTimeout: Double) throws(CacheIndexError) {}
    var accountedBytes: UInt64 { 0 }

    func isEntryFile(_ name: String) -> Bool {
        name.hasPrefix(FrescoFormat.versionFolder + "/") && name.hasSuffix(".cnt")
    }

    var listedNames: [String] { (try? entries())?.map(\.name) ?? [] }

    /// Every content file (`<id>.cnt`) in the shard folder its id names, with its status, as
    /// `getEntries` lists them (`getShardFileInfo`: a file in another folder is not an entry, and
    /// `purgeUnexpectedResources` deletes it).
    func entries() throws(CacheIndexError) -> [(name: String, info: FileStatus)] {
        var found: [(name: String, info: FileStatus)] = []
        let root: FileDescriptor
        do { root = try FileDescriptor.openFolder(version) } catch {
            if error.isNotFound { return [] }
            throw .system(path: version, error)
        }
        defer { root.close() }
        do {
            try root.forEachEntry { shard in
                guard let shardName = shard.name, shardName != ".", shardName != "..",
                    let shardFolder = try? root.openFolder(shardName)
                else { return }
                defer { shardFolder.close() }
                try shardFolder.forEachEntry { file in
                    guard let fileName = file.name, fileName.hasSuffix(".cnt"),
                        format.shard(ofResourceID: String(fileName.dropLast(4))) == shardName,
                        let info = try? shardFolder.status(of: fileName), info.kind == .file
                    else { return }
                    found.append(("\(FrescoFormat.versionFolder)/\(shardName)/\(fileName)", info))
                }
            }
        } catch {
            throw .system(path: version, (error as? SystemError) ?? SystemError(code: 0))
        }
        return found
    }

    /// `evictAboveSize(limit × 9 / 10)` once the total is above the limit: files dated more than two
    /// hours ahead first, then the oldest modification times, removed until what went is more than
    /// the excess; with `removeAll`, every entry.
    func clean(
        policy: DiskCache.CleanPolicy, dryRun: Bool, lockTimeout: Double, observe: (DiskCache.CleanEvent) -> Void
    ) throws(CacheIndexError) -> DiskCache.CleanResult {
        let before: DiskTotals?
        let cache = DiskCache(location: CacheLocation(folder: folder, format: format))
        do { before = try cache.totals() } catch { throw .folder(error) }
        var result = DiskCache.CleanResult(before: before ?? DiskTotals(), folderExists: before != nil)
        result.passes = 1
        guard before != nil else { return result }
        let all = try entries()
        let total = all.reduce(UInt64(0)) { $0 + $1.info.size }
        var remaining = total
        var chosen: [(name: String, info: FileStatus)] = []
        if policy.removeAll {
            chosen = all
        } else if policy.maxSize > 0 && total > policy.maxSize {
            let desired = policy.maxSize / 10 * 9 + policy.maxSize % 10 * 9 / 10
            let excess = total - desired
            let threshold = Timestamp.now().seconds + 2 * 3600
            let future = all.filter { $0.info.modified.seconds > threshold }
            let ordered = all.filter { $0.info.modified.seconds <= threshold }.sorted {
                $0.info.modified < $1.info.modified
            }
            var removed: UInt64 = 0
            for candidate in future + ordered {
                if removed > excess { break }
                chosen.append(candidate)
                removed += candidate.info.size
            }
        }
        let reason: DiskCache.RemovalReason = policy.removeAll ? .cleared : .trimmed
        for (name, info) in chosen {
            if result.remove(
                name, info, path: CacheLocation.join(folder, name), reason: reason, dryRun: dryRun, observe: observe)
            {
                remaining -= min(info.size, remaining)
            }
        }
        result.remainingCounted = policy.removeAll ? nil : remaining
        return result
    }
}
