import ArgumentParser
import ImgwarmKit

#if canImport(Glibc)
import Glibc
#endif

/// `imgwarm prefetch LIST...`: warm the cache from lists of image URLs (SPEC §4).
struct Prefetch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download, validate and store the images of one or more lists.",
        discussion: """
            Lists: one URL per line (blank lines and # comments ignored), or JSON Lines (.jsonl, \
            or --format jsonl) with "url" and an optional "key" and "priority" per line; - is \
            standard input. Each URL is its cache key exactly as written, unless its line gives a \
            "key" or --key-filter computes keys the way the app's cacheKeyFilter does; the key \
            names the file, the URL is fetched (and blacklisted). --shard K/N handles only the \
            lines of one shard of a fleet. A URL already in the cache is a \
            hit: no request, its access time is set. Every download is checked (2xx, complete, \
            within --max-bytes, an image whose format is recognised and whose header ImageMagick \
            reads within the pixel limits) and then stored atomically under SDWebImage's file name.

            Transient failures (timeouts, resets, 408, 429, 5xx) are retried with back-off \
            (--retries, --retry-delay, Retry-After up to --max-retry-wait). Any other failure \
            puts the URL on the blacklist: later runs skip it without a request until the entry \
            expires (--blacklist-ttl) or --retry-failed. --refresh revalidates cached files with \
            their stored ETag / Last-Modified. State lives in a SQLite database beside the cache \
            folder (--state).

            Invalid lines are reported with their line number and skipped; duplicates are fetched \
            once. Failures are printed on standard error as they happen (unless --quiet), and a \
            summary at the end; a live progress line appears when standard error is a terminal.

            Examples:
              imgwarm prefetch urls.txt
              imgwarm prefetch --concurrency 16 --report report.json feed.jsonl
              imgwarm prefetch home.txt --high hero.txt --low archive.txt
              generate-urls | imgwarm prefetch --quiet -
              imgwarm prefetch --key-filter drop-params:token,expires signed.txt
              imgwarm prefetch --shard "$((JOB_COMPLETION_INDEX + 1))/8" feed.txt
              # CI, before UI tests: fail the job if any image is missing
              imgwarm prefetch --disk-cache-path "$SIM_CACHES/com.hackemist.SDImageCache/default" \\
                  --report prefetch.json ci/images.txt

            \(ExitStatus.helpText)
            """)

    @OptionGroup(title: "Cache location") var location: CacheLocationOptions

    @Argument(help: ArgumentHelp("List files to read; - is standard input.", valueName: "list"))
    var lists: [String] = []

    @Option(name: .customLong("high"), help: ArgumentHelp("A list read at high priority (repeatable).", valueName: "list"))
    var highLists: [String] = []

    @Option(name: .customLong("low"), help: ArgumentHelp("A list read at low priority (repeatable).", valueName: "list"))
    var lowLists: [String] = []

    @Option(help: ArgumentHelp("The priority of the lists given as arguments: high, normal or low.", valueName: "priority"), transform: Parse.priority)
    var priority: Priority = .normal

    @Option(help: ArgumentHelp("How lists are read: auto (by extension), plain or jsonl.", valueName: "format"), transform: Parse.format)
    var format: ListFormat = .auto

    @Option(help: ArgumentHelp("Order within one priority: fifo or lifo.", valueName: "order"), transform: Parse.order)
    var order: ExecutionOrder = .fifo

    @Option(name: .shortAndLong, help: ArgumentHelp("Transfers in flight (default 6).", valueName: "n"))
    var concurrency = 6

    @Option(help: ArgumentHelp("Seconds without data (also for connecting) before giving up (default 15).", valueName: "seconds"), transform: Parse.seconds("--timeout"))
    var timeout = 15.0

    @Option(name: .customLong("max-time"), help: ArgumentHelp("Seconds one whole transfer may take, 0 for no limit (default 300).", valueName: "seconds"), transform: Parse.seconds("--max-time"))
    var maxTime = 300.0

    @Option(name: .customLong("max-bytes"), help: ArgumentHelp("Largest body stored, after decoding (default 50MiB).", valueName: "size"), transform: Parse.size)
    var maxBytes: UInt64 = 50 << 20

    @Option(name: .customLong("max-pixels"), help: ArgumentHelp("Largest image area, e.g. 100M or 8000x8000 (default 100M).", valueName: "pixels"), transform: Parse.pixels)
    var maxPixels = 100_000_000

    @Option(name: .customLong("max-redirects"), help: ArgumentHelp("Redirects followed, to http or https only (default 10).", valueName: "n"))
    var maxRedirects = 10

    @Option(name: .customLong("validate"), help: ArgumentHelp("How images are checked: header (ping) or full (decode every pixel).", valueName: "mode"), transform: Parse.validationMode)
    var validation: ValidationConfiguration.Mode = .header

    @Option(name: [.customShort("H"), .customLong("header")], help: ArgumentHelp("Add or replace a request header, 'Name: value' (repeatable).", valueName: "header"), transform: Parse.header)
    var headers: [String] = []

    @Option(name: .customLong("user-agent"), help: ArgumentHelp("The User-Agent (default imgwarm/\(ImgwarmVersion.current)).", valueName: "text"))
    var userAgent: String?

    @Flag(name: .customLong("http1.1"), help: "Use HTTP/1.1 even where the server offers HTTP/2.")
    var http11 = false

    @Option(help: ArgumentHelp("Trust the certificate authorities of this PEM file instead of the system's.", valueName: "file"))
    var cacert: String?

    @Flag(help: "Do not verify TLS certificates (prints a warning).")
    var insecure = false

    @Option(name: .customLong("netrc-file"), help: ArgumentHelp("Credentials for hosts, in netrc format (default $IMGWARM_NETRC_FILE).", valueName: "file"))
    var netrcFile: String?

    @Flag(help: "Use credentials from ~/.netrc.")
    var netrc = false

    @Option(help: ArgumentHelp("Retries of a transient failure (timeouts, resets, 408, 429, 5xx; default 2).", valueName: "n"))
    var retries = 2

    @Option(name: .customLong("retry-delay"), help: ArgumentHelp("First back-off delay in seconds, doubling with jitter (default 1).", valueName: "seconds"), transform: Parse.seconds("--retry-delay"))
    var retryDelay = 1.0

    @Option(name: .customLong("max-retry-wait"), help: ArgumentHelp("Longest wait before one retry, Retry-After included (default 30).", valueName: "seconds"), transform: Parse.seconds("--max-retry-wait"))
    var maxRetryWait = 30.0

    @Flag(name: .customLong("retry-failed"), help: "Request blacklisted URLs again.")
    var retryFailed = false

    @Option(name: .customLong("blacklist-ttl"), help: ArgumentHelp("How long a permanent failure stays on the blacklist: 7d (default), 12h, never.", valueName: "age"), transform: Parse.age)
    var blacklistTTL: Double?? = .some(7 * 86400)

    @Flag(help: "Revalidate cached files with their stored ETag / Last-Modified (304 keeps the file, 200 replaces it).")
    var refresh = false

    @OptionGroup(title: "State") var stateOptions: StateOptions

    @OptionGroup(title: "Cache keys and shards") var keyOptions: KeyFilterOptions
    @OptionGroup(title: "Cache keys and shards") var shardOptions: ShardOptions

    @Option(help: ArgumentHelp("Write a JSON report to this file, or - for standard output.", valueName: "file"))
    var report: String?

    @Flag(name: .customLong("dry-run"), help: "Read and classify the lists (would fetch, cached, invalid) without network.")
    var dryRun = false

    @OptionGroup(title: "Output") var output: OutputOptions

    func validate() throws {
        if lists.isEmpty && highLists.isEmpty && lowLists.isEmpty {
            throw ValidationError("give at least one list file, or - to read standard input")
        }
        if (lists + highLists + lowLists).filter({ $0 == "-" }).count > 1 {
            throw ValidationError("standard input (-) can be read only once")
        }
        guard (1...1024).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 1024") }
        guard (0...100).contains(maxRedirects) else { throw ValidationError("--max-redirects must be between 0 and 100") }
        guard (0...100).contains(retries) else { throw ValidationError("--retries must be between 0 and 100") }
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be above 0, e.g. 50MiB") }
        guard timeout > 0 else { throw ValidationError("--timeout must be above 0, e.g. 15") }
        if netrc && netrcFile != nil { throw ValidationError("--netrc and --netrc-file name two netrc files: use one") }
    }

    func run() throws {
        let location = try location.location()
        let environment = Environment.current
        var sources = lists.map { ListSource(path: $0, format: format, priority: priority) }
        sources += highLists.map { ListSource(path: $0, format: format, priority: .high) }
        sources += lowLists.map { ListSource(path: $0, format: format, priority: .low) }

        var configuration = PrefetchJob.Configuration()
        configuration.fetch.concurrency = concurrency
        configuration.fetch.timeout = timeout
        configuration.fetch.maxTime = maxTime
        configuration.fetch.maxBytes = Int(clamping: maxBytes)
        configuration.fetch.maxRedirects = maxRedirects
        configuration.fetch.headers = headers
        if let userAgent { configuration.fetch.userAgent = userAgent }
        configuration.fetch.http1Only = http11
        configuration.fetch.caCertificates = cacert
        configuration.fetch.insecure = insecure
        if netrc, let home = environment["HOME"] {
            configuration.fetch.netrcFile = home + "/.netrc"
        } else {
            configuration.fetch.netrcFile = netrcFile ?? environment["IMGWARM_NETRC_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        }
        try checkReadable(cacert, option: "--cacert")
        try checkReadable(configuration.fetch.netrcFile, option: "--netrc-file")
        configuration.validation.mode = validation
        configuration.validation.maxPixels = maxPixels
        configuration.order = order
        configuration.dryRun = dryRun
        configuration.retry.retries = retries
        configuration.retry.delay = retryDelay
        configuration.retry.maxWait = maxRetryWait
        configuration.retryFailed = retryFailed
        configuration.blacklistTTL = blacklistTTL ?? nil
        configuration.refresh = refresh
        configuration.statePath = stateOptions.state
        configuration.lockTimeout = stateOptions.lockTimeout
        configuration.keyFilters = keyOptions.chain
        configuration.shard = shardOptions.shard

        let reportFile = try report.map(ReportFile.openForCommand)
        ProcessTuning.keepHeapForBodies()
        // From here a first SIGINT/SIGTERM stops the run cleanly; a second one ends it at once.
        configuration.stop = StopSource.installSignalHandlers()
        let console = PrefetchConsole(output: output, sources: sources, dryRun: dryRun)
        if insecure && !output.quiet {
            Console.warning("--insecure: TLS certificates are not verified; anyone on the path can substitute images")
        }
        let job = PrefetchJob(location: location, sources: sources, configuration: configuration)
        job.observer = console
        let started = Timestamp.now()
        if let reportFile {
            job.report = PrefetchReport(file: reportFile, header: PrefetchReport.Header(
                cacheFolder: location.folder, inputs: sources, options: reportOptions(configuration), startedAt: started,
                dryRun: dryRun))
        }

        let summary: PrefetchSummary
        do {
            summary = try job.run()
        } catch PrefetchError.unreadableInput(let message) {
            console.clearProgress()
            throw CommandFailure.usage(message)
        } catch {
            console.clearProgress()
            throw CommandFailure.cache(error.description)
        }
        do {
            try job.report?.finish(totals: summary.totals, finishedAt: .now(), startedAt: started, interrupted: summary.interrupted)
        } catch {
            console.finish(summary, reportPath: nil)
            throw CommandFailure.cache(error.description)
        }
        console.finish(summary, reportPath: report)
        if summary.interrupted {
            throw summary.signal == SIGTERM ? ExitStatus.terminated : ExitStatus.interrupted
        }
        if let failure = summary.stateFailure {
            Console.error(failure.description)
            throw ExitStatus.cacheUnusable
        }
        if let failure = summary.lockFailure {
            Console.error(failure.description)
            throw ExitStatus.cacheUnusable
        }
        if summary.diskFull { throw ExitStatus.cacheUnusable }
        if !summary.totals.allInCache && !dryRun { throw ExitStatus.partial }
        if dryRun && summary.totals.invalid > 0 { throw ExitStatus.partial }
    }

    private func checkReadable(_ path: String?, option: String) throws {
        guard let path else { return }
        if access(path, R_OK) != 0 {
            throw CommandFailure.usage("\(option) \(path): \(SystemError.message(errno))")
        }
    }

    private func reportOptions(_ configuration: PrefetchJob.Configuration) -> [(String, PrefetchReport.OptionValue)] {
        let fetch = configuration.fetch
        return [
            ("concurrency", .int(fetch.concurrency)),
            ("order", .string(configuration.order.rawValue)),
            ("timeoutSeconds", .double(fetch.timeout)),
            ("maxTimeSeconds", .double(fetch.maxTime)),
            ("maxBytes", .int(fetch.maxBytes)),
            ("maxPixels", .int(configuration.validation.maxPixels)),
            ("maxRedirects", .int(fetch.maxRedirects)),
            ("validate", .string(configuration.validation.mode.rawValue)),
            ("http1Only", .bool(fetch.http1Only)),
            ("insecure", .bool(fetch.insecure)),
            ("userAgent", .string(fetch.userAgent)),
            // Header values can carry credentials: only their names are recorded.
            ("headers", .strings(fetch.headers.map { String($0.split(separator: ":", maxSplits: 1).first ?? "") })),
            ("retries", .int(configuration.retry.retries)),
            ("retryDelaySeconds", .double(configuration.retry.delay)),
            ("maxRetryWaitSeconds", .double(configuration.retry.maxWait)),
            ("retryFailed", .bool(configuration.retryFailed)),
            ("blacklistTTLSeconds", configuration.blacklistTTL.map { .double($0) } ?? .string(nil)),
            ("refresh", .bool(configuration.refresh)),
            ("keyFilters", .strings(configuration.keyFilters.specs)),
            ("shard", .string(configuration.shard?.description)),
        ]
    }
}
