import ImgwarmKit

/// What `imgwarm prefetch` prints on standard error: problems as they happen, progress (a live
/// bar on a terminal, or timestamped log lines), and a summary paragraph at the end. Standard
/// output stays for results.
///
/// `--quiet` (cron mails whatever a job prints): nothing on success, but every failed or invalid
/// line still gets its line, up to `quietLineLimit` and then one line with the count of the rest;
/// warnings and run-level errors are always printed. Quiet is loud on change: a URL that an
/// earlier run blacklisted and this one skips prints nothing (the run that blacklisted it said
/// so; it still counts, in the report and the exit status).
final class PrefetchConsole: PrefetchJob.Observer {
    /// Problem lines printed under `--quiet` before the rest are only counted.
    static let quietLineLimit = 50

    let output: OutputOptions
    let sources: [ListSource]
    let dryRun: Bool
    /// `--offline`: the summary says what was stored from recorded bodies, not downloaded.
    let offline: Bool
    let reportPath: String?
    private let progressMode: ProgressMode
    private let progressInterval: Double
    private var nextLogLine: Double
    private var progressShown = false
    /// `--progress bar`'s line, which keeps its shape while the terminal's width does.
    private var progressLine = ProgressLine()
    private var problemLines = 0
    private var unprintedProblems = 0
    private var retryFailedHinted = false

    /// This run's shard (`--shard`), which the summary names.
    let shard: Shard?
    /// Several formats in one run: the format this console speaks for, which its lines and
    /// summary name; nil for one format.
    var format: String?
    /// Several formats: the lists' own problems (invalid lines) were said by the first format's
    /// run; the others leave them out.
    var linesSaid = false

    init(
        output: OutputOptions, sources: [ListSource], dryRun: Bool, reportPath: String?, offline: Bool = false,
        shard: Shard? = nil
    ) {
        self.output = output
        self.shard = shard
        self.sources = sources
        self.dryRun = dryRun
        self.offline = offline
        self.reportPath = reportPath
        progressMode = output.resolvedProgress(stderrIsTerminal: Console.stderrIsTerminal)
        progressInterval = output.progressInterval ?? OutputOptions.defaultInterval
        nextLogLine = progressInterval
    }

    func prefetchDidFinish(_ result: EntryResult, source: ListSource) {
        // An unavailable host's URLs were announced once, by host (`prefetchHostUnavailable`):
        // only --verbose lists them one by one.
        if result.failure?.reason == .hostUnavailable && !(output.verbose && !output.quiet) { return }
        let problem = [.failed, .invalid, .blacklisted, .noBody].contains(result.outcome)
        guard problem || (output.verbose && !output.quiet) else { return }
        if output.quiet && result.outcome == .blacklisted { return }
        if linesSaid && result.outcome == .invalid { return }
        if problem && output.quiet {
            guard problemLines < PrefetchConsole.quietLineLimit else {
                unprintedProblems += 1
                return
            }
        }
        if problem { problemLines += 1 }
        print(
            PrefetchConsole.line(for: result, source: source, hintRetryFailed: hintRetryFailed(result), format: format))
    }

    /// True for the first blacklisted line of the run: it says how to request such URLs again.
    private func hintRetryFailed(_ result: EntryResult) -> Bool {
        guard result.outcome == .blacklisted, !retryFailedHinted else { return false }
        retryFailedHinted = true
        return true
    }

    /// The one line that tells what happened to `result`.
    static func line(for result: EntryResult, source: ListSource, hintRetryFailed: Bool, format: String? = nil)
        -> String
    {
        // Several formats: the format the line is about, after its place (`list.txt:3 [glide]`).
        let place = source.place(result.line) + (format.map { " [\($0)]" } ?? "")
        // Both when the key is not the URL (an explicit key or --key-filter).
        var url = Redaction.redact(result.url)
        if result.key != result.url && result.outcome != .invalid { url += " (key \(Redaction.redact(result.key)))" }
        let message = Redaction.redact(result.failure?.message ?? "")
        switch result.outcome {
        case .failed:
            let status = result.httpStatus.map { " (HTTP \($0))" } ?? ""
            let tries = result.attempts > 1 ? " after \(result.attempts) attempts" : ""
            return "\(place): \(url): \(result.failure?.reason.rawValue ?? "failed")\(status)\(tries): \(message)"
        case .invalid:
            return "\(place): invalid: \(message)"
        case .blacklisted:
            let hint =
                hintRetryFailed ? " (skipped without a request; --retry-failed requests blacklisted URLs again)" : ""
            return "\(place): \(url): blacklisted: \(message)\(hint)"
        case .noBody:
            return "\(place): \(url): no-body: \(message)"
        case .unsupported:
            return "\(place): \(url): unsupported: \(message)"
        default:
            var detail = result.outcome.rawValue
            if let format = result.format, let width = result.width, let height = result.height {
                detail += " \(format.rawValue) \(width)×\(height), \(Quantities.formatBytes(UInt64(result.bytes ?? 0)))"
            }
            return "\(place): \(url): \(detail)"
        }
    }

    func prefetchWarning(_ message: String) {
        clearProgress()
        Console.warning(message)
    }

