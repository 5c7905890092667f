import ArgumentParser
import ImgwarmKit

/// The defaults the help texts print, read from the engine's configuration values: each default
/// is defined once, there, and an option left out leaves the engine's value in place.
enum Defaults {
    /// `--report`'s help, the same for prefetch and clean (ReportFile).
    /// `--metrics`' help, the same for prefetch and clean (MetricsOutput).
    static let metricsHelp = ArgumentHelp(
        "Write the run's figures to this file in the Prometheus text format (node_exporter's textfile collector), at the end of the run.",
        discussion:
            "Outcome counts, bytes, duration, exit status, the end of the last run and of the last successful one, and the cache folder's entries and size after the run; written like --report (atomically; a device or FIFO is written into, but a FIFO nobody reads is skipped with a warning). Not inside the cache folder or imgwarm's own folder, nor the --report file.",
        valueName: "file")

    static let reportHelp = ArgumentHelp(
        "Write a JSON report to this file, or - for standard output.",
        discussion:
            "A new or existing file (of your user: another user's is refused) is replaced atomically, keeping its permissions, its missing folders made as mkdir -p would; a device or FIFO (/dev/null, a named pipe) is written into. Not inside the cache folder or imgwarm's own folder (exit 2).",
        valueName: "file")

    static let prefetch = PrefetchJob.Configuration()
    static let clean = CleanJob.Configuration()
    static let lockTimeout = CacheLock.defaultTimeout

    /// `100M` for 100,000,000 pixels.
    static func pixels(_ count: Int) -> String {
        for (unit, size) in [("G", 1_000_000_000), ("M", 1_000_000), ("K", 1_000)]
        where count >= size && count % size == 0 {
            return "\(count / size)\(unit)"
        }
        return "\(count)"
    }

    static func seconds(_ value: Double) -> String { Quantities.formatNumber(value) }

    /// `auto` or the number.
    static func concurrency(_ value: SlotPolicy.Configuration.Concurrency) -> String {
        switch value {
        case .auto: return "auto"
        case .fixed(let count): return "\(count)"
        }
    }

    /// `none`, or bytes per second as `2 MiB/s`.
    static func limitRate(_ bytesPerSecond: Int) -> String {
        bytesPerSecond > 0 ? Quantities.formatBytes(UInt64(bytesPerSecond)) + "/s" : "none"
    }

    /// `none`, or requests per second.
    static func requestRate(_ perSecond: Double) -> String {
        perSecond > 0 ? Quantities.formatNumber(perSecond) : "none"
    }
}
