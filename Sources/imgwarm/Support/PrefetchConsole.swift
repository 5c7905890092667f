import ImgwarmKit

#if canImport(Glibc)
import Glibc
#endif

/// What `imgwarm prefetch` prints on standard error: failures as they happen, a live progress
/// line on a terminal, and a summary paragraph at the end. Standard output stays for results.
final class PrefetchConsole: PrefetchObserver {
    let output: OutputOptions
    let sources: [ListSource]
    let dryRun: Bool
    private let showProgress: Bool
    private var progressShown = false

    init(output: OutputOptions, sources: [ListSource], dryRun: Bool) {
        self.output = output
        self.sources = sources
        self.dryRun = dryRun
        showProgress = !output.quiet && (Console.stderrIsTerminal || output.progress)
    }

    func prefetchDidFinish(_ result: EntryResult, source: ListSource) {
        guard !output.quiet else { return }
        let loud = result.outcome == .failed || result.outcome == .invalid || result.outcome == .blacklisted
        guard loud || output.verbose else { return }
        let place = "\(source.displayName):\(result.line)"
        // Both when the key is not the URL (an explicit key or --key-filter).
        var url = Redaction.redact(result.url)
        if result.key != result.url && result.outcome != .invalid { url += " (key \(Redaction.redact(result.key)))" }
        let message = Redaction.redact(result.failure?.message ?? "")
        switch result.outcome {
        case .failed:
            let status = result.httpStatus.map { " (HTTP \($0))" } ?? ""
            let tries = result.attempts > 1 ? " after \(result.attempts) attempts" : ""
            print("\(place): \(url): \(result.failure?.reason.rawValue ?? "failed")\(status)\(tries): \(message)")
        case .invalid:
            print("\(place): invalid: \(message)")
        case .blacklisted:
            print("\(place): \(url): blacklisted: \(message)")
        default:
            var detail = result.outcome.rawValue
            if let format = result.format, let width = result.width, let height = result.height {
                detail += " \(format.rawValue) \(width)×\(height), \(Quantities.formatBytes(UInt64(result.bytes ?? 0)))"
            }
            print("\(place): \(url): \(detail)")
        }
    }

    func prefetchWarning(_ message: String) {
        guard !output.quiet else { return }
        clearProgress()
        Console.warning(message)
    }

    func prefetchProgress(_ progress: PrefetchProgress) {
        guard showProgress, !progress.isFinal else { return }
        let totals = progress.totals
        let done = totals.lines
        let rate = progress.elapsed > 0 ? Double(done) / progress.elapsed : 0
        var text = "[\(done)/\(progress.total)] \(Quantities.formatDecimal(rate, digits: 0))/s, "
            + "\(Quantities.formatBytes(UInt64(max(0, totals.bytesReceived)))), \(totals.failed) failed"
        if rate > 0 && done < progress.total {
            let remaining = Double(progress.total - done) / rate
            text += ", ETA \(PrefetchConsole.clock(remaining))"
        }
        Console.writeError("\r\u{1B}[K" + text)
        progressShown = true
    }

    func clearProgress() {
        if progressShown {
            Console.writeError("\r\u{1B}[K")
            progressShown = false
        }
    }

    /// The closing paragraph.
    func finish(_ summary: PrefetchSummary, reportPath: String?) {
        clearProgress()
        guard !output.quiet else { return }
        let t = summary.totals
        let seconds = Quantities.formatDecimal(summary.duration, digits: 2)
        let rate = summary.duration > 0 ? Quantities.formatDecimal(Double(t.lines) / summary.duration, digits: 0) : "-"
        var text: String
        if dryRun {
            text = "imgwarm prefetch (dry run): \(t.lines - t.otherShard) lines: \(t.wouldFetch) would be fetched, \(t.cached) cached, "
                + "\(t.invalid) invalid, \(t.duplicates) duplicates."
        } else {
            let inCache = t.downloaded + t.cached + t.revalidated
            text = "imgwarm prefetch: \(inCache) of \(t.lines - t.duplicates - t.otherShard) URLs in the cache (\(t.downloaded) downloaded, "
                + "\(t.cached) cached\(t.revalidated > 0 ? ", \(t.revalidated) revalidated" : "")); "
            var problems: [String] = []
            if t.failed > 0 {
                let classes = t.errorClasses.filter { $0.key != "invalid-url" }.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                    .map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                problems.append("\(t.failed) failed (\(classes))")
            }
            if t.blacklisted > 0 { problems.append("\(t.blacklisted) blacklisted") }
            if t.invalid > 0 { problems.append("\(t.invalid) invalid") }
            if t.duplicates > 0 { problems.append("\(t.duplicates) duplicates") }
            if t.notStarted > 0 { problems.append("\(t.notStarted) not started") }
            text += problems.isEmpty ? "nothing failed" : problems.joined(separator: ", ")
            text += "; \(Quantities.formatBytes(UInt64(max(0, t.bytesReceived)))) in \(seconds) s (\(rate) lines/s)."
        }
        if t.otherShard > 0 { text += " \(t.otherShard) lines left to other shards." }
        if summary.interrupted {
            text += " Interrupted by \(summary.signal == SIGTERM ? "SIGTERM" : "SIGINT"): \(t.notStarted) URLs did not finish; run the same list again to complete it."
        }
        if let reportPath, reportPath != "-" { text += " Report: \(reportPath)." }
        Console.writeError(text + "\n")
    }

    private func print(_ line: String) {
        clearProgress()
        Console.writeError("imgwarm: " + line + "\n")
    }

    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let minutes = total / 60, rest = total % 60
        return "\(minutes):\(rest < 10 ? "0" : "")\(rest)"
    }
}