    /// `--verbose`: a host's limit moved by half or more.
    func prefetchHostLimitChanged(_ change: HostLimitChange) {
        guard output.verbose && !output.quiet else { return }
        print("\(Redaction.redact(change.host)): limit \(change.from) → \(change.to) (\(change.cause))")
    }

    /// Printed under --quiet too: it stands for every failed URL of the host.
    func prefetchHostUnavailable(_ host: String, reason: String) {
        print(Redaction.redact(reason))
    }

    func prefetchHalted(_ reason: PrefetchJob.Halt) {
        prefetchWarning(
            "\(reason): no new downloads start; the run ends with exit code \(ExitStatus.of(reason).rawValue)")
    }

    func prefetchProgress(_ progress: PrefetchJob.Progress) {
        guard !progress.isFinal else { return }
        switch progressMode {
        case .bar:
            // The terminal's width is asked at every redraw, so a resized window is followed; a
            // line wider than the terminal would wrap, and every redraw would leave a stale line.
            let columns = ProcessTuning.standardErrorColumns() ?? 80
            Console.writeError("\r\u{1B}[K" + progressLine.line(for: progress, columns: columns))
            progressShown = true
        case .log:
            guard progress.elapsed >= nextLogLine else { return }
            while nextLogLine <= progress.elapsed { nextLogLine += progressInterval }
            Console.writeError("\(Timestamp.now().iso8601) imgwarm: \(ProgressLine.status(progress))\n")
        case .auto, .none:
            return
        }
    }

    func clearProgress() {
        if progressShown {
            Console.writeError("\r\u{1B}[K")
            progressShown = false
        }
    }

    /// The closing lines: the count of problems `--quiet` did not print, a warning when the lists
    /// held no URL (both always), then the summary paragraph (not under `--quiet`).
    func finish(_ summary: PrefetchJob.Summary) {
        clearProgress()
        let t = summary.totals
        if unprintedProblems > 0 {
            let whereListed =
                reportPath.map {
                    $0 == "-" ? "the report on standard output lists them all" : "the report lists them all: \($0)"
                }
                ?? "run with --report FILE to list them all"
            print("… and \(unprintedProblems) more failed or invalid lines; \(whereListed)")
        }
        if t.lines == 0 && !summary.interrupted {
            Console.warning("the lists hold no URL (only blank lines and # comments): nothing to do")
        }
        guard !output.quiet else {
            // A cut list is a warning under --quiet too: the counts a cron job's mail would show
            // are not the lists'.
            if let cut = summary.listCut { Console.warning(PrefetchConsole.cutText(cut, sources: sources)) }
            return
        }
        Console.writeError(
            PrefetchConsole.summaryText(
                summary, dryRun: dryRun, reportPath: reportPath, sources: sources, offline: offline, shard: shard,
                format: format) + "\n")
        if summary.storedStale > 0 { Console.writeError(PrefetchConsole.staleText(summary.storedStale) + "\n") }
    }

    /// The run's one line about stored entries the app's client goes to the network for.
    static func staleText(_ count: Int) -> String {
        let entries = count == 1 ? "1 stored response" : "\(count) stored responses"
        return
            "\(entries) will not be served offline: the headers stored with \(count == 1 ? "it make it" : "them make them") stale for OkHttp's CacheStrategy, so the app goes to the network for \(count == 1 ? "it" : "them") (imgwarm verify says which); \(Setting.freshness) AGE stores a max-age that keeps them fresh"
    }

    /// Where a signal stopped the reading of the lists, in words.
    static func cutText(_ cut: ListCut, sources: [ListSource]) -> String {
        let name = { (index: Int) in
            index < sources.count ? Console.listName(sources[index].path) : "list \(index + 1)"
        }
        var text =
            cut.linesRead == 0
            ? "the lists were cut short: nothing of \(name(cut.input)) was read"
            : "the lists were cut short: \(name(cut.input)) was read up to line \(cut.linesRead); the lines after it were not read"
        if !cut.inputsNotRead.isEmpty {
            text += ", nor \(cut.inputsNotRead.map(name).joined(separator: ", "))"
        }
        return text + " (they are in no count)"
    }

