import ArgumentParser
import ImgwarmKit

/// How the progress of a prefetch is shown on standard error.
enum ProgressMode: String, CaseIterable, Sendable {
    /// `bar` when standard error is a terminal, else nothing.
    case auto
    /// One self-updating line: a bar, percentage, done/total, rate, bytes, failures, ETA.
    case bar
    /// One plain, timestamped line every `--progress-interval` (CI logs are not terminals).
    case log
    /// No progress at all.
    case none
}

/// How much a command says on standard error.
struct OutputOptions: ParsableArguments {
    /// `--progress` when left out.
    static let defaultProgress = ProgressMode.auto
    /// `--progress-interval` when left out, in seconds.
    static let defaultInterval = 10.0

    @Flag(
        name: .shortAndLong,
        help:
            "Nothing on success: no progress, no summary. Every run still prints its failed URLs and invalid lines (the first 50, then their count), unavailable hosts, warnings and run-level errors. A URL that fails permanently is printed by the run that blacklists it; the runs that skip it print nothing."
    )
    var quiet = false

    @Flag(name: .shortAndLong, help: "Print one line per URL, successes included.")
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "Progress on standard error: auto (a bar when it is a terminal, else none), bar, log (a timestamped line every --progress-interval, for CI logs) or none (default \(OutputOptions.defaultProgress.rawValue)).",
            valueName: "mode"),
        completion: .list(ProgressMode.allCases.map(\.rawValue)),
        transform: Parse.progressMode)
    var progress: ProgressMode?

    @Option(
        name: .customLong("progress-interval"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds between two --progress log lines (default \(Defaults.seconds(OutputOptions.defaultInterval))).",
            valueName: "seconds"),
        transform: Parse.seconds("--progress-interval"))
    var progressInterval: Double?

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose contradict each other: use one") }
        if quiet, let progress, progress == .bar || progress == .log {
            throw ValidationError("--quiet shows no progress: drop --progress \(progress.rawValue) or --quiet")
        }
        if let progressInterval, progressInterval <= 0 {
            throw ValidationError("--progress-interval must be above 0, e.g. 10")
        }
    }

    /// The mode in force: `auto` resolved against standard error; `none` under `--quiet`.
    func resolvedProgress(stderrIsTerminal: Bool) -> ProgressMode {
        if quiet { return .none }
        switch progress ?? OutputOptions.defaultProgress {
        case .auto: return stderrIsTerminal ? .bar : .none
        case let mode: return mode
        }
    }
}
