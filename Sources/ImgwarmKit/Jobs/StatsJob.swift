/// `imgwarm stats`: what SDWebImage's totalDiskSize and totalDiskCount would say of one cache
/// folder, and what the state database says of it. Reads only: it creates, moves and locks
/// nothing, and reading the files does not move their access times.
public struct StatsJob: Sendable {
    public struct Configuration: Sendable {
        /// The date the oldest and newest dates are of. `.access` by default.
        public var expireType: ExpireType = .access
        /// The state database; nil for the default.
        public var statePath: String?
        /// Seconds to wait for another process's lock on the state database. `30` by default.
        public var lockTimeout = CacheLock.defaultTimeout
        /// Folders `stats` will not walk (compared after resolving symbolic links), with what each
        /// is: a walk of `/` reads the whole file system. Only `/` by default; the CLI adds the
        /// home folder.
        public var refusedFolders = ["/": "the root folder"]

        public init() {}
    }

    /// The folder's statistics and the state database's summary.
    public struct Result: Sendable {
        public var statistics: DiskCache.Statistics
        public var state: StateStore.Summary
    }

    public let location: CacheLocation
    public let configuration: Configuration

    public init(location: CacheLocation, configuration: Configuration) {
        self.location = location
        self.configuration = configuration
    }

    /// Walks the folder, then reads the state database when there is one. Throws only when the
    /// folder is one it refuses (`refusedFolders`) or cannot be read; a state database that cannot be read is `Result.state.problem`.
    public func run() throws(DiskCacheError) -> Result {
        let target = CleanJob.resolved(location.folder)
        for (folder, what) in configuration.refusedFolders where CleanJob.resolved(folder) == target {
            throw .protectedFolder(location.folder, what: what)
        }
        let statistics = try DiskCache(location: location).statistics(expireType: configuration.expireType)
        let state = StateStore.summary(
            path: StateStore.path(configuration.statePath, for: location), lockTimeout: configuration.lockTimeout,
            isInFolder: statistics.containsFile(named:))
        return Result(statistics: statistics, state: state)
    }
}
