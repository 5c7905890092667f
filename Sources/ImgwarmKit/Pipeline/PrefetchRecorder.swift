import ImgwarmSystem

/// Where every list line's end goes, on the thread that runs the prefetch: the totals, the JSON
/// report and the observer; progress about ten times a second; damaged hits, for the run's one
/// warning; and downloads an index does not list yet, recorded once it does
/// (`settleListings`). Knows nothing of the network, the cache lock or the state database.
final class PrefetchRecorder {
    /// The lists; once open, each one's format as its content told (`listsOpened`).
    private(set) var sources: [ListSource]
    /// The cache: the name an entry's file has, and the library that reads it.
    let location: CacheLocation
    weak var observer: PrefetchJob.Observer?
    /// Receives every entry for the JSON report, when one was asked for.
    var report: PrefetchReport?

    private(set) var totals = PrefetchTotals()
    /// URL lines found in the lists (known once they are read).
    var total = 0
    /// When the run started (monotonic seconds), for `PrefetchJob.Progress.elapsed`.
    var runStarted = Monotonic.now()
    private var lastProgress = 0.0
    /// Hits whose bytes the app would not decode (`CacheStore.damage`), and the first of them.
    private(set) var damagedHits = 0
    private var firstDamagedHit: (name: String, reason: String)?
    /// Stored entries the app's client will not serve without the network (an OkHttp response
    /// whose headers make it stale: `FreshnessRewritingFormat.isServedOffline`).
    private(set) var storedStale = 0
    private lazy var freshnessFormat = location.format as? any FreshnessRewritingFormat
    /// Downloads stored but not yet listed by the index: recorded once it lists them.
    private var awaitingListing: [EntryResult] = []
    /// The index's `listingFlushes` when `awaitingListing` was last settled.
    private var settledAtFlush = 0

    init(sources: [ListSource], location: CacheLocation) {
        self.sources = sources
        self.location = location
    }

    /// The lists are open: a list read as a HAR by its content is one from now on (the report's
    /// `inputs`, the places of its lines).
    func listsOpened(_ opened: [ListSource]) {
        sources = opened
        report?.listsOpened(opened)
    }

    func record(_ result: EntryResult) {
        totals.add(result)
        report?.add(result)
        observer?.prefetchDidFinish(result, source: sources[result.input])
    }

    /// A line of another shard: counted, not reported.
    func recordOtherShard() {
        totals.addOtherShard()
    }

    /// HAR entries that are not images: counted only (`PrefetchTotals.notImages`).
    func recordNotImages(_ count: Int) {
        totals.notImages += count
    }

    /// A URL the run stopped before it started (interrupted, or a run-level problem): every line
    /// gets its entry.
    func recordNotStarted(_ entry: PendingEntry) {
        var result = EntryResult(entry, outcome: .notStarted)
        result.fileName = entry.cacheFileName(in: location)
        result.attempts = entry.attempts
        record(result)
    }

    /// A final failure (its blacklisting is the job's).
    func recordFailed(_ entry: PendingEntry, _ failure: Failure) {
        var result = EntryResult(entry, outcome: Outcome(finalFailure: failure))
        result.fileName = entry.cacheFileName(in: location)
        result.httpStatus = failure.httpStatus
        result.attempts = failure.reason == .noBody ? 0 : entry.attempts  // nothing was requested nor read
        result.duration = entry.firstStarted > 0 ? Monotonic.now() - entry.firstStarted : 0
        result.failure = failure
        record(result)
    }

