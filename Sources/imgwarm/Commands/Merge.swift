import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `imgwarm merge SOURCE...`: the entries of other caches of one format (per-machine shards) put
/// into one cache by the library's own rules (docs/merge.md).
struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put the entries of other caches of one format into this cache, by the library's rules.",
        discussion: """
            Each SOURCE is a cache of the same format (--cache-format), located as the destination \
            is: a caches root when the destination is given by --cache-dir (or the default root), \
            the format's own folder when it is given by --disk-cache-path. Every entry of every \
            source goes into the destination with its files' modification and access times (a \
            creation time cannot be set on Linux: it becomes the merge's), the library's index \
            listing it (a journal's CLEAN line; flutter's row, with its own touched and \
            validTill). When the destination already holds another copy of an entry (a \
            conflict), the newer wins by the format's clock: the modification time (Kingfisher's \
            expiry date: the later expiry wins), OkHttp's OkHttp-Received-Millis, flutter's \
            touched. docs/merge.md has the rule of every format.

            Sources are only read, as untrusted folders: a link, FIFO or device in them is skipped, \
            never opened. Every source is checked before the destination changes: a missing \
            source, or one of another format, is exit 2; one imgwarm cannot read (or whose index \
            the library would not read) exit 3; either way the destination is left as it was, not \
            even created. The destination is created when absent, as prefetch creates its cache, \
            and changed entry by entry under its cache lock: a stopped merge leaves a cache the \
            library reads, some entries missing, none half there. An entry the destination already \
            holds as it is changes nothing, so a second merge of the same sources changes nothing.

            The state databases merge too (docs/merge.md): the record (validators) of each entry \
            added or replaced comes from its source's database, and the blacklists join, the \
            latest failure of a URL winning; keys stay in the destination's URL identity (a \
            password's digest made with another database's salt is left out, never written in \
            clear).

            Output: a summary on standard error (entries added, replaced, kept, unchanged, \
            skipped; conflicts); --report FILE writes the JSON document \
            (docs/merge-report.schema.json); --dry-run changes nothing and says what would change.

            Examples:
              imgwarm merge --cache-dir all --cache-format glide m1 m2 m3
              imgwarm merge --disk-cache-path all/images m1/images m2/images
              imgwarm merge --dry-run --report - --cache-dir all \\
                --cache-format kingfisher m1 m2

            Exit codes:
              0    every entry of every source merged (or a newer copy kept)
              1    some entries were skipped (not a regular file, a name not plain)
              2    usage error, a missing source or one of another format: nothing changed
              3    a source cannot be read, or the destination cannot be written
              128+N  stopped by signal N: 130 SIGINT, 143 SIGTERM
            """)

    @OptionGroup var location: CacheLocationOptions

    @Argument(
        help: ArgumentHelp(
            "The caches to merge in: caches roots (with --cache-dir or the default root), or the format's folders (with --disk-cache-path).",
            valueName: "source"), completion: .directory)
    var sources: [String]

    @Flag(help: "Change nothing: say what would be added, replaced or kept.")
    var dryRun = false

    @Option(help: Defaults.reportHelp)
    var report: String?

    @OptionGroup var lockTimeoutOption: LockTimeoutOption

    @Flag(name: .shortAndLong, help: "Print nothing on success; skipped entries and errors are still printed.")
    var quiet = false

    func run() throws {
        let destination = try location.location()
        // Each source's own layout: --database names the destination's database only.
        let format = location.format
        var locations: [CacheLocation] = []
        for source in sources {
            guard !source.isEmpty else { throw CommandFailure.usage("a source '' names no folder: give a path") }
            if location.diskCachePath != nil {
                locations.append(CacheLocation(folder: source, format: format))
            } else {
                do {
                    locations.append(
                        try CacheLocation(
                            root: source, namespace: location.namespace ?? CacheLocation.defaultNamespace,
                            format: format))
                } catch {
                    throw CommandFailure.usage(error.description)
                }
            }
        }
        try OutputTargets.check(report: report, metrics: nil, location: destination, statePath: nil)
        let reportFile = try report.map(ReportFile.openForCommand)
        let now = Timestamp.now()
        let document = reportFile.map {
            MergeReport(
                file: $0, location: destination, sources: locations.map(\.folder), dryRun: dryRun, startedAt: now)
        }
        var configuration = MergeJob.Configuration()
        configuration.dryRun = dryRun
        configuration.lockTimeout = lockTimeoutOption.lockTimeout
        var firstSkipped: String?
        let totals: MergeJob.Totals
        do {
            totals = try MergeJob(destination: destination, sources: locations, configuration: configuration).run {
                event in
                document?.add(
                    source: event.source, name: event.name, outcome: event.outcome.rawValue, conflict: event.conflict,
                    size: event.size, clock: event.clock, detail: event.detail)
                if event.outcome == .skipped && firstSkipped == nil {
                    firstSkipped =
                        "\(EscapedText.escaped(event.name)) of \(locations[event.source].folder): \(event.detail ?? "")"
                }
            }
        } catch {
            throw CommandFailure(message: EscapedText.escaped(error.description), status: .of(error))
        }
        if let document {
            let counts: [(name: String, value: UInt64)] = [
                ("entries", UInt64(totals.entries)), ("added", UInt64(totals.added)),
                ("replaced", UInt64(totals.replaced)), ("kept", UInt64(totals.kept)),
                ("unchanged", UInt64(totals.unchanged)), ("skipped", UInt64(totals.skipped)),
                ("conflicts", UInt64(totals.conflicts)), ("bytesWritten", totals.bytesWritten),
                ("stateRecords", UInt64(totals.stateRecords)), ("blacklisted", UInt64(totals.blacklisted)),
                ("stateSkipped", UInt64(totals.stateSkipped)),
            ]
            do {
                try document.finish(totals: counts, finishedAt: .now())
            } catch  where error.readerWentAway {
            } catch {
                throw CommandFailure.cache(error.description)
            }
        }
        if let firstSkipped {
            Console.writeError(
                "imgwarm merge: skipped \(totals.skipped) \(totals.skipped == 1 ? "entry" : "entries") it does not copy, e.g. \(firstSkipped)\n"
            )
        }
        if !quiet {
            let verb = dryRun ? "would merge" : "merged"
            Console.writeError(
                "imgwarm merge: \(verb) \(totals.entries) entries of \(locations.count) \(locations.count == 1 ? "source" : "sources") into \(destination.folder): \(totals.added) added, \(totals.replaced) replaced, \(totals.kept) kept, \(totals.unchanged) unchanged, \(totals.skipped) skipped (\(totals.conflicts) \(totals.conflicts == 1 ? "conflict" : "conflicts")); state: \(totals.stateRecords) records, \(totals.blacklisted) blacklisted URLs\(totals.stateSkipped > 0 ? ", \(totals.stateSkipped) rows left out (a password digest of another database)" : "")\n"
            )
        }
        if totals.skipped > 0 { throw ExitStatus.partial }
    }
}
