import ImgwarmSystem

/// The Input stage of a prefetch: reads every list and turns each line into what the run does
/// with it — a keyed entry queued in the spool of its priority, an invalid line, a duplicate of
/// an earlier key, or a line of another shard. Keys, shards and duplicates are decided here
/// (docs/usage.md, "Keys apps compute", "Running on many machines"); the caller only records.
final class LineIngest {
    /// What the caller is told of the lines that are not queued.
    enum Event {
        /// Not a URL imgwarm fetches (or one whose key filters left nothing): reported.
        case invalid(EntryResult)
        /// The key of an earlier line: reported, not queued.
        case duplicate(EntryResult)
        /// An image the cache libraries decode only with a plugin (a HAR's SVG entry, without
        /// `acceptSVG`): reported as `unsupported`, not queued.
        case unsupported(EntryResult)
        /// `--shard`: the key belongs to another shard (counted, never listed).
        case otherShard
    }

    /// Why reading stopped with an error.
    enum Failure: Error {
        /// A list could not be read (a usage error).
        case unreadable(ListIngest.ReadError)
        /// The spool or the duplicate check could not write its scratch file.
        case scratch(EntrySpool.SpoolError)
    }

    /// The lists; once opened, each one's format as its content told (`OpenedList`).
    private(set) var sources: [ListSource]
    let keyFilters: KeyFilterChain
    let shard: Shard?
    let duplicates: DuplicateFilter
    /// Where a line's `"file"` may be (`--files-root`).
    let fileRules: LocalFileRules
    /// Names the cache entries of duplicates (their report's `fileName`): the cache format's
    /// naming, given by the job (the Input stage knows no cache). The key itself by default.
    let fileName: (String) -> String
    /// Why the cache's library never caches a key (the format's refusal, given by the job); the
    /// line is then invalid. None by default.
    let keyRefusal: (String) -> String?
    /// Asked before a list's first line and every 1024 lines: true stops reading (a signal).
    let shouldStop: () -> Bool
    /// Readable when reading must stop (the signal's pipe): a read waiting on a pipe ends then.
    let stop: FileDescriptor?
    /// URL lines read (queued, duplicates and other shards' lines; not invalid ones).
    private(set) var urlLines = 0
    /// Entries of HAR captures that are not images (`HARList.Counts.skipped`): counted only.
    private(set) var notImages = 0
    /// `--replay-credentials`: a HAR entry's recorded `Cookie` and `Authorization` are sent too.
    let replayCredentials: Bool
    /// `--accept-svg`: a HAR's SVG entries are queued as any image (else they are `unsupported`).
    let acceptSVG: Bool
    /// The variant headers of the HAR entry being taken (told just before its line).
    private var recordedHeaders: [String] = []
    /// `--offline`: the scratch file HAR captures' recorded bodies are kept in (nil online).
    /// Every line then has a body: a HAR entry its recorded one (told just before its line),
    /// a `"file"` line its file, any other line none (`BodySource.missing`).
    let offlineBodies: HARBodies?
    private var recordedBody: BodySource?
    /// Where reading stopped when `shouldStop` said so before the lists ended; nil when every
    /// list was read to its end.
    private(set) var cut: ListCut?

    init(
        sources: [ListSource], keyFilters: KeyFilterChain, shard: Shard?, duplicateMemoryLimit: Int,
        scratchFolder: String, fileName: @escaping (String) -> String = { $0 },
        keyRefusal: @escaping (String) -> String? = { _ in nil },
        shouldStop: @escaping () -> Bool = { false }, stop: FileDescriptor? = nil, replayCredentials: Bool = false,
        fileRules: LocalFileRules = LocalFileRules(), offlineBodies: HARBodies? = nil, acceptSVG: Bool = false
    ) {
        self.acceptSVG = acceptSVG
        self.offlineBodies = offlineBodies
        self.replayCredentials = replayCredentials
        self.fileRules = fileRules
        self.stop = stop
        self.fileName = fileName
        self.keyRefusal = keyRefusal
        self.sources = sources
        self.keyFilters = keyFilters
        self.shard = shard
        duplicates = DuplicateFilter(memoryLimit: duplicateMemoryLimit, folder: scratchFolder)
        self.shouldStop = shouldStop
    }

