import Curl
import ImgwarmSystem

/// Receives what a prefetch does, on the thread that runs it: the CLI prints from here.
public protocol PrefetchObserver: AnyObject {
    /// One list line reached its final state.
    func prefetchDidFinish(_ result: EntryResult, source: ListSource)
    /// Called about ten times a second while the run goes on, and once at the end.
    func prefetchProgress(_ progress: PrefetchProgress)
    /// Something the user should know that is not a per-URL failure.
    func prefetchWarning(_ message: String)
    /// A run-level problem stopped new downloads: the run ends once those under way finish, and
    /// fails (`PrefetchSummary` says why again). Called once per problem.
    func prefetchHalted(_ reason: PrefetchHalt)
    /// A host's limit moved by half or more since it was last told (`--concurrency auto`).
    /// Nothing by default.
    func prefetchHostLimitChanged(_ change: HostLimitChange)
    /// A host is unavailable for the rest of the run (`HostBreaker`): its URLs end as
    /// `host-unavailable` without requests. Called once per host; nothing by default.
    func prefetchHostUnavailable(_ host: String, reason: String)
}

extension PrefetchObserver {
    public func prefetchHostLimitChanged(_ change: HostLimitChange) {}
    public func prefetchHostUnavailable(_ host: String, reason: String) {}
}

/// Why a prefetch stopped starting downloads before its lists were done.
public enum PrefetchHalt: Sendable, CustomStringConvertible {
    /// A write found the disk full (or the quota used up).
    case diskFull
    /// The cache lock could not be had in time.
    case lockTimeout(CacheLock.Timeout)
    /// The state database stopped being usable.
    case stateFailure(StateError)
    /// The cache's index (a journal) could not be written: the entries stored are not listed.
    case indexFailure(CacheIndexError)
    /// The proxy could not be reached, or a request did not go through it (the proxy's name,
    /// never its password, and what happened): every request would fare the same way.
    case proxy(String)

    public var description: String {
        switch self {
        case .proxy(let message): return message
        case .diskFull: return "the disk is full"
        case .indexFailure(let error): return error.description
        case .lockTimeout(let timeout): return timeout.description
        case .stateFailure(let error): return error.description
        }
    }
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
    /// Set when the run stopped early because the disk was full.
    public var diskFull = false
    /// Set when a signal stopped the run.
    public var interrupted = false
    /// The signal that interrupted the run, when one did.
    public var signal: Int32 = 0
    /// Set when the signal came while the lists were being read: where reading stopped (the
    /// lines after it were not read, and are in no count).
    public var listCut: ListCut?
    /// Cache hits whose bytes the app would not decode (cut short, empty of an image, another
    /// kind of file): counted as misses and requested again (`CacheStore.damage`).
    public var damagedHits = 0
    /// Set when the state database stopped being usable during the run.
    public var stateFailure: StateError?
    /// Set when the cache lock could not be had in time.
    public var lockFailure: CacheLock.Timeout?
    /// Set when the cache's index (a journal) could not be written at the end of the run.
    public var indexFailure: CacheIndexError?
    /// Set when the proxy could not be reached, or a request did not go through it: no new
    /// download started after (the URLs left
    /// end as not started, the ones under way as `proxy-failed`).
    public var proxyFailure: String?
    /// Set when no download could start after the lists were read: the cache folder, the state
    /// database (another process's lock held past `--lock-timeout`) or libcurl could not be set
    /// up. Every URL is then counted as not started.
    public var startFailure: PrefetchError?
    /// What the run saw of each host it requested from (`SlotPolicy.figures`), by host.
    public var hosts: [HostFigures] = []

    /// The run-level problem that ended the run, in words (the report's `error`); nil when none did.
    public var failureMessage: String? {
        if let startFailure { return startFailure.description }
        if let stateFailure { return stateFailure.description }
        if let lockFailure { return lockFailure.description }
        if let indexFailure { return indexFailure.description }
        if diskFull { return "the disk is full: no new downloads started" }
        if let proxyFailure { return "\(proxyFailure): no new downloads started" }
        return nil
    }
}

/// A run-level failure: nothing useful can go on (a list cannot be read, or the cache cannot be used).
public enum PrefetchError: Error, CustomStringConvertible {
    /// A list cannot be read (`code` is the errno value).
    case unreadableInput(path: String, code: Int32)
    /// The cache folder or its private folder cannot be used.
    case cacheFolder(CacheStoreError)
    /// A scratch file for the pending lines cannot be created or written in this folder.
    case spoolFolder(String, code: Int32)
    /// The state database cannot be used.
    case state(StateError)
    /// libcurl cannot be set up.
    case curl(CurlError)

