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

    /// Surveys the folder and removes (or, in a dry run, lists) what the policy says, telling
    /// `observe` of each removal and failure as it happens (nothing is listed in the result).
    ///
    /// Throws only for run-level problems (the folder unreadable, no birth times, the guard); a
    /// file that cannot be deleted is a `.failed` event and counted in `failed`.
    public func run(now: Timestamp = .now(), observe: (DiskCache.CleanEvent) -> Void = { _ in })
        throws(DiskCacheError) -> DiskCache.CleanResult
    {
        let cache = DiskCache(location: location)
        let policy = configuration.policy
        try refuseProtectedFolder()
        let survey = try cache.survey(policy: policy, now: now)
        guard survey.exists else {
            return try cache.clean(survey, in: nil, policy: policy, now: now) { _ throws(DiskCache.RemovalError) in
                throw .system(.notFound)
            }
        }
        try refuseForeignFolder(survey)
        if let index = location.makeIndex() {
            return try cleanIndexed(index, observe: observe)
        }
        let directory = try cache.openFolder()
        defer { directory.close() }
        if configuration.dryRun {
            return try cache.clean(survey, in: directory, policy: policy, now: now, remove: { _ in }, observe: observe)
        }
        // The deletion pass holds the cache lock exclusively (prefetches hold it shared around
        // each rename and access-time update), so what it checks is what it deletes. Without a
        // private folder no imgwarm can be writing here, and none is needed.
        let lock = try? CacheLock(location: location, create: true)
        do {
            try lock?.lockExclusive(timeout: configuration.lockTimeout)
        } catch {
            throw .locked(error)
        }
        defer { lock?.unlock() }
        var result = try cache.clean(
            survey, in: directory, policy: policy, now: now,
            remove: { entry throws(DiskCache.RemovalError) in
                try cache.removeIfUnchanged(entry, in: directory, expireType: cache.dateType(policy))
            }, observe: observe)
        removeStateRows(&result, directory: directory)
        return result
    }

    /// A cache with an index (a journal) is cleaned by it, the library's way, under the exclusive
    /// cache lock (none for a dry run).
    private func cleanIndexed(_ index: any CacheIndex, observe: (DiskCache.CleanEvent) -> Void)
        throws(DiskCacheError) -> DiskCache.CleanResult
    {
        var lock: CacheLock?
        if !configuration.dryRun {
            lock = try? CacheLock(location: location, create: true)
            do {
                try lock?.lockExclusive(timeout: configuration.lockTimeout)
            } catch {
                throw .locked(error)
            }
        }
        defer { lock?.unlock() }
        var result: DiskCache.CleanResult
        do {
            try index.load()
            result = try index.clean(
                policy: configuration.policy, dryRun: configuration.dryRun, lockTimeout: configuration.lockTimeout,
                observe: observe)
        } catch {
            throw .index(error)
        }
        if !configuration.dryRun, let directory = try? FileDescriptor.openFolder(location.folder) {
            defer { directory.close() }
            removeStateRows(&result, directory: directory)
        }
        return result
    }

    /// Refuses `/`, the home folder and the caches roots, compared after resolving symbolic links.
    private func refuseProtectedFolder() throws(DiskCacheError) {
        let target = CleanJob.resolved(location.folder)
        for (folder, what) in configuration.protectedFolders where CleanJob.resolved(folder) == target {
            throw .protectedFolder(location.folder, what: what)
        }
    }

    /// The guard of the cache contract: every non-hidden regular file must have a cache file name
    /// (`location.format.isEntryName`), or nothing is deleted (dry runs included) unless `force`.
    private func refuseForeignFolder(_ survey: DiskCache.Survey) throws(DiskCacheError) {
        guard !configuration.force, survey.foreignCount > 0 else { return }
        throw .foreignFolder(
            location.folder, names: survey.foreignNames, count: survey.foreignCount,
            shape: location.format.entryNameShape)
    }

    /// `path` with symbolic links resolved, or as given when it cannot be resolved.
    static func resolved(_ path: String) -> String {
        FileSystem.resolvedPath(path) ?? CacheLocation.absolute(path)
    }

    /// Deletes the state rows of the removed files, and any row whose file is gone (docs/cache-contract.md §3),
    /// then gives their space back when most of the file is free.
    /// A state database that cannot be used is reported, never a reason to keep or delete files.
    ///
    /// Runs under the exclusive cache lock. A row is removed only when its file is really absent
    /// now (`fstatat` says `ENOENT`); the rows are read in batches, so memory does not grow with
    /// the database.
    private func removeStateRows(_ result: inout DiskCache.CleanResult, directory: FileDescriptor) {
        let path = StateStore.path(configuration.statePath, for: location)
        guard FileSystem.exists(path) else { return }
        do {
            let state = try StateStore(path: path, busyTimeout: configuration.lockTimeout)
            try state.begin()
            result.stateRowsRemoved = try state.removeRecords { name in
                do throws(SystemError) {
                    _ = try directory.status(of: name)
                    return false
                } catch {
                    return error.isNotFound
                }
            }
            try state.commit()
            try state.reclaimSpaceWhenMostlyFree()
        } catch {
            result.stateWarning = "\(error.description); its rows of removed files stay (they are recognised as stale)"
        }
    }
}
