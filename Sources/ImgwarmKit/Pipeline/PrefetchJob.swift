import ImgwarmSystem

/// Receives what a prefetch does, on the thread that runs it: the CLI prints from here.
public protocol PrefetchObserver: AnyObject {
    /// One list line reached its final state.
    func prefetchDidFinish(_ result: EntryResult, source: ListSource)
    /// Called about ten times a second while the run goes on, and once at the end.
    func prefetchProgress(_ progress: PrefetchProgress)
    /// Something the user should know that is not a per-URL failure.
    func prefetchWarning(_ message: String)
}

/// A snapshot of a running prefetch, for progress lines.
public struct PrefetchProgress: Sendable {
    /// URL lines found in the lists (known once they are read).
    public var total: Int
    public var totals: PrefetchTotals
    /// Seconds since downloads started.
    public var elapsed: Double
    public var inFlight: Int
    public var isFinal: Bool
}

/// What a finished run reports to its caller.
public struct PrefetchSummary: Sendable {
    public var totals: PrefetchTotals
    public var duration: Double
    /// Set when the run stopped early because the disk was full (exit code 3).
    public var diskFull = false
    /// Set when a signal stopped the run (exit code 128 + the signal: 130 for SIGINT, 143 for SIGTERM).
    public var interrupted = false
    /// The signal that interrupted the run, when one did.
    public var signal: Int32 = 0
    /// Set when the state database stopped being usable during the run (exit code 3).
    public var stateFailure: StateError?
    /// Set when the cache lock could not be had in time (exit code 3).
    public var lockFailure: CacheLock.Timeout?
    /// Set when no download could start after the lists were read: the cache folder, the state
    /// database (another process's lock held past `--lock-timeout`) or libcurl could not be set
    /// up (exit code 3). Every URL is then counted as not started.
    public var startFailure: PrefetchError?

    /// The run-level problem that ends the run with exit code 3, in words; nil when none did.
    public var failureMessage: String? {
        if let startFailure { return startFailure.description }
        if let stateFailure { return stateFailure.description }
        if let lockFailure { return lockFailure.description }
        if diskFull { return "the disk is full: no new downloads started" }
        return nil
    }
}

/// A run-level failure: nothing useful can go on (exit code 2 for input, 3 for the cache).
public enum PrefetchError: Error, CustomStringConvertible {
    case unreadableInput(String)
    case cache(String)

    public var description: String {
        switch self {
        case .unreadableInput(let message), .cache(let message): return message
        }
    }
}

/// `imgwarm prefetch`: reads lists, downloads through the priority downloader, validates and
/// stores every image where SDWebImage's disk cache would (README, "imgwarm prefetch").
public final class PrefetchJob {
    public struct Configuration: Sendable {
        public var fetch = FetchConfiguration()
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
        /// Handle only the lines of this shard (README, "Running on many machines"); the others are counted as
        /// `otherShard`. nil (every line) by default.
        public var shard: Shard?

        public init() {}
    }

    public let location: CacheLocation
    public let sources: [ListSource]
    public let configuration: Configuration
    public weak var observer: PrefetchObserver?
    /// Receives every entry for the JSON report, when one was asked for.
    public var report: PrefetchReport?

    var totals = PrefetchTotals()
    var total = 0
    var lastProgress = 0.0
    var runStarted = 0.0
    let startedAt = Timestamp.now()
    /// The state database (nil in a dry run without one).
    var state: StateStore?
    /// Owns `state` while downloads run: writes go through it, and reads too.
    var stateWriter: StateWriter?
    var stateFailure: StateError?
    var lockFailure: CacheLock.Timeout?
    /// False while the blacklist is known to be empty: a download then needs no DELETE.
    var blacklistMayHoldEntries = true

    public init(location: CacheLocation, sources: [ListSource], configuration: Configuration) {
        self.location = location
        self.sources = sources
        self.configuration = configuration
    }

    /// Runs the whole prefetch on the calling thread (which it blocks until the end).
    public func run() throws(PrefetchError) -> PrefetchSummary {
        runStarted = Monotonic.now()
        let spools = try ingest()
        let fetch = configuration.fetch
        let hosts =
            fetch.concurrency == .auto && !configuration.dryRun
            ? HostSlots(perHost: fetch.maxPerHost, streams: FetchConfiguration.autoStreamsPerHost) : nil
        let scheduler = Scheduler(spools: spools, hosts: hosts)
        var summary: PrefetchSummary
        if configuration.dryRun {
            do {
                state = try StateStore.openExisting(path: statePath)
            } catch {
                observer?.prefetchWarning("\(error.description); this dry run does not consult the blacklist")
            }
            summary = classifyWithoutNetwork(scheduler)
        } else {
            do {
                summary = try download(scheduler)
            } catch {
                // The lists were read and are reported (invalid lines, duplicates); nothing else
                // started, and the report says so rather than going missing.
                totals.addNotStarted(scheduler.pendingCount)
                summary = PrefetchSummary(totals: totals, duration: 0)
                summary.startFailure = error
            }
            finishState(interrupted: summary.interrupted)
        }
        summary.totals = totals
        summary.duration = Monotonic.now() - runStarted
        summary.stateFailure = stateFailure
        summary.lockFailure = lockFailure
        emitProgress(inFlight: 0, final: true)
        return summary
    }

