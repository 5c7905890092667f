/// The reading of a prefetch's lists: every URL line goes to the spool of its priority, the
/// invalid lines and duplicates to the recorder, the lines of other shards into its count.
final class PrefetchIngest {
    let sources: [ListSource]
    let location: CacheLocation
    let configuration: PrefetchJob.Configuration
    /// Where a signal stopped the reading, if one did.
    private(set) var cut: ListCut?
    /// `--offline`: the scratch file of the HAR captures' recorded bodies, open (and its bodies
    /// readable by `LocalBodies`) as long as the ingest lives: the whole run.
    private(set) var bodies: HARBodies?

    init(sources: [ListSource], location: CacheLocation, configuration: PrefetchJob.Configuration) {
        self.sources = sources
        self.location = location
        self.configuration = configuration
    }

    /// Reads every list; returns the spools, by priority.
    func read(into recorder: PrefetchRecorder) throws(PrefetchJob.Error) -> [EntrySpool] {
        var spools: [EntrySpool] = []
        do {
            for priority in Priority.allCases.sorted() {
                spools.append(try EntrySpool(priority: priority, folder: configuration.spoolFolder))
            }
        } catch {
            throw .spoolFolder(error.folder, code: error.code)
        }
        if configuration.offline {
            do {
                bodies = try HARBodies(folder: configuration.spoolFolder)
            } catch {
                throw .spoolFolder(configuration.spoolFolder, code: error.code)
            }
        }
        let stop = configuration.stop
        // Cast once, not once a line (a conformance lookup each time).
        let refusing = location.format as? any KeyRefusingFormat
        let lines = LineIngest(
            sources: sources, keyFilters: configuration.keyFilters, shard: configuration.shard,
            duplicateMemoryLimit: configuration.duplicateMemoryLimit, scratchFolder: configuration.spoolFolder,
            fileName: { [location] in (try? location.entryName(forKey: $0, index: nil)) ?? "" },
            keyRefusal: { refusing?.refusal(forKey: $0) },
            shouldStop: { stop.signal != 0 }, stop: stop.descriptor,
            replayCredentials: configuration.fetch.replayCredentials, fileRules: configuration.fileRules,
            offlineBodies: bodies, acceptSVG: configuration.validation.acceptSVG)
        do {
            try lines.read(into: spools, order: configuration.order, opened: recorder.listsOpened) { event in
                switch event {
                case .invalid(let result), .duplicate(let result), .unsupported(let result): recorder.record(result)
                case .otherShard: recorder.recordOtherShard()
                }
            }
        } catch {
            switch error {
            case .unreadable(let error): throw .unreadableInput(path: error.path, code: error.code)
            case .scratch(let error): throw .spoolFolder(error.folder, code: error.code)
            }
        }
        recorder.total = lines.urlLines + recorder.totals.invalid
        recorder.recordNotImages(lines.notImages)
        cut = lines.cut
        return spools
    }
}