    /// Reads every list into `spools` (one per priority, by rank), telling `event` of every line
    /// not queued, in list order; the duplicates found once all is read (`DuplicateFilter`)
    /// come last, and are taken out of the spools before any starts. `opened` is told the
    /// lists' formats once they are open, before any line.
    func read(
        into spools: [EntrySpool], order: ExecutionOrder, opened: ([ListSource]) -> Void = { _ in },
        _ event: (Event) -> Void
    ) throws(Failure) {
        let lists: [OpenedList]
        do {
            lists = try ListIngest.open(sources, stop: stop)
        } catch {
            throw .unreadable(error)
        }
        sources = lists.map(\.source)
        opened(sources)
        // A line's place in the run (`ordinal`): the lines of the lists before its own, plus its number.
        var ordinalBases: [UInt64] = []
        var linesBefore: UInt64 = 0
        for (index, source) in sources.enumerated() {
            ordinalBases.append(linesBefore)
            var lastLine = 0
            defer { linesBefore += UInt64(lastLine) }
            var taken = 0
            let linesRead: Int?
            do {
                linesRead = try ListIngest.read(
                    lists[index], index: index, stop: stop, notImages: { notImages += $0 },
                    replayCredentials: replayCredentials, variantHeaders: { recordedHeaders = $0 },
                    bodies: offlineBodies, recordedBody: { recordedBody = $0 },
                    onLine: { (line, parsed) throws(EntrySpool.SpoolError) -> Bool in
                        // Asked before a list's first line (a signal during set-up reads nothing)
                        // and then every 1024 lines: one load, nothing next to parsing a line.
                        if taken & 0x3FF == 0 && shouldStop() { return false }
                        taken += 1
                        lastLine = max(lastLine, line)  // a HAR's lines (its entries) may come out of order
                        try take(line, index, source, parsed, ordinalBases[index], spools, event)
                        return true
                    })
            } catch {
                switch error {
                case .read(let error): throw .unreadable(error)
                case .line(let error): throw .scratch(error)
                }
            }
            if let linesRead {
                cut = ListCut(
                    input: index, path: source.path, linesRead: linesRead,
                    inputsNotRead: Array(sources.indices.dropFirst(index + 1)))
                for later in lists.dropFirst(index + 1) where later.descriptor != .standardInput {
                    later.descriptor.close()
                }
                break
            }
        }
        do {
            for spool in spools { try spool.finishWriting(order: order) }
            // Lines past what memory holds are judged now (DuplicateFilter), before any starts.
            let marks = try duplicates.finish()
            if marks.count > 0 {
                let isDuplicate = { (entry: PendingEntry) in
                    marks.contains(ordinalBases[entry.input] + UInt64(entry.line))
                }
                for spool in spools {
                    spool.remove(where: isDuplicate) { entry in
                        event(
                            .duplicate(
                                duplicate(entry.line, entry.input, entry.url, entry.key, entry.priority)))
                    }
                }
            }
        } catch {
            throw .scratch(error)
        }
    }

    /// One parsed line: queued, or told of.
    private func take(
        _ line: Int, _ index: Int, _ source: ListSource, _ parsed: ListLine, _ base: UInt64,
        _ spools: [EntrySpool], _ event: (Event) -> Void
    ) throws(EntrySpool.SpoolError) {
        defer { (recordedHeaders, recordedBody) = ([], nil) }
        switch parsed {
        case .ignored:
            return
        case .invalid(let reason, let text):
            // Every shard reports invalid lines: they belong to none.
            var result = EntryResult(line: line, input: index, url: text, outcome: .invalid)
            result.failure = ImgwarmKit.Failure(.invalidURL, reason)
            event(.invalid(result))
        case .file(let url, let explicitKey, let linePriority, let path):
            switch fileRules.resolve(path, listPath: source.path) {
            case .success(let resolved):
                try queue(line, index, source, url, explicitKey, linePriority, .file(resolved), base, spools, event)
            case .failure(let refusal):
                // Refused before any work: reported with its line, never requested nor blacklisted.
                var result = EntryResult(line: line, input: index, url: url, outcome: .invalid)
                result.failure = ImgwarmKit.Failure(.invalidURL, refusal.message)
                event(.invalid(result))
            }
        case .url(let url, let explicitKey, let linePriority):
            var body = recordedBody
            if offlineBodies != nil && body == nil {
                body = .missing(
                    "\(Setting.offline): a URL line has no recorded body (only HAR entries and \"file\" lines do)")
            }
            try queue(line, index, source, url, explicitKey, linePriority, body, base, spools, event)
        case .unsupported(let url, let reason):
            // Keyed, sharded and checked for duplicates as any line; queued only when accepted.
            try queue(
                line, index, source, url, nil, nil, recordedBody, base, spools, event,
                unsupported: acceptSVG ? nil : reason)
        }
    }

    /// A URL line (its body from `body` when it names one): keyed, sharded, checked for
    /// duplicates, queued; or, with the reason it is `unsupported`, told of instead of queued.
    private func queue(
        _ line: Int, _ index: Int, _ source: ListSource, _ url: String, _ explicitKey: String?,
        _ linePriority: Priority?, _ body: BodySource?, _ base: UInt64, _ spools: [EntrySpool],
        _ event: (Event) -> Void, unsupported: String? = nil
    ) throws(EntrySpool.SpoolError) {
        let key = explicitKey ?? keyFilters.key(for: url)
        if key.isEmpty {
            var result = EntryResult(line: line, input: index, url: url, outcome: .invalid)
            result.failure = ImgwarmKit.Failure(
                .invalidURL, "the key filters (\(keyFilters)) made the key of this URL empty")
            event(.invalid(result))
            return
        }
        if let refusal = keyRefusal(key) {
            var result = EntryResult(line: line, input: index, url: url, outcome: .invalid)
            result.failure = ImgwarmKit.Failure(.invalidURL, refusal)
            event(.invalid(result))
            return
        }
        urlLines += 1
        let digest = MD5.digest(Array(key.utf8))
        // Duplicates of a key belong to the same shard as its first line: that shard counts
        // them, the others count them as other-shard lines.
        if let shard, !shard.owns(digest) {
            event(.otherShard)
            return
        }
        let priority = linePriority ?? source.priority
        if try duplicates.check(digest, ordinal: base + UInt64(line)) == .duplicate {
            event(.duplicate(duplicate(line, index, url, key, priority)))
            return
        }
        if let unsupported {
            var result = duplicate(line, index, url, key, priority)
            result.outcome = .unsupported
            result.failure = ImgwarmKit.Failure(.unsupported, unsupported)
            event(.unsupported(result))
            return
        }
        try spools[priority.rank].append(
            line: line, input: index, url: url, key: key, headers: recordedHeaders, body: body)
    }

    func duplicate(_ line: Int, _ input: Int, _ url: String, _ key: String, _ priority: Priority) -> EntryResult {
        var result = EntryResult(line: line, input: input, url: url, key: key, outcome: .duplicate)
        result.fileName = fileName(key)
        result.priority = priority
        return result
    }
}