    /// A body validated and stored as `job.fileName`: recorded now, or once `index` lists it
    /// (`settleListings`).
    func recordDownloaded(_ job: ValidationPool.Job, _ image: ValidatedImage, index: (any CacheIndex)?) {
        var result = EntryResult(job.entry, outcome: .downloaded)
        if case .copied(let from) = job.entry.source { (result.outcome, result.copiedFrom) = (.copied, from) }
        result.fileName = job.fileName
        result.httpStatus = job.entry.source.reportedStatus(job.httpStatus)  // a local file had no response
        result.attempts = job.entry.attempts
        result.duration = Monotonic.now() - job.entry.firstStarted
        result.bytes = job.count
        result.format = image.format
        // An SVG that declares no size has none (0): the report says null.
        result.width = image.width > 0 ? image.width : nil
        result.height = image.height > 0 ? image.height : nil
        if let freshnessFormat {
            let response = CacheIndexResponse(
                key: job.entry.key, url: job.entry.url, headers: job.headers, receivedAt: job.receivedAt,
                length: job.count)
            if !freshnessFormat.isServedOffline(response, now: .now()) { storedStale += 1 }
        }
        if let index, index.awaitsListing(job.fileName) {
            awaitingListing.append(result)
        } else {
            record(result)
        }
    }

    /// A transfer abandoned because the run was interrupted: it did not finish.
    func recordInterrupted(_ entry: PendingEntry) {
        var result = EntryResult(entry, outcome: .interrupted)
        result.fileName = entry.cacheFileName(in: location)
        result.attempts = entry.attempts
        result.duration = entry.firstStarted > 0 ? Monotonic.now() - entry.firstStarted : 0
        result.failure = Failure(.interrupted, "the run was interrupted while this URL was downloading")
        record(result)
    }

    func emitProgress(inFlight: Int, final: Bool = false) {
        let now = Monotonic.now()
        guard final || now - lastProgress >= 0.1 else { return }
        lastProgress = now
        observer?.prefetchProgress(
            PrefetchJob.Progress(
                total: total, totals: totals, elapsed: now - runStarted, inFlight: inFlight, isFinal: final))
    }

    // MARK: - Damaged hits

    /// Counts a hit whose bytes the app would not decode; the first is named in the run's warning.
    func noteDamagedHit(_ name: String, _ reason: String) {
        damagedHits += 1
        if firstDamagedHit == nil {
            // The validator's words are about a downloaded body; here it is a file.
            firstDamagedHit = (name, reason.hasPrefix("the body ") ? "the file " + reason.dropFirst(9) : reason)
        }
    }

    /// Warns once about the damaged hits, if there were any; `dryRun` words what follows.
    func warnAboutDamagedHits(dryRun: Bool) {
        guard let first = firstDamagedHit else { return }
        let files = damagedHits == 1 ? "1 cached file was" : "\(damagedHits) cached files were"
        let them = damagedHits == 1 ? "it" : "them"
        let next = dryRun ? "a run would download \(them) again" : "requested again"
        observer?.prefetchWarning(
            "\(files) damaged, a miss for the app (\(damagedHits == 1 ? "" : "the first, ")\(first.name): \(first.reason)): \(next)"
        )
    }

    // MARK: - Downloads an index lists

    /// Records the downloads `index` now lists. At the end of the run (`final`), those it still
    /// does not list (its last write failed: a full disk) are not in the cache for the app, whose
    /// library does not see them: they fail as `write-failed`.
    func settleListings(_ index: (any CacheIndex)?, final: Bool) {
        guard !awaitingListing.isEmpty, let index else { return }
        // Called at every turn of the run's loop: the names are asked again only once a flush
        // has listed something (measured: with 4,096 names awaiting, asking each at every turn
        // took 17 % of a Coil fill).
        let flushes = index.listingFlushes
        guard final || flushes != settledAtFlush else { return }
        settledAtFlush = flushes
        var waiting: [EntryResult] = []
        for var result in awaitingListing {
            let name = result.fileName ?? ""
            if !index.awaitsListing(name) {
                record(result)
            } else if final {
                result.outcome = .failed
                result.failure = Failure(
                    .writeFailed,
                    "stored as \(name), but \(location.format.library)'s index could not be written: the app does not see it"
                )
                record(result)
            } else {
                waiting.append(result)
            }
        }
        awaitingListing = waiting
    }
}
