import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `imgwarm prefetch LIST...`: warm the cache from lists of image URLs (docs/usage.md, "imgwarm prefetch").
struct Prefetch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download, validate and store the images of one or more lists.",
        discussion: """
            Lists: one URL per line (blank lines and # comments ignored), or JSON Lines (.jsonl, \
            or --format jsonl) with "url" and an optional "key", "priority" and "file" (a local file \
            stored under the URL's key, no request; --files-root) per line, or a HAR capture (by its content, \
            {"log": ...}, whatever its name, or --format har): its image entries, keyed by the URL the app \
            requested; --offline stores their recorded bodies. - is standard input. Each URL is its cache key \
            exactly as written, unless its line gives a \
            "key" or --key-filter computes keys the way the app's cacheKeyFilter does; the key \
            names the file, the URL is fetched (and blacklisted). --shard K/N handles only the \
            lines of one shard of a fleet (--shard auto: the shard the scheduler's task index names). A URL already in the cache is a \
            hit: no request, its access time is set (Kingfisher: a new expiry date); a cached \
            file the app would not decode (cut short, or not an image) is a miss and is \
            downloaded again. Every \
            download is checked (2xx, complete, \
            within --max-bytes, an image whose format is recognised and whose header is read within \
            the pixel limits: by imgwarm for JPEG, PNG, GIF and WebP, by ImageMagick's coder of \
            that format for the others) and then stored atomically under the file name of the \
            app's image library (--cache-format: SDWebImage by default; docs/cache-formats.md). \
            Several formats (--cache-format sdwebimage,glide,flutter) are filled in turn, OkHttp's \
            first: each URL is requested once, by the first format that misses it, and the others \
            store the same bytes (copied, or a hard link where their time rules agree), or copy \
            another format's hit when they need no response headers; one summary per format, the \
            worst exit status. --from-cache DIR --from-format NAME seeds from another library's or \
            version's cache: each line's entry there is validated and stored with no request, its \
            times kept where they mean the same; the others are requested (--offline: no-body).

            Transient failures (timeouts, resets, 408, 429, 5xx) are retried with back-off \
            (--retries, --retry-delay, Retry-After up to --max-retry-wait). Any other failure \
            puts the URL on the blacklist: later runs skip it without a request until the entry \
            expires (--blacklist-ttl) or --retry-failed. --refresh revalidates cached files with \
            their stored ETag / Last-Modified. State lives in a SQLite database beside the cache \
            folder (--state).

            Invalid lines are reported with their line number and skipped; duplicates are fetched \
            once. Failures are printed on standard error as they happen, also under --quiet (which \
            leaves out the progress and the summary), and a summary at the end; a live progress \
            line appears when standard error is a terminal. A first SIGINT, SIGTERM, SIGHUP, \
            SIGQUIT, SIGUSR1 or SIGUSR2, whenever it comes, ends the run with its report and exit \
            code 128 + N; one that comes while the lists are read says where reading stopped \
            (the report's listCut).

            Examples:
              imgwarm prefetch urls.txt
              imgwarm prefetch --concurrency 16 --report report.json feed.jsonl
              imgwarm prefetch home.txt --high hero.txt --low archive.txt
              generate-urls | imgwarm prefetch --quiet -
              imgwarm prefetch --key-filter drop-params:token,expires signed.txt
              imgwarm prefetch --shard 3/8 feed.txt
              # the iOS and the Android app's caches, each URL requested once
              imgwarm prefetch --cache-format sdwebimage,glide --cache-dir seed feed.txt
              # Kingfisher 7 to 8 without a request
              imgwarm prefetch --offline --cache-format kingfisher \\
                  --from-cache old --from-format kingfisher7 feed.txt
              # shard from the scheduler's task index (Slurm, GitLab, ...)
              imgwarm prefetch --shard auto feed.txt
              imgwarm prefetch --shard auto/8 feed.txt  # Kubernetes: 8 completions
              # CI, before UI tests: fail the job if any image is missing
              imgwarm prefetch --report prefetch.json \\
                  --disk-cache-path "$SIM_CACHES/com.hackemist.SDImageCache/default" \\
                  ci/images.txt

            \(ExitStatus.helpText)
            """)

    @OptionGroup(title: "Cache location") var location: CacheLocationsOptions

    @OptionGroup(title: "Seeding from another cache") var fromCache: FromCacheOptions

    @Option(
        name: .customLong("expires-in"), parsing: .unconditional,
        help: ArgumentHelp(
            "\(FormatHelp.prefetchFormats(taking: .expiresIn)): how long a stored or re-read file stays fresh; s m h d w (default \(FormatHelp.expiresInDefaults), the library's).",
            discussion:
                "Kingfisher takes a file's modification time for its expiry date: stored files and hits get now plus this, rounded up to a whole second.",
            valueName: "age"),
        transform: Parse.expiry)
    var expiresIn: Expiry?

    @Option(
        name: .customLong("freshness"), parsing: .unconditional,
        help: ArgumentHelp(
            "\(FormatHelp.prefetchFormats(taking: .freshness)): store Cache-Control: max-age for this long instead of the response's caching headers; s m h d w, or max-age=SECONDS (left out, the headers as received).",
            discussion:
                "OkHttp serves an entry without the network only while its stored headers say it is fresh; this is what an app's network interceptor that rewrites Cache-Control does.",
            valueName: "age"),
        transform: Parse.freshness)
    var freshness: Expiry?

    @Argument(help: ArgumentHelp("List files to read; - is standard input.", valueName: "list"), completion: .file())
    var lists: [String] = []

    @Option(
        name: .customLong("high"), help: ArgumentHelp("A list read at high priority (repeatable).", valueName: "list"),
        completion: .file())
    var highLists: [String] = []

    @Option(
        name: .customLong("low"), help: ArgumentHelp("A list read at low priority (repeatable).", valueName: "list"),
        completion: .file())
    var lowLists: [String] = []

    @Option(
        help: ArgumentHelp(
            "The priority of the lists given as arguments: high, normal or low (default \(Priority.normal.rawValue)).",
            valueName: "priority"),
        completion: .list(Priority.allCases.map(\.rawValue)), transform: Parse.priority)
    var priority: Priority?

    @OptionGroup var listFormat: ListFormatOption
    @OptionGroup var filesRoot: FilesRootOption
    @OptionGroup var offline: OfflineOption
    @OptionGroup var acceptSVG: AcceptSVGOption

    @Option(
        help: ArgumentHelp(
            "Order within one priority: fifo or lifo (default \(Defaults.prefetch.order.rawValue)).", valueName: "order"
        ),
        completion: .list(ExecutionOrder.allCases.map(\.rawValue)), transform: Parse.order)
    var order: ExecutionOrder?

    @Option(
        name: .shortAndLong, parsing: .unconditional,
        help: ArgumentHelp(
            "Transfers in flight: auto, or a number from 1 to 1024 for that many whatever their hosts, without adapting (default \(Defaults.concurrency(Defaults.prefetch.slots.concurrency))).",
            discussion:
                "auto learns a limit for each host from its latency and rate: from \(SlotPolicy.Configuration.initialPerHost) transfers, growing while the host answers as fast with more, shrinking when latency rises with load or on 429, 503, resets and timeouts; up to --max-per-host connections to an HTTP/1.1 host, up to \(SlotPolicy.Configuration.autoStreamsPerHost) streams to an HTTP/2 host (\(SlotPolicy.Configuration.streamsPerConnection) per connection, fewer if the server says so), \(SlotPolicy.Configuration.autoTotal) in all. A host whose connections fail or time out in \(SlotPolicy.Configuration.breakerThreshold) rounds in a row, or that answers only 429 or 503 in \(SlotPolicy.Configuration.busyBreakerThreshold) rounds in a row, is unavailable for the run: its URLs end as host-unavailable (not blacklisted). Requests in flight together are one round.",
            valueName: "auto|n"),
        completion: .list(["auto"]), transform: Parse.concurrency)
    var concurrency: SlotPolicy.Configuration.Concurrency?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --concurrency auto, the most a host's limit grows to: connections to an HTTP/1.1 host, 1 to 256 (default \(Defaults.prefetch.slots.maxPerHost)).",
            valueName: "n"))
    var maxPerHost: Int?

    @OptionGroup var rates: RateOptions

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds without a byte received (also while connecting) before a transfer gives up (default \(Defaults.seconds(Defaults.prefetch.fetch.timeout))).",
            valueName: "seconds"),
        transform: Parse.seconds("--timeout"))
    var timeout: Double?

    @Option(
        name: .customLong("max-time"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds one whole transfer may take, 0 for no limit (default \(Defaults.seconds(Defaults.prefetch.fetch.maxTime))).",
            valueName: "seconds"),
        transform: Parse.seconds("--max-time"))
    var maxTime: Double?

    @Option(
        name: .customLong("max-bytes"), parsing: .unconditional,
        help: ArgumentHelp(
            "Largest body stored, after decoding; enforced while receiving (default \(Quantities.formatSize(UInt64(Defaults.prefetch.fetch.maxBytes)))).",
            valueName: "size"),
        transform: Parse.size)
    var maxBytes: UInt64?

    @Option(
        name: .customLong("max-pixels"), parsing: .unconditional,
        help: ArgumentHelp(
            "Largest image area, e.g. 100M or 8000x8000 (default \(Defaults.pixels(Defaults.prefetch.validation.maxPixels))); a side may be at most \(Defaults.prefetch.validation.maxDimension).",
            valueName: "pixels"),
        transform: Parse.pixels)
    var maxPixels: Int?

    @Option(
        name: .customLong("max-redirects"), parsing: .unconditional,
        help: ArgumentHelp(
            "Redirects followed, to http or https only (default \(Defaults.prefetch.fetch.maxRedirects)).",
            valueName: "n"))
    var maxRedirects: Int?

    @Option(
        name: .customLong("validate"),
        help: ArgumentHelp(
            "How images are checked: header (read the header) or full (decode every pixel) (default \(Defaults.prefetch.validation.mode.rawValue)).",
            valueName: "mode"),
        completion: .list(ValidationConfiguration.Mode.allCases.map(\.rawValue)), transform: Parse.validationMode)
    var validation: ValidationConfiguration.Mode?

    @Option(
        name: .customLong("max-decode-memory"), parsing: .unconditional,
        help: ArgumentHelp(
            "With --validate full, the most memory one decode may need beyond ImageMagick's pixel cache; a larger image fails as validation-limit, not blacklisted (default \(Quantities.formatSize(UInt64(Defaults.prefetch.validation.maxDecodeMemory)))).",
            valueName: "size"),
        transform: Parse.size)
    var maxDecodeMemory: UInt64?

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp("Add or replace a request header, 'Name: value' (repeatable).", valueName: "header"),
        transform: Parse.header)
    var headers: [String] = []

    @Option(
        name: .customLong("user-agent"),
        help: ArgumentHelp("The User-Agent (default \(Defaults.prefetch.fetch.userAgent)).", valueName: "text"))
    var userAgent: String?

    @Flag(name: .customLong("http1.1"), help: "Use HTTP/1.1 even where the server offers HTTP/2.")
    var http11 = false

    @Option(
        help: ArgumentHelp(
            "Trust the certificate authorities of this PEM file instead of the system's.",
            discussion: "Checked before any download: a file libcurl cannot load is a usage error (exit 2).",
            valueName: "file"),
        completion: .file())
    var cacert: String?

    @Flag(help: "Do not verify TLS certificates (prints a warning).")
    var insecure = false

    @Option(
        help: ArgumentHelp(
            "Send every request through this proxy, [scheme://][user:password@]host[:port] (http, https, socks4, socks4a, socks5, socks5h); '' for none.",
            discussion:
                "Left out, the proxies of the environment apply (http_proxy, https_proxy, all_proxy, no_proxy), as for curl. A proxy libcurl would not use (another scheme, no host, %00 in the user name or password, with which libcurl would connect directly) is a usage error (exit 2), the environment's too. A proxy that cannot be reached ends the run (exit 1); its refusals (407, a tunnel refused) are proxy-failed, never blacklisted.",
            valueName: "url"))
    var proxy: String?

    @Option(
        help: ArgumentHelp(
            "Hosts to reach without a proxy, comma-separated; * for all (left out: no_proxy).",
            valueName: "hosts"))
    var noproxy: String?

    @Option(
        name: .customLong("netrc-file"),
        help: ArgumentHelp(
            "Credentials for hosts, in netrc format (default $IMGWARM_NETRC_FILE, else none).",
            discussion:
                "Checked before any download: a file libcurl cannot parse is a usage error (exit 2) naming the line; one others can write, or another user's, is used with a warning.",
            valueName: "file"),
        completion: .file())
    var netrcFile: String?

    @Flag(help: "Use credentials from ~/.netrc.")
    var netrc = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Retries of a transient failure (timeouts, resets, cut bodies, 408, 429, 5xx) (default \(Defaults.prefetch.retry.retries)).",
            valueName: "n"))
    var retries: Int?

    @Option(
        name: .customLong("retry-delay"), parsing: .unconditional,
        help: ArgumentHelp(
            "First back-off delay in seconds, doubling with jitter (default \(Defaults.seconds(Defaults.prefetch.retry.delay))).",
            valueName: "seconds"),
        transform: Parse.seconds("--retry-delay"))
    var retryDelay: Double?

    @Option(
        name: .customLong("max-retry-wait"), parsing: .unconditional,
        help: ArgumentHelp(
            "Longest wait before one retry, Retry-After included (default \(Defaults.seconds(Defaults.prefetch.retry.maxWait))).",
            valueName: "seconds"),
        transform: Parse.seconds("--max-retry-wait"))
    var maxRetryWait: Double?

    @Flag(name: .customLong("retry-failed"), help: "Request blacklisted URLs again.")
    var retryFailed = false

    @Flag(
        name: .customLong("replay-credentials"),
        help: "Also send the Cookie and Authorization headers a HAR capture recorded (never by default).")
    var replayCredentials = false

    @Option(
        name: .customLong("blacklist-ttl"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long a permanent failure stays on the blacklist, e.g. 12h, or never (default \(Defaults.prefetch.blacklistTTL.text)).",
            valueName: "age"),
        transform: Parse.expiry)
    var blacklistTTL: Expiry?

    @Flag(help: "Revalidate cached files with their stored ETag / Last-Modified (304 keeps the file, 200 replaces it).")
    var refresh = false

    @Option(
        name: .customLong("max-size"),
        help: ArgumentHelp(
            "For a cache the app trims to a size limit on its own (\(FormatHelp.prefetchFormats(taking: .maxSize))): warn when the run leaves it larger than this, e.g. 100M (default the library's: \(FormatHelp.prefetchMaxSizeDefaults)).",
            valueName: "size"),
        transform: Parse.size)
    var maxSize: UInt64?

    @OptionGroup(title: "State") var stateOptions: StateOptions

    @OptionGroup(title: "Cache keys and shards") var keyOptions: KeyFilterOptions
    @OptionGroup(title: "Cache keys and shards") var shardOptions: ShardOptions

    @Option(help: Defaults.reportHelp)
    var report: String?

    @Option(help: Defaults.metricsHelp)
    var metrics: String?

    @Flag(
        name: .customLong("dry-run"),
        help:
            "Say what the run would do with each line (would fetch, cached, invalid, blacklisted) without network or writes; exit 1 for lines the run could not store."
    )
    var dryRun = false

    @OptionGroup(title: "Output") var output: OutputOptions

    func run() throws {
        let locations = try location.locations()
        let source = try fromCache.source(targets: locations)
        // Several formats: each filled in turn, each URL requested once (Prefetch+Several.swift).
        guard locations.count == 1 else { return try prefetchSeveral(locations, source: source) }
        var location = locations[0]
        let policy = try formatPolicy(for: location.format)
        location.format = policy.format
        try OutputTargets.check(report: report, metrics: metrics, location: location, statePath: stateOptions.state)
        let metricsOutput = try MetricsOutput.open(metrics)
        let fanOut = try source.map { try Self.fanOut([location], source: $0) }
        let outcome = RunOutcome()
        do {
            try prefetch(location: location, maxSize: policy.maxSize, outcome: outcome, fanOut: fanOut)
        } catch {
            if let metricsOutput {
                metricsOutput.write(
                    metricsFile(outcome.summary, location: location), status: MetricsOutput.status(of: error),
                    location: location)
            }
            throw error
        }
    }

    /// What a run got to know, for `--metrics` whatever ends it.
    final class RunOutcome {
        var summary: PrefetchJob.Summary?
    }

    /// `maxSize`: the size limit the format's policy resolved (`formatPolicy`); `pass`: one
    /// format of several (`prefetchSeveral`).
    /// `fanOut`: one format seeded from `--from-cache`.
    func prefetch(
        location: CacheLocation, maxSize: UInt64?, outcome: RunOutcome, pass: SeveralPass? = nil,
        fanOut: FormatFanOut? = nil
    ) throws {
        let sources = listSources()
        var configuration = try configuration(environment: CurrentProcess.environment)
        configuration.maxSize = maxSize
        configuration.fanOut = pass?.fanOut ?? fanOut
        let reportFile = try pass != nil ? pass?.documents?.next() : report.map(ReportFile.openForCommand)
        ProcessTuning.keepHeapForBodies()
        // The handlers are in place since the first instruction (CImgwarmStart): this hands the
        // run their pipe, and sets SIGQUIT's handler again over the Swift runtime's backtracer.
        // A first stop signal stops the run cleanly, whenever it came; a second ends it at once.
        configuration.stop = pass?.stop ?? StopSource.installSignalHandlers()
        let console = PrefetchConsole(
            output: output, sources: sources, dryRun: dryRun, reportPath: report, offline: offline.offline,
            shard: configuration.shard)
        console.format = pass == nil ? nil : location.format.name
        console.linesSaid = !(pass?.first ?? true)
        // Said once, by the first format's run.
        if pass?.first ?? true { warnOfCredentials(configuration) }
        if dryRun && !FileSystem.exists(location.folder) && FileSystem.nonFolder(onPath: location.folder) == nil {
            // docs/usage.md: the read-only commands say so on a cache that does not exist, and change nothing.
            Console.warning("\(location.folder) does not exist yet: every URL would be fetched")
        }
        let job = PrefetchJob(location: location, sources: sources, configuration: configuration)
        job.observer = console
        let started = Timestamp.now()
        if let reportFile {
            job.report = PrefetchReport(
                file: reportFile,
                header: PrefetchReport.Header(
                    location: location, inputs: sources, configuration: configuration, startedAt: started,
                    severalFormats: pass != nil, copies: configuration.fanOut != nil))
        }

        let summary: PrefetchJob.Summary
        do {
            summary = try job.run()
            outcome.summary = summary
        } catch {
            console.clearProgress()
            throw CommandFailure(error)
        }
        do {
            try job.report?.finish(
                totals: summary.totals, finishedAt: .now(), startedAt: started, interrupted: summary.interrupted,
                error: summary.failureMessage, hosts: summary.hosts, listCut: summary.listCut)
        } catch  where error.readerWentAway {
            // `--report - | head`: the reader has what it wanted; the run's verdict stands.
        } catch {
            console.finish(summary)
            throw CommandFailure.cache(error.description)
        }
        console.finish(summary)
        throw exitStatus(summary)
    }

    /// The warnings of `--insecure` and of a netrc file others can write: under --quiet too, as
    /// warnings are (docs/usage.md), and these most of all: a cron job's mail is where they are read.
    private func warnOfCredentials(_ configuration: PrefetchJob.Configuration) {
        if insecure {
            Console.warning("--insecure: TLS certificates are not verified; anyone on the path can substitute images")
        }
        if let netrc = configuration.fetch.netrcFile, let warning = NetrcFile.unsafeOwnership(path: netrc) {
            Console.warning(warning)
        }
    }

    /// The exit code of a finished run (thrown, as every command's is, `.success` included).
    private func exitStatus(_ summary: PrefetchJob.Summary) -> Error {
        if let failure = summary.startFailure { return CommandFailure(failure) }
        if summary.interrupted { return ExitStatus.stopped(by: summary.signal) }
        if let failure = summary.stateFailure { return CommandFailure(halt: .stateFailure(failure)) }
        if let failure = summary.lockFailure { return CommandFailure(halt: .lockTimeout(failure)) }
        if let failure = summary.indexFailure { return CommandFailure(halt: .indexFailure(failure)) }
        if summary.diskFull { return ExitStatus.of(.diskFull) }  // the warning said so when it happened
        if dryRun {
            // Exit 1 for what the run certainly would not put in the cache (a would-fetch may succeed).
            let totals = summary.totals
            return totals.invalid + totals.failed + totals.blacklisted + totals.noBody > 0
                ? ExitStatus.partial : ExitStatus.success
        }
        return summary.totals.allInCache ? ExitStatus.success : ExitStatus.partial
    }
}