    public var description: String {
        switch self {
        case .unreadableInput(let path, let code): return ListIngest.ReadError(path: path, code: code).description
        case .cacheFolder(let error): return error.description
        case .spoolFolder(let folder, let code): return EntrySpool.SpoolError(folder: folder, code: code).description
        case .state(let error): return error.description
        case .curl(let error): return "cannot start libcurl: \(error.message)"
        }
    }
}

/// `imgwarm prefetch`: reads lists, downloads through the priority downloader, validates and
/// stores every image where SDWebImage's disk cache would (docs/usage.md, "imgwarm prefetch").
public final class PrefetchJob {
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
        public var sizeLimit: UInt64?
        /// Handle only the lines of this shard (docs/usage.md, "Running on many machines"); the others are counted as
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
    /// Where a signal stopped the reading of the lists, if one did.
    var listCut: ListCut?
    /// The index of the run's cache (a journal, a database), once downloads start.
    var storeIndex: (any CacheIndex)?
    /// Downloads stored but not yet listed by the index: recorded once it lists them.
    var awaitingListing: [EntryResult] = []
    /// Hits whose bytes the app would not decode (`CacheStore.damage`), and the first of them.
    var damagedHits = 0
    var firstDamagedHit: (name: String, reason: String)?
    var lastProgress = 0.0
    var runStarted = 0.0
    let startedAt = Timestamp.now()
    /// The state database (nil in a dry run without one).
    var state: StateStore?
    /// Owns `state` while downloads run: writes go through it, and reads too.
    var stateWriter: StateWriter?
    /// The run-level problems met so far, and the interruption.
    var halts = Halts()
    /// `configuration.fetch.clientFingerprint`, computed once.
    lazy var clientFingerprint = configuration.fetch.clientFingerprint
    /// When the blacklist was last found empty (monotonic seconds; `blacklistMayHoldEntriesNow`).
    var blacklistCheckedAt = 0.0
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
        let scheduler = Scheduler(
            spools: spools, policy: configuration.dryRun ? nil : SlotPolicy(configuration.slots))
        var startFailure: PrefetchError?
        if configuration.dryRun, let file = FileSystem.nonFolder(onPath: location.folder) {
            // The run would stop here: the dry run says so in the same words, and classifies nothing.
            scheduler.drain(recordNotStarted)
            startFailure = .cacheFolder(.notADirectory(file))
        } else if configuration.dryRun {
            do {
                state = try StateStore.openExisting(path: statePath)
            } catch {
                observer?.prefetchWarning("\(error.description); this dry run does not consult the blacklist")
            }
            classifyWithoutNetwork(scheduler)
        } else if configuration.stop.signal != 0 {
            // A signal came before the first download (while the lists were read, or before):
            // nothing is opened or created, and every line read is reported as not started.
            scheduler.drain(recordNotStarted)
            halts.interrupt(signal: configuration.stop.signal)
        } else {
            do {
                try download(scheduler)
            } catch {
                // The lists were read and are reported (invalid lines, duplicates); nothing else
                // started, and the report says so rather than going missing.
                scheduler.drain(recordNotStarted)
                startFailure = error
            }
            finishState(interrupted: halts.interrupted)
        }
        if listCut != nil {
            // The signal came while the lists were read: whatever followed, the run is interrupted.
            halts.interrupt(signal: configuration.stop.signal)
        }
        if let first = firstDamagedHit {
            let files = damagedHits == 1 ? "1 cached file was" : "\(damagedHits) cached files were"
            let them = damagedHits == 1 ? "it" : "them"
            let next = configuration.dryRun ? "a run would download \(them) again" : "requested again"
            observer?.prefetchWarning(
                "\(files) damaged, a miss for the app (\(damagedHits == 1 ? "" : "the first, ")\(first.name): \(first.reason)): \(next)"
            )
        }
        var summary = PrefetchSummary(totals: totals, duration: Monotonic.now() - runStarted)
        summary.startFailure = startFailure
        summary.listCut = listCut
        summary.damagedHits = damagedHits
        halts.summarize(into: &summary)
        summary.hosts = scheduler.policy?.figures ?? []
        emitProgress(inFlight: 0, final: true)
        return summary
    }

    var statePath: String { StateStore.path(configuration.statePath, for: location) }

    /// The settings `EntryStart` reads.
    var startRules: EntryStart.Rules {
        EntryStart.Rules(refresh: configuration.refresh, retryFailed: configuration.retryFailed)
    }

    // MARK: - Reading the lists

    private func ingest() throws(PrefetchError) -> [EntrySpool] {
        var spools: [EntrySpool] = []
        do {
            for priority in Priority.allCases.sorted() {
                spools.append(try EntrySpool(priority: priority, folder: configuration.spoolFolder))
            }
        } catch {
            throw .spoolFolder(error.folder, code: error.code)
        }
        let stop = configuration.stop
        let lines = LineIngest(
            sources: sources, keyFilters: configuration.keyFilters, shard: configuration.shard,
            duplicateMemoryLimit: configuration.duplicateMemoryLimit, scratchFolder: configuration.spoolFolder,
            fileName: { [format = location.format] in format.fileName(forKey: $0) },
            shouldStop: { stop.signal != 0 }, stop: stop.descriptor)
        do {
            try lines.read(into: spools, order: configuration.order) { event in
                switch event {
                case .invalid(let result), .duplicate(let result): record(result)
                case .otherShard: totals.addOtherShard()
                }
            }
        } catch {
            switch error {
            case .unreadable(let error): throw .unreadableInput(path: error.path, code: error.code)
            case .scratch(let error): throw .spoolFolder(error.folder, code: error.code)
            }
        }
        total = lines.urlLines + totals.invalid
        listCut = lines.cut
        return spools
    }

    // MARK: - Dry run

    private func classifyWithoutNetwork(_ scheduler: Scheduler) {
        let folder = try? FileDescriptor.openFolder(location.folder)
        defer { folder?.close() }
        let index = readIndexWithoutWriting()
        while let entry = scheduler.next(now: .infinity) {
            let signal = configuration.stop.signal
            if signal != 0 {
                // A dry run stops on a signal too: what it did not classify is not started.
                halts.interrupt(signal: signal)
                recordNotStarted(entry)
                scheduler.drain(recordNotStarted)
                break
            }
            let name = index?.entryName(forKey: entry.key) ?? location.format.fileName(forKey: entry.key)
            var lookup = CacheStore.Lookup.miss
            if let folder, let info = try? folder.status(of: name) {
                switch location.format.read(info, now: .now()) {
                case .hit(let bytes) where index?.check(name) == nil:
                    if let damage = CacheStore.damage(of: name, size: bytes, in: folder) {
                        noteDamagedHit(name, damage)
                    } else {
                        lookup = .hit(size: bytes)
                    }
                case .miss(.folder): lookup = .blocked
                case .hit, .miss: break
                }
            }
            // The dry run has no slot policy: no host is unavailable.
            let decision = EntryStart.decide(
                lookup, name: name, firstAttempt: true, rules: startRules, record: { stateRecord(entry.key) },
                blacklisted: { activeBlacklistEntry(url: entry.url) }, hostUnavailable: { nil })
            var result = decision.result(of: entry, fileName: name) ?? EntryResult(entry, outcome: .wouldFetch)
            if case .cached(let size) = decision {
                result.outcome = .cached
                result.bytes = size
            } else if case .revalidate = decision, case .hit(let size) = lookup {
                // Reported as a hit, as before `EntryStart`: the run would ask the server about it.
                result.outcome = .cached
                result.bytes = size
            }
            result.fileName = name
            record(result)
        }
    }

}

extension PrefetchJob {
    /// Counts a hit whose bytes the app would not decode; the first is named in the run's warning.
    func noteDamagedHit(_ name: String, _ reason: String) {
        damagedHits += 1
        if firstDamagedHit == nil {
            // The validator's words are about a downloaded body; here it is a file.
            firstDamagedHit = (name, reason.replacingBody())
        }
    }
}

extension String {
    fileprivate func replacingBody() -> String {
        hasPrefix("the body ") ? "the file " + dropFirst(9) : self
    }
}

/// Carries a reference into a `@Sendable` closure where the code guarantees the safe use (here:
/// `CurlMulti.wakeup`, the one call libcurl allows from any thread).
struct UnsafeSendableBox<T: AnyObject>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