    static func summaryText(
        _ summary: PrefetchJob.Summary, dryRun: Bool, reportPath: String?, sources: [ListSource] = [],
        offline: Bool = false, shard: Shard? = nil, format: String? = nil
    ) -> String {
        let t = summary.totals
        // Several formats: one paragraph a format, each named (`imgwarm prefetch (glide): …`).
        let command = "imgwarm prefetch" + (format.map { " (\($0))" } ?? "")
        let seconds = Quantities.formatDecimal(summary.duration, digits: 2)
        // Lines that never started took no time: the rate counts the ones that finished.
        let finished = t.lines - t.notStarted - t.interrupted - t.otherShard
        let perSecond = summary.duration > 0 ? Double(finished) / summary.duration : 0
        // A slow run says "0.4 lines/s", not "0 lines/s".
        let rate = Quantities.formatDecimal(perSecond, digits: perSecond < 10 ? 1 : 0)
        var text: String
        if dryRun {
            text =
                "\(command) (dry run): \(Console.count(t.lines - t.otherShard, "line")): \(t.wouldFetch) would be \(offline ? "stored from recorded bodies" : "fetched"), "
                + (t.wouldCopy > 0 ? "\(t.wouldCopy) copied from another cache, " : "")
                + "\(t.cached) cached, \(t.blacklisted) blacklisted, \(t.invalid) invalid, "
                + "\(Console.count(t.duplicates, "duplicate"))"
                + (t.noBody > 0 ? ", \(t.noBody) no-body (nothing recorded to store)" : "")
                + (t.unsupported > 0 ? ", \(unsupportedText(t.unsupported))." : ".")
        } else {
            let inCache = t.downloaded + t.copied + t.cached + t.revalidated
            let urls = Console.count(t.lines - t.duplicates - t.otherShard - t.invalid, "URL")
            let revalidated = t.revalidated > 0 ? ", \(t.revalidated) revalidated" : ""
            // Several formats: stored from another format's bytes, with no request of their own.
            let copied = t.copied > 0 ? ", \(t.copied) copied from another cache" : ""
            let kinds =
                "(\(t.downloaded) \(offline ? "stored offline" : "downloaded")\(copied), \(t.cached) cached\(revalidated))"
            let unchecked = t.notStarted > 0 ? uncheckedReason(summary) : nil
            if let unchecked {
                // They were never looked up: they may well be in the cache (a hit needs the lock).
                text =
                    "\(command): \(t.notStarted) of \(urls) not checked (\(unchecked)); \(inCache) in the cache \(kinds); "
            } else {
                text = "\(command): \(inCache) of \(urls) in the cache \(kinds); "
            }
            var problems: [String] = []
            if t.failed > 0 {
                let classes = t.errorClasses.filter { $0.key != "invalid-url" && $0.key != "no-body" }.sorted {
                    $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key
                }
                .map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                problems.append("\(t.failed) failed (\(classes))")
            }
            if t.blacklisted > 0 {
                problems.append("\(t.blacklisted) blacklisted (skipped; --retry-failed requests them again)")
            }
            if t.invalid > 0 { problems.append("\(t.invalid) invalid") }
            if t.noBody > 0 { problems.append("\(t.noBody) no-body (nothing recorded to store)") }
            if t.duplicates > 0 { problems.append(Console.count(t.duplicates, "duplicate")) }
            if t.notStarted > 0 && unchecked == nil { problems.append("\(t.notStarted) not started") }
            if t.interrupted > 0 { problems.append("\(t.interrupted) interrupted") }
            let unsupported = t.unsupported > 0 ? "; \(unsupportedText(t.unsupported))" : ""
            if summary.startFailure != nil && !summary.interrupted {
                // Nothing was tried: no word of failures (a cron mail would read "nothing failed"
                // as success) and no figures; the error that follows names what and why.
                text = String(text.dropLast(2)) + (problems.isEmpty ? "" : "; " + problems.joined(separator: ", "))
                text += unsupported + "."
            } else {
                text += problems.isEmpty ? "nothing failed" : problems.joined(separator: ", ")
                text += unsupported
                text += "; \(Quantities.formatBytes(UInt64(max(0, t.bytesReceived)))) in \(seconds) s"
                text += finished > 0 && summary.duration > 0 ? " (\(rate) lines/s)." : "."
            }
        }
        if let shard {
            text += " Ran as \(Console.shardText(shard)): \(Console.count(t.otherShard, "line")) left to other shards."
        } else if t.otherShard > 0 {
            text += " \(Console.count(t.otherShard, "line")) left to other shards."
        }
        // A list named otherwise whose content is a HAR capture: its lines are its entries.
        for (given, read) in zip(sources, summary.inputs) where read.format == .har && given.effectiveFormat != .har {
            text += " \(Console.listName(given.path)) was read as a HAR capture (its content is one)."
        }
        if summary.interrupted {
            text +=
                " Interrupted by \(ExitStatus.signalName(summary.signal)): \(Console.count(t.notStarted + t.interrupted, "URL")) did not finish"
            if let cut = summary.listCut { text += "; " + cutText(cut, sources: sources) }
            text += "; run the same list again to complete it."
        }
        if let reportPath, reportPath != "-" { text += " Report: \(reportPath)." }
        return text
    }

    /// The lines no run stores for the app's library by default: not failures.
    static func unsupportedText(_ count: Int) -> String {
        "\(count) unsupported (SVG, which the app's library decodes only with a plugin; --accept-svg stores it)"
    }

    /// Why the URLs that did not start were never looked up, when a run-level problem stopped
    /// the run before them (not a signal: an interrupted run says so in its own words).
    private static func uncheckedReason(_ summary: PrefetchJob.Summary) -> String? {
        guard !summary.interrupted else { return nil }
        if summary.lockFailure != nil { return "the run could not take the cache lock" }
        switch summary.startFailure {
        case .state(.locked)?: return "the run could not take the state database's lock"
        case _?: return "the run could not start"
        case nil: return nil
        }
    }

    private func print(_ line: String) {
        clearProgress()
        Console.writeError("imgwarm: " + line + "\n")
    }
}
