import ImgwarmSystem

/// `imgwarm clean`: SDWebImage's expiry and trim pass over one disk cache folder.
public struct CleanJob: Sendable {
    public struct Configuration: Sendable {
        public var policy = DiskCache.CleanPolicy()
        /// Report what would go and delete nothing. `false` by default.
        public var dryRun = false
        /// The state database whose rows of removed files are deleted too; nil for the default.
        public var statePath: String?
        /// Seconds to wait for another process's lock. `30` by default.
        public var lockTimeout = CacheLock.defaultTimeout
        /// Clean a folder even when some of its files do not have cache file names. `false` by
        /// default: such a folder is refused before anything is deleted.
        public var force = false
        /// Folders never cleaned, `force` or not, with what each is (see
        /// `CacheLocation.protectedFolders`). Only `/` by default; the CLI adds the home folder
        /// and the caches roots of its environment.
        public var protectedFolders = ["/": "the root folder"]

        public init() {}
    }

    public let location: CacheLocation
    public let configuration: Configuration

    public init(location: CacheLocation, configuration: Configuration) {
        self.location = location
        self.configuration = configuration
    }

    /// Scans the folder and removes (or, in a dry run, lists) what the policy says.
    ///
    /// Throws only for run-level problems (the folder unreadable, no birth times); a file that
    /// cannot be deleted is listed in `failures`.
    public func run(now: Timestamp = .now()) throws(DiskCacheError) -> DiskCache.CleanResult {
        let cache = DiskCache(location: location)
        try refuseProtectedFolder()
        let scan = try cache.scan(expireType: configuration.policy.expireType)
        guard scan.exists else {
            return DiskCache.clean(scan, policy: configuration.policy, now: now) { _ throws(SystemError) in
                throw .notFound
            }
        }
        try refuseForeignFolder(scan)
        if configuration.dryRun {
            return DiskCache.clean(scan, policy: configuration.policy, now: now) { _ in }
        }
        let directory = try cache.openFolder()
        defer { directory.close() }
        // The deletion pass holds the cache lock exclusively (prefetches hold it shared around
        // each rename and access-time update), so what it checks is what it deletes. Without a
        // private folder no imgwarm can be writing here, and none is needed.
        let lock = try? CacheLock(location: location, create: true)
        do {
            try lock?.lockExclusive(timeout: configuration.lockTimeout)
        } catch {
            throw .locked(error.description)
        }
        defer { lock?.unlock() }
        let expireType = configuration.policy.expireType
        var result = DiskCache.clean(scan, policy: configuration.policy, now: now) { entry throws(SystemError) in
            try cache.removeIfUnchanged(entry, in: directory, expireType: expireType)
        }
        removeStateRows(&result, scan: scan, directory: directory)
        return result
    }

    /// Refuses `/`, the home folder and the caches roots, compared after resolving symbolic links.
    private func refuseProtectedFolder() throws(DiskCacheError) {
        let target = CleanJob.resolved(location.folder)
        for (folder, what) in configuration.protectedFolders where CleanJob.resolved(folder) == target {
            throw .refused(
                "refusing to clean \(location.folder): it is \(what), not a disk cache folder; "
                    + "name the cache folder itself, e.g. --disk-cache-path ~/.cache/com.hackemist.SDImageCache/default"
            )
        }
    }

    /// The guard of the cache contract: every non-hidden regular file must have a cache file name
    /// (`SDFileName.isCacheFileName`), or nothing is deleted (dry runs included) unless `force`.
    private func refuseForeignFolder(_ scan: DiskCache.Scan) throws(DiskCacheError) {
        guard !configuration.force else { return }
        let foreign = scan.entries.filter { $0.kind == .file && !$0.isHidden && !SDFileName.isCacheFileName($0.name) }
        guard !foreign.isEmpty else { return }
        let named = foreign.prefix(3).map { "'\($0.name)'" }.joined(separator: ", ")
        let more = foreign.count > 3 ? " and \(foreign.count - 3) more" : ""
        throw .refused(
            "refusing to clean \(location.folder): it does not look like an image disk cache (\(named)\(more) "
                + "\(foreign.count == 1 ? "is not a cache file name" : "are not cache file names"): 32 hex digits and an extension); "
                + "nothing was deleted. Check the folder, or add --force to clean it anyway")
    }

    /// `path` with symbolic links resolved, or as given when it cannot be resolved.
    static func resolved(_ path: String) -> String {
        FileSystem.resolvedPath(path) ?? CacheLocation.absolute(path)
    }

    /// Deletes the state rows of the removed files, and any row whose file is gone (docs/cache-contract.md §3).
    /// A state database that cannot be used is reported, never a reason to keep or delete files.
    ///
    /// Runs under the exclusive cache lock, so no file appears meanwhile; but a prefetch may
    /// commit the row of a file it stored after the scan, so a row whose file the scan did not see
    /// is removed only when the file is really absent now.
    private func removeStateRows(_ result: inout DiskCache.CleanResult, scan: DiskCache.Scan, directory: FileDescriptor)
    {
        let path = configuration.statePath ?? StateStore.defaultPath(for: location)
        guard FileSystem.exists(path) else { return }
        do {
            let state = try StateStore(path: path, busyTimeout: configuration.lockTimeout)
            let removed = Set(result.removed.map(\.entry.name))
            let remaining = Set(scan.entries.lazy.filter { $0.kind == .file && !removed.contains($0.name) }.map(\.name))
            try state.begin()
            result.stateRowsRemoved = try state.removeRecords { name in
                guard !remaining.contains(name) else { return false }
                do throws(SystemError) {
                    _ = try directory.status(of: name)
                    return false
                } catch {
                    return error.isNotFound
                }
            }
            try state.commit()
        } catch {
            result.stateWarning = "\(error.description); its rows of removed files stay (they are recognised as stale)"
        }
    }
}
