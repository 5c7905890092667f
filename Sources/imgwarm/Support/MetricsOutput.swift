import ImgwarmKit
import ImgwarmSystem

/// `--metrics FILE` for `prefetch` and `clean`: opened before any work (a bad path is a usage
/// error), written once the run's exit code is known, whatever ended it.
struct MetricsOutput {
    let path: String
    let file: ReportFile

    /// Opens `path` (nil: no metrics) as `--report` opens its file, but a FIFO nobody reads is
    /// not waited for: the metrics are skipped with a warning, and the run goes on.
    static func open(_ path: String?) throws -> MetricsOutput? {
        guard let path else { return nil }
        do {
            return MetricsOutput(path: path, file: try ReportFile(path: path, waitingForReader: false))
        } catch {
            if error.reason == .system(.noReader) {
                Console.warning("--metrics \(path) is a FIFO nobody reads: no metrics are written this run")
                return nil
            }
            throw CommandFailure.usage(error.description)
        }
    }

    /// The exit code `error` ends the command with (what `Imgwarm.main` maps it to).
    static func status(of error: Error) -> Int32 {
        if let status = error as? ExitStatus { return status.rawValue }
        if let failure = error as? CommandFailure { return failure.status.rawValue }
        return ExitStatus.usage.rawValue
    }

    /// Writes `metrics` completed with the run's end, `status`, and the cache folder's totals
    /// (walked now; none when it does not exist). A metrics file that cannot be written is a
    /// warning: the run's own exit code stands.
    func write(_ metrics: MetricsFile, status: Int32, location: CacheLocation) {
        var metrics = metrics
        let previous = FileSystem.readSmallRegularFile(path, limit: 1 << 20)
        let totals = try? DiskCache(location: location).totals()
        metrics.addRunAndCache(
            finishedAt: .now(), exitStatus: status, succeeded: status == 0, previous: previous, cache: totals ?? nil)
        file.write(Array(metrics.text.utf8))
        do {
            try file.commit()
        } catch {
            Console.warning("--metrics: \(error.description)")
        }
    }
}
