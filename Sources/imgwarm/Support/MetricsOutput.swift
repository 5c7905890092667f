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
        write([(metrics, status, location)])
    }

    /// Writes the figures of a run on several formats' folders in one file (`clean
    /// --cache-format a,b`), each completed as `write(_:status:location:)` completes one, with
    /// the status of its own format's part and the last success of its own folder (read from
    /// the samples the file held for that folder); each family once, with every folder's samples.
    func write(_ runs: [(metrics: MetricsFile, status: Int32, location: CacheLocation)]) {
        let previous = FileSystem.readSmallRegularFile(path, limit: 1 << 20)
        let files = runs.map { run in
            var metrics = run.metrics
            let totals = try? DiskCache(location: run.location).totals()
            let own =
                runs.count > 1 ? previous.map { MetricsFile.lines(ofCache: run.location.folder, in: $0) } : previous
            metrics.addRunAndCache(
                finishedAt: .now(), exitStatus: run.status, succeeded: run.status == 0, previous: own,
                cache: totals ?? nil)
            return metrics
        }
        file.write(Array(MetricsFile.text(of: files).utf8))
        do {
            try file.commit()
        } catch {
            Console.warning("--metrics: \(error.description)")
        }
    }
}
