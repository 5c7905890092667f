import ImgwarmKit

extension Prefetch {
    /// The prefetch figures (the run and cache ones are added by `MetricsOutput.write`).
    func metricsFile(_ summary: PrefetchJob.Summary?, location: CacheLocation) -> MetricsFile {
        var file = MetricsFile(command: "prefetch", cacheFolder: location.folder)
        let t = summary?.totals ?? PrefetchTotals()
        let counts: [(Outcome, Int)] =
            [
                (.downloaded, t.downloaded), (.cached, t.cached), (.revalidated, t.revalidated), (.failed, t.failed),
                (.blacklisted, t.blacklisted), (.invalid, t.invalid), (.duplicate, t.duplicates),
                (.wouldFetch, t.wouldFetch), (.notStarted, t.notStarted), (.interrupted, t.interrupted),
                (.noBody, t.noBody), (.unsupported, t.unsupported),
            ] + (t.copied > 0 ? [(.copied, t.copied)] : []) + (t.wouldCopy > 0 ? [(.wouldCopy, t.wouldCopy)] : [])
        file.gauge(
            "prefetch_lines", "Lines of the last prefetch by outcome.",
            counts.map { ([("outcome", $0.0.rawValue)], Double($0.1)) })
        file.gauge(
            "prefetch_received_bytes", "Body bytes the last prefetch stored (after content decoding).",
            Double(t.bytesReceived))
        file.gauge("prefetch_duration_seconds", "How long the last prefetch ran.", summary?.duration ?? 0)
        return file
    }
}
