#if canImport(Glibc)
import Glibc
#endif

/// `imgwarm clean`: SDWebImage's expiry and trim pass over one disk cache folder.
public struct CleanJob: Sendable {
    public struct Configuration: Sendable {
        public var policy = DiskCache.CleanPolicy()
        /// Report what would go and delete nothing. `false` by default.
        public var dryRun = false

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
        let scan = try cache.scan(expireType: configuration.policy.expireType)
        guard scan.exists else {
            return DiskCache.clean(scan, policy: configuration.policy, now: now) { _ in ENOENT }
        }
        if configuration.dryRun {
            return DiskCache.clean(scan, policy: configuration.policy, now: now) { _ in 0 }
        }
        let directory = try cache.openFolder()
        defer { close(directory) }
        return DiskCache.clean(scan, policy: configuration.policy, now: now) { entry in
            cache.removeIfUnchanged(entry, in: directory)
        }
    }
}
