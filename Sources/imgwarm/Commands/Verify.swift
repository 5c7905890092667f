import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `imgwarm verify [LIST...]`: will the app find these images? (docs/usage.md, "imgwarm verify").
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that the app's image library would find each key in its disk cache.",
        discussion: """
            For each key of the lists (computed as prefetch computes it: a JSON Lines "key", else \
            the URL through --key-filter; each key once), verify finds the file the library reads \
            and applies the library's own read rules (--cache-format): no file, an empty file, a \
            folder or a link in its place, an expired Kingfisher file (its modification time, the \
            expiry date, has passed) are misses, and so are bytes that are not an image the \
            library would decode (the magic bytes, the whole file's structure and the header are \
            checked, as prefetch checks a body before storing it). Without lists, every entry of \
            the folder whose name has the format's shape is judged the same way, and the other \
            files are listed as ignored. verify also says whether the library would use the folder \
            at all: a folder is used; no folder means every key misses; a folder without the \
            index that lists its entries (flutter's database) is an empty cache, where every key \
            misses as not-indexed; anything else in its place cannot be used (exit 3).

            Why a key misses (the reason the summary counts and the JSON gives): \
            \(FormatHelp.missReasons).

            A third verdict, stale, is for a file the library finds but does not serve without \
            the network (\(FormatHelp.formatsWithFreshness.joined(separator: ", ")): OkHttp's \
            CacheStrategy finds the stored response \
            stale): its line says since when and whether a validator lets the app revalidate it \
            cheaply; it is no hit for the exit status. prefetch --freshness stores a max-age.

            Several formats (--cache-format sdwebimage,glide): each format's folder is verified \
            in turn, printed as a run of that format alone, each key's line naming the format \
            (miss in FORMAT: ...); the exit code is the worst; the JSON document holds each \
            format's document in "caches".

            Output: one line per miss (the key, its file and why) and a summary on standard \
            output; --verbose lists the hits too, --quiet only the misses, stale entries and invalid lines. \
            --json prints the JSON document (docs/verify-report.schema.json) on standard output \
            instead; --report FILE writes it to a file beside the text.

            Reads only: verify creates, moves, locks and touches nothing, and reading a file \
            does not change its access time.

            Kingfisher lists its folder once, when the app starts: a file placed while the app \
            runs is a miss for the app until its next launch, even when verify says hit. verify \
            cannot know whether the app is running; seed and verify before the app's launch.

            Examples:
              imgwarm verify --cache-format kingfisher list.txt
              imgwarm verify --key-filter strip-query --json feed.jsonl | jq .totals
              # CI: the seeded caches root, before it goes into the simulator:
              imgwarm verify --cache-dir seed ci/images.txt
              # a container brought back to Linux (imgwarm pull, or a tar made on the Mac):
              imgwarm verify --cache-dir pulled/Library/Caches ci/images.txt
              # every entry of a folder, no list:
              imgwarm verify --cache-format nuke --cache-dir pulled/Library/Caches
              # the iOS and the Android app's caches of one seed, a summary each:
              imgwarm verify --cache-format sdwebimage,glide --cache-dir seed ci/images.txt

            Exit codes:
              0    every key hits
              1    some key misses or is stale, a list line is invalid, or the cache folder
                   (or its index) does not exist
              2    usage error or a list that cannot be read: nothing was checked
              3    the library cannot use the folder (or imgwarm cannot read it)
              128+N  stopped by signal N: 130 SIGINT, 143 SIGTERM
            """)

    @OptionGroup var location: CacheLocationsOptions

    @Argument(
        help: ArgumentHelp(
            "List files to read; - is standard input. None: every entry of the folder is judged.",
            valueName: "list"), completion: .file())
    var lists: [String] = []

    @OptionGroup var listFormat: ListFormatOption

    @OptionGroup(title: "Cache keys and shards") var keyOptions: KeyFilterOptions
    @OptionGroup(title: "Cache keys and shards") var shardOptions: ShardOptions

    @Flag(help: "Print the JSON document on standard output instead of text (the same as --report -).")
    var json = false

    @Option(help: Defaults.reportHelp)
    var report: String?

    @Flag(name: .shortAndLong, help: "Print only the misses, invalid lines and errors: nothing when every key hits.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Print one line per key, hits included, and the hidden entries ignored.")
    var verbose = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose contradict each other: use one") }
        if json && report != nil {
            throw ValidationError("--json prints the report on standard output: drop --report, or drop --json")
        }
        if lists.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("standard input (-) can be read only once")
        }
        if lists.isEmpty && shardOptions.request != nil {
            throw ValidationError("--shard applies to the keys of lists: give a list, or drop --shard")
        }
    }

    func run() throws {
        let locations = try location.locations()
        let sources = lists.map { ListSource(path: $0, format: listFormat.format ?? .auto) }
        if locations.count > 1 && lists.contains("-") {
            throw CommandFailure.usage(
                "standard input (-) can be read once, and each of the \(locations.count) formats reads the lists: give the list as a file"
            )
        }
        var configuration = VerifyJob.Configuration()
        configuration.keyFilters = keyOptions.chain
        configuration.shard = try shardOptions.shard(environment: CurrentProcess.environment)
        let destination = json ? "-" : report
        for location in locations {
            try OutputTargets.check(report: report, metrics: nil, location: location, statePath: nil)
        }
        let reportFile = try destination.map(ReportFile.openForCommand)
        let now = Timestamp.now()
        // Several formats: one document of today's documents, one a format, in the given order.
        let several =
            locations.count > 1
            ? reportFile.map {
                SeveralDocuments(file: $0, schemaVersion: VerifyReport.schemaVersion, command: "verify")
            }
            : nil
        var worst = ExitStatus.success
        for location in locations {
            let document = (several?.next() ?? reportFile).map {
                VerifyReport(
                    file: $0, location: location, sources: sources, checkedAt: now, shard: configuration.shard,
                    embedded: several != nil)
            }
            let status = try verify(
                location, sources: sources, configuration: configuration, now: now, document: document,
                several: locations.count > 1)
            if status.rawValue > worst.rawValue { worst = status }
        }
        try ReportFile.finishForCommand { () throws(ReportFile.OpenError) in try several?.finish() }
        throw worst
    }

    /// Verifies one format's folder: its lines and summary printed, its document written; the
    /// exit status it calls for (`VerifyConsole.exitStatus`).
    private func verify(
        _ location: CacheLocation, sources: [ListSource], configuration: VerifyJob.Configuration, now: Timestamp,
        document: VerifyReport?, several: Bool
    ) throws -> ExitStatus {
        let text = VerifyConsole(
            location: location, sources: sources, printsText: !json && report != "-", quiet: quiet, verbose: verbose,
            notAFolder: FileSystem.nonFolder(onPath: location.folder), shard: configuration.shard,
            namesFormat: several)
        let result: VerifyJob.Result
        do {
            let job = VerifyJob(location: location, sources: sources, configuration: configuration)
            // A list's lines are named as its content makes them: `capture.json entry 3` for a HAR.
            result = try job.run(
                now: now, opened: { text.sources = $0 },
                observe: { event in
                    document?.add(event)
                    text.print(event)
                })
        } catch {
            throw CommandFailure(message: error.description, status: .of(error))
        }
        if let document {
            try ReportFile.finishForCommand { () throws(ReportFile.OpenError) in try document.finish(result) }
        }
        text.finish(result)
        return VerifyConsole.exitStatus(result)
    }

}
