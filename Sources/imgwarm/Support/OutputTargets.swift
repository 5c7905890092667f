import ImgwarmKit

/// The rules of `--report` and `--metrics` destinations, checked before any work (docs/usage.md):
/// each names a file, none lands inside the cache folder or imgwarm's own folder, and the two are
/// not one file. A breach is a usage error (exit 2).
enum OutputTargets {
    static func check(report: String?, metrics: String?, location: CacheLocation, statePath: String?) throws {
        for (option, path) in [("--report", report), ("--metrics", metrics)] {
            guard let path else { continue }
            if path.isEmpty {
                throw CommandFailure.usage("\(option) '' names no file: give a path, or - for standard output")
            }
            if path == "-" { continue }
            if let inside = location.forbiddenOutput(path, statePath: StateStore.path(statePath, for: location)) {
                throw CommandFailure.usage(
                    "\(option) \(path) is inside \(inside): imgwarm writes no report or metrics there; choose a path outside it"
                )
            }
        }
        if let report, let metrics,
            report == metrics || CacheLocation.canonical(report) == CacheLocation.canonical(metrics),
            report != "/dev/null"
        {
            throw CommandFailure.usage("--report and --metrics name the same file (\(metrics)): give each its own")
        }
    }
}
