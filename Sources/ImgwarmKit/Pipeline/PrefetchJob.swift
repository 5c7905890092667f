import ImgwarmSystem

/// `imgwarm prefetch`: reads lists, downloads through the priority downloader, validates and stores every image
/// where the format's library would (docs/usage.md, "imgwarm prefetch"). A coordinator: what an entry's start comes
/// to is `EntryStart`, where results go the `PrefetchRecorder`, the state database the `PrefetchState`, a dry run
/// the `PrefetchDryRun`, run-level problems the `Halts`, the network and validation what its `Parts` make.
public final class PrefetchJob {
    public let location: CacheLocation
    public let sources: [ListSource]
    public let configuration: Configuration
    public var observer: PrefetchJob.Observer? {
        get { recorder.observer }
        set { recorder.observer = newValue }
    }
    /// Receives every entry for the JSON report, when one was asked for.
    public var report: PrefetchReport? {
        get { recorder.report }
        set { recorder.report = newValue }
    }

    let recorder: PrefetchRecorder
    let state: PrefetchState
    let parts: Parts
    /// Where a signal stopped the reading of the lists, if one did.
    var listCut: ListCut?
    /// The index of the run's cache (a journal, a database), once downloads start.
    var storeIndex: (any CacheIndex)?
    let startedAt = Timestamp.now()
    /// The run-level problems met so far, and the interruption.
    var halts = Halts()

    public convenience init(location: CacheLocation, sources: [ListSource], configuration: Configuration) {
        self.init(location: location, sources: sources, configuration: configuration, parts: .real)
    }

    init(location: CacheLocation, sources: [ListSource], configuration: Configuration, parts: Parts) {
        self.location = location
        self.sources = sources
        self.configuration = configuration
        self.parts = parts
        recorder = PrefetchRecorder(sources: sources, location: location)
        state = PrefetchState(
            path: StateStore.path(configuration.statePath, for: location), fetch: configuration.fetch,
            blacklistTTL: configuration.blacklistTTL)
    }

    /// Runs the whole prefetch on the calling thread (which it blocks until the end).
    public func run() throws(PrefetchJob.Error) -> PrefetchJob.Summary {
        recorder.runStarted = Monotonic.now()
        let ingest = PrefetchIngest(sources: sources, location: location, configuration: configuration)
        let ahead = configuration.dryRun ? nil : PrefetchReadAhead(location: location, statePath: state.path)
        let spools = try ingest.read(into: recorder)
        listCut = ingest.cut
        let scheduler = Scheduler(
            spools: spools, policy: configuration.dryRun ? nil : SlotPolicy(configuration.slots))
        var startFailure: PrefetchJob.Error?
        if configuration.dryRun, let file = FileSystem.nonFolder(onPath: location.folder) {
            // The run would stop here: the dry run says so in the same words, and classifies nothing.
            scheduler.drain(recorder.recordNotStarted)
            startFailure = .cacheFolder(.notADirectory(file))
        } else if configuration.dryRun {
            do {
                try state.openExisting()
            } catch {
                observer?.prefetchWarning("\(error.description); this dry run does not consult the blacklist")
            }
            let dryRun = PrefetchDryRun(
                location: location, rules: startRules, state: state, recorder: recorder, configuration: configuration)
            let read = PrefetchDryRun.readIndex(of: location)
            if let failure = read.failure { note(.indexFailure(failure)) }
            let signal = dryRun.classify(scheduler, index: read.index)
            if signal != 0 { halts.interrupt(signal: signal) }
        } else if configuration.stop.signal != 0 {
            // A signal came before the first download (while the lists were read, or before):
            // nothing is opened or created, and every line read is reported as not started.
            scheduler.drain(recorder.recordNotStarted)
            halts.interrupt(signal: configuration.stop.signal)
        } else {
            do {
                try download(scheduler, recordedBodies: ingest.bodies, ahead: ahead)
            } catch {
                // The lists were read and are reported (invalid lines, duplicates); nothing else
                // started, and the report says so rather than going missing.
                scheduler.drain(recorder.recordNotStarted)
                startFailure = error
            }
            // The run's log line; then the writer commits everything and stops.
            let failure = state.finish(totals: recorder.totals, startedAt: startedAt, interrupted: halts.interrupted)
            if let failure { note(.stateFailure(failure)) }
        }
        if listCut != nil {
            // The signal came while the lists were read: whatever followed, the run is interrupted.
            halts.interrupt(signal: configuration.stop.signal)
        }
        recorder.warnAboutDamagedHits(dryRun: configuration.dryRun)
        var summary = PrefetchJob.Summary(totals: recorder.totals, duration: Monotonic.now() - recorder.runStarted)
        summary.startFailure = startFailure
        summary.listCut = listCut
        summary.damagedHits = recorder.damagedHits
        summary.storedStale = recorder.storedStale
        halts.summarize(into: &summary)
        summary.hosts = scheduler.policy?.figures ?? []
        summary.inputs = recorder.sources
        recorder.emitProgress(inFlight: 0, final: true)
        return summary
    }

    /// The settings `EntryStart` reads.
    var startRules: EntryStart.Rules {
        EntryStart.Rules(refresh: configuration.refresh, retryFailed: configuration.retryFailed)
    }
}
