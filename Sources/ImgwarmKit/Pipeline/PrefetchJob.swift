import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
    /// Set when the run was interrupted (exit code 130 or 143).
    public var interrupted = false
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
/// stores every image where SDWebImage's disk cache would (SPEC §4).
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
        public var validationThreads = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
        /// Where the pending-URL spools go (unlinked files). `$TMPDIR` or `/tmp` by default.
        public var spoolFolder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"

        public init() {}
    }

    public let location: CacheLocation
    public let sources: [ListSource]
    public let configuration: Configuration
    public weak var observer: PrefetchObserver?
    /// Receives every entry for the JSON report, when one was asked for.
    public var report: PrefetchReport?

    private var totals = PrefetchTotals()
    private var total = 0
    private var lastProgress = 0.0
    private var runStarted = 0.0

    public init(location: CacheLocation, sources: [ListSource], configuration: Configuration) {
        self.location = location
        self.sources = sources
        self.configuration = configuration
    }

    /// Runs the whole prefetch on the calling thread (which it blocks until the end).
    public func run() throws(PrefetchError) -> PrefetchSummary {
        runStarted = Monotonic.now()
        let spools = try ingest()
        let scheduler = Scheduler(spools: spools)
        var summary: PrefetchSummary
        if configuration.dryRun {
            summary = classifyWithoutNetwork(scheduler)
        } else {
            summary = try download(scheduler)
        }
        summary.totals = totals
        summary.duration = Monotonic.now() - runStarted
        emitProgress(inFlight: 0, final: true)
        return summary
    }

    // MARK: - Reading the lists

    private func ingest() throws(PrefetchError) -> [EntrySpool] {
        let descriptors: [Int32]
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
        var seen = Set<MD5.Digest>()
        for (index, source) in sources.enumerated() {
            do {
                try ListIngest.read(source, index: index, descriptor: descriptors[index]) { line, parsed in
                    switch parsed {
                    case .ignored:
                        return
                    case .invalid(let reason, let text):
                        var result = EntryResult(line: line, input: index, key: text, outcome: .invalid)
                        result.failure = Failure(.invalidURL, reason)
                        record(result)
                    case .url(let key, let linePriority):
                        total += 1
                        let priority = linePriority ?? source.priority
                        let digest = MD5.digest(Array(key.utf8))
                        if !seen.insert(digest).inserted {
                            var result = EntryResult(line: line, input: index, key: key, outcome: .duplicate)
                            result.fileName = SDFileName.forKey(key)
                            result.priority = priority
                            record(result)
                            return
                        }
                        try spools[priority.rank].append(line: line, input: index, key: key)
                    }
                }
            } catch let error as ListIngest.ReadError {
                throw .unreadableInput(error.description)
            } catch {
                throw .cache("\(error)")
            }
        }
        total += totals.invalid
        do {
            for spool in spools { try spool.finishWriting(order: configuration.order) }
        } catch {
            throw .cache(error.description)
        }
        return spools
    }

    // MARK: - Dry run

    private func classifyWithoutNetwork(_ scheduler: Scheduler) -> PrefetchSummary {
        let folder = open(location.folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if folder >= 0 { close(folder) } }
        while let entry = scheduler.next(now: .infinity) {
            let name = SDFileName.forKey(entry.key)
            var info = stat()
            let hit = folder >= 0 && fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0
                && info.st_mode & S_IFMT == S_IFREG && info.st_size > 0
            var result = EntryResult(line: entry.line, input: entry.input, key: entry.key, outcome: hit ? .cached : .wouldFetch)
            result.fileName = name
            result.priority = entry.priority
            if hit { result.bytes = Int(info.st_size) }
            record(result)
        }
        return PrefetchSummary(totals: totals, duration: 0)
    }

    // MARK: - Downloading

    private func download(_ scheduler: Scheduler) throws(PrefetchError) -> PrefetchSummary {
        let store: CacheStore
        do {
            store = try CacheStore(location: location)
        } catch {
            throw .cache(error.description)
        }
        if store.usesHiddenTemporaryFiles {
            observer?.prefetchWarning(
                "\(location.privateFolder) is on another file system than the cache folder: temporary files go to hidden names inside it")
        }
        let downloader: Downloader
        do {
            downloader = try Downloader(configuration: configuration.fetch, spillFolder: store.temporaryFolder, spillPrefix: store.temporaryPrefix)
        } catch {
            throw .cache("cannot start libcurl: \(error.message)")
        }
        let wake = UnsafeSendableBox(downloader)
        let pool = ValidationPool(
            workers: configuration.validationThreads, store: store, configuration: configuration.validation,
            notify: { wake.value.wakeup() })
        defer { pool.shutdown() }

        let concurrency = max(1, configuration.fetch.concurrency)
        var validating = 0
        var diskFull = false
        while true {
            for outcome in pool.results.drain() {
                validating -= 1
                if outcome.diskFull && !diskFull {
                    diskFull = true
                    observer?.prefetchWarning("the disk is full: no new downloads start; the run ends with exit code 3")
                }
                record(validated: outcome)
            }
            let now = Monotonic.now()
            while !diskFull && downloader.inFlight < concurrency && validating < concurrency * 2,
                let entry = scheduler.next(now: now)
            {
                start(entry, downloader: downloader, store: store)
            }
            if downloader.inFlight == 0 && validating == 0 && (scheduler.isEmpty || diskFull) { break }
            downloader.perform()
            for finished in downloader.completions() {
                if handle(finished, pool: pool) { validating += 1 }
            }
            emitProgress(inFlight: downloader.inFlight)
            var timeout = 250
            if let due = scheduler.nextRetryDue { timeout = max(0, min(timeout, Int((due - Monotonic.now()) * 1000) + 1)) }
            if downloader.inFlight > 0 || validating > 0 || timeout > 0 {
                downloader.poll(milliseconds: timeout)
            }
        }
        // Whatever was still waiting when the disk filled up never started.
        while let entry = scheduler.next(now: .infinity) { recordNotStarted(entry) }
        for entry in scheduler.drainDelayed() { recordNotStarted(entry) }
        return PrefetchSummary(totals: totals, duration: 0, diskFull: diskFull)
    }

    /// A cache hit is recorded at once; anything else starts a transfer.
    private func start(_ entry: PendingEntry, downloader: Downloader, store: CacheStore) {
        let name = SDFileName.forKey(entry.key)
        switch store.lookup(name) {
        case .hit(let size):
            store.touch(name)
            var result = EntryResult(line: entry.line, input: entry.input, key: entry.key, outcome: .cached)
            result.fileName = name
            result.priority = entry.priority
            result.bytes = size
            record(result)
            return
        case .blocked:
            var result = EntryResult(line: entry.line, input: entry.input, key: entry.key, outcome: .failed)
            result.fileName = name
            result.failure = Failure(.writeFailed, "a folder named \(name) is in the cache folder where the file should go")
            record(result)
            return
        case .miss:
            break
        }
        var entry = entry
        entry.attempts += 1
        if entry.firstStarted == 0 { entry.firstStarted = Monotonic.now() }
        do {
            try downloader.start(entry)
        } catch {
            var result = EntryResult(line: entry.line, input: entry.input, key: entry.key, outcome: .failed)
            result.fileName = name
            result.attempts = entry.attempts
            result.failure = Failure(.transferFailed, error.message)
            record(result)
        }
    }

    /// Routes a finished transfer; true when its body went to validation.
    private func handle(_ finished: Downloader.Finished, pool: ValidationPool) -> Bool {
        let entry = finished.entry
        switch finished.result {
        case .success(let body):
            pool.submit(ValidationPool.Job(
                entry: entry, fileName: SDFileName.forKey(entry.key), bytes: body.bytes, spillName: body.spillName,
                count: body.count, httpStatus: body.status, etag: finished.etag, lastModified: finished.lastModified,
                duration: finished.duration))
            return true
        case .failure(let failure):
            var result = EntryResult(line: entry.line, input: entry.input, key: entry.key, outcome: .failed)
            result.fileName = SDFileName.forKey(entry.key)
            result.priority = entry.priority
            result.httpStatus = failure.httpStatus ?? finished.httpStatus
            result.attempts = entry.attempts
            result.duration = Monotonic.now() - entry.firstStarted
            result.failure = failure
            record(result)
            return false
        }
    }

    private func record(validated outcome: ValidationPool.Outcome) {
        let job = outcome.job
        var result = EntryResult(line: job.entry.line, input: job.entry.input, key: job.entry.key, outcome: .downloaded)
        result.fileName = job.fileName
        result.priority = job.entry.priority
        result.httpStatus = job.httpStatus
        result.attempts = job.entry.attempts
        result.duration = Monotonic.now() - job.entry.firstStarted
        switch outcome.result {
        case .success(let image):
            result.bytes = job.count
            result.format = image.format
            result.width = image.width
            result.height = image.height
        case .failure(let failure):
            result.outcome = .failed
            var failure = failure
            failure.httpStatus = job.httpStatus
            result.failure = failure
        }
        record(result)
    }

    private func recordNotStarted(_ entry: PendingEntry) {
        var result = EntryResult(line: entry.line, input: entry.input, key: entry.key, outcome: .notStarted)
        result.fileName = SDFileName.forKey(entry.key)
        result.priority = entry.priority
        result.attempts = entry.attempts
        record(result)
    }

    private func record(_ result: EntryResult) {
        totals.add(result)
        report?.add(result)
        observer?.prefetchDidFinish(result, source: sources[result.input])
    }

    private func emitProgress(inFlight: Int, final: Bool = false) {
        let now = Monotonic.now()
        guard final || now - lastProgress >= 0.1 else { return }
        lastProgress = now
        observer?.prefetchProgress(PrefetchProgress(total: total, totals: totals, elapsed: now - runStarted, inFlight: inFlight, isFinal: final))
    }
}

/// Carries a reference into a `@Sendable` closure where the code guarantees the safe use (here:
/// `CurlMulti.wakeup`, the one call libcurl allows from any thread).
struct UnsafeSendableBox<T: AnyObject>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