    var statePath: String { StateStore.path(configuration.statePath, for: location) }

    // MARK: - Reading the lists

    private func ingest() throws(PrefetchError) -> [EntrySpool] {
        let descriptors: [FileDescriptor]
        do {
            descriptors = try ListIngest.open(sources)
        } catch {
            throw .unreadableInput(error.description)
        }
        var spools: [EntrySpool] = []
        do {
            for priority in Priority.allCases.sorted() {
                spools.append(try EntrySpool(priority: priority, folder: configuration.spoolFolder))
            }
        } catch {
            throw .cache(error.description)
        }
        let duplicates = DuplicateFilter(
            memoryLimit: configuration.duplicateMemoryLimit, folder: configuration.spoolFolder)
        // A line's place in the run (`ordinal`): the lines of the lists before its own, plus its number.
        var ordinalBases: [UInt64] = []
        var linesBefore: UInt64 = 0
        for (index, source) in sources.enumerated() {
            ordinalBases.append(linesBefore)
            var lastLine = 0
            defer { linesBefore += UInt64(lastLine) }
            do {
                try ListIngest.read(source, index: index, descriptor: descriptors[index]) { line, parsed in
                    lastLine = line
                    if line & 0xFFF == 0 && configuration.stop.signal != 0 { throw ListIngest.Stopped() }
                    switch parsed {
                    case .ignored:
                        return
                    case .invalid(let reason, let text):
                        // Every shard reports invalid lines: they belong to none.
                        var result = EntryResult(line: line, input: index, url: text, outcome: .invalid)
                        result.failure = Failure(.invalidURL, reason)
                        record(result)
                    case .url(let url, let explicitKey, let linePriority):
                        let key = explicitKey ?? configuration.keyFilters.key(for: url)
                        if key.isEmpty {
                            var result = EntryResult(line: line, input: index, url: url, outcome: .invalid)
                            result.failure = Failure(
                                .invalidURL,
                                "the key filters (\(configuration.keyFilters)) made the key of this URL empty")
                            record(result)
                            return
                        }
                        let digest = MD5.digest(Array(key.utf8))
                        // Duplicates of a key belong to the same shard as its first line: that
                        // shard counts them, the others count them as other-shard lines.
                        if let shard = configuration.shard, !shard.owns(digest) {
                            totals.addOtherShard()
                            total += 1
                            return
                        }
                        total += 1
                        let priority = linePriority ?? source.priority
                        let ordinal = ordinalBases[index] + UInt64(line)
                        if try duplicates.check(digest, ordinal: ordinal) == .duplicate {
                            recordDuplicate(line: line, input: index, url: url, key: key, priority: priority)
                            return
                        }
                        try spools[priority.rank].append(line: line, input: index, url: url, key: key)
                    }
                }
            } catch is ListIngest.Stopped {
                break
            } catch let error as ListIngest.ReadError {
                throw .unreadableInput(error.description)
            } catch {
                throw .cache("\(error)")
            }
        }
        total += totals.invalid
        do {
            for spool in spools { try spool.finishWriting(order: configuration.order) }
            // Lines past what memory holds are judged now (DuplicateFilter), before any starts.
            let marks = try duplicates.finish()
            if marks.count > 0 {
                let isDuplicate = { (entry: PendingEntry) in
                    marks.contains(ordinalBases[entry.input] + UInt64(entry.line))
                }
                for spool in spools {
                    spool.remove(where: isDuplicate) { entry in
                        recordDuplicate(
                            line: entry.line, input: entry.input, url: entry.url, key: entry.key,
                            priority: entry.priority)
                    }
                }
            }
        } catch {
            throw .cache(error.description)
        }
        return spools
    }

    private func recordDuplicate(line: Int, input: Int, url: String, key: String, priority: Priority) {
        var result = EntryResult(line: line, input: input, url: url, key: key, outcome: .duplicate)
        result.fileName = SDFileName.forKey(key)
        result.priority = priority
        record(result)
    }

    // MARK: - Dry run

    private func classifyWithoutNetwork(_ scheduler: Scheduler) -> PrefetchSummary {
        let folder = try? FileDescriptor.openFolder(location.folder)
        defer { folder?.close() }
        while let entry = scheduler.next(now: .infinity) {
            let name = SDFileName.forKey(entry.key)
            let info = try? folder?.status(of: name)
            let size = info.flatMap { $0.kind == .file && $0.size > 0 ? Int($0.size) : nil }
            let hit = size != nil
            var result = EntryResult(entry, outcome: hit ? .cached : .wouldFetch)
            result.fileName = name
            result.bytes = size
            if !hit, let listed = activeBlacklistEntry(url: entry.url) {
                result.outcome = .blacklisted
                result.failure = blacklistFailure(listed)
            }
            record(result)
        }
        return PrefetchSummary(totals: totals, duration: 0)
    }

}

/// Carries a reference into a `@Sendable` closure where the code guarantees the safe use (here:
/// `CurlMulti.wakeup`, the one call libcurl allows from any thread).
struct UnsafeSendableBox<T: AnyObject>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
