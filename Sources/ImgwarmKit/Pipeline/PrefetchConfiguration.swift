import ImgwarmSystem

extension PrefetchJob {
    /// What a prefetch does and how: the settings of `imgwarm prefetch` (docs/usage.md).
    public struct Configuration: Sendable {
        public var fetch = FetchConfiguration()
        /// How many transfers run, per host and in all, and how fast requests start.
        public var slots = SlotPolicy.Configuration()
        public var validation = ValidationConfiguration()
        /// FIFO or LIFO within one priority. `.fifo` by default.
        public var order: ExecutionOrder = .fifo
        /// Read and classify (would fetch, cached, invalid, duplicate) without network or writes.
        /// `false` by default.
        public var dryRun = false
        /// Threads validating and storing bodies. The number of cores (at most 4) by default.
        public var validationThreads = max(1, min(4, processorCount))
        /// Retries of transient failures.
        public var retry = RetryPolicy()
        /// Request blacklisted URLs anyway (SDWebImage's `RetryFailed`). `false` by default.
        public var retryFailed = false
        /// How long a blacklist entry stays in force. `.after(seconds: 604800)` (7 days) by default.
        public var blacklistTTL: Expiry = .after(seconds: 7 * 86400)
        /// Revalidate cached files with their stored validators (SDWebImage's `RefreshCached`).
        /// `false` by default.
        public var refresh = false
        /// The state database; nil for the default `<private folder>/state.sqlite`.
        public var statePath: String?
        /// Seconds to wait for a lock another process holds. `30` by default.
        public var lockTimeout = CacheLock.defaultTimeout
        /// What asks the run to stop (a signal: `StopSource.installSignalHandlers`); never by default.
        public var stop = StopSource.never
        /// Where the pending-URL spools go (unlinked files). `$TMPDIR` or `/tmp` by default.
        public var spoolFolder = environmentValue("TMPDIR") ?? "/tmp"
        /// Distinct keys the duplicate check keeps in memory; the lines past them are checked
        /// after the lists are read, from scratch files in `spoolFolder` (`DuplicateFilter`).
        /// `131072` by default: 2 MiB of fingerprints.
        public var duplicateMemoryLimit = DuplicateFilter.defaultMemoryLimit
        /// How the key of a line without an explicit `"key"` is computed from its URL (docs/cache-contract.md §6).
        /// No filter (the key is the URL as given) by default.
        public var keyFilters = KeyFilterChain()
        /// The size above which the library trims its cache when the app opens it, for the
        /// warning a run that leaves an indexed cache larger gives; nil for the format's own
        /// limit (`CleanRules.defaultMaxSize`).
        public var maxSize: UInt64?
        /// Handle only the lines of this shard (docs/usage.md, "Running on many machines"); the others are counted as
        /// `otherShard`. nil (every line) by default.
        public var shard: Shard?
        /// Where the lists' JSON Lines `"file"` paths may be (`--files-root`): the list's own
        /// folder by default.
        public var fileRules = LocalFileRules()
        /// `--offline`: no request at all; HAR entries store their recorded bodies, and an entry
        /// without one (or a plain URL line) is `no-body`.
        public var offline = false
        /// Several formats in one run: what the formats' jobs share so that each URL is requested
        /// once (`FormatFanOut`). nil (one format) by default.
        public var fanOut: FormatFanOut?

        public init() {}
    }
}
