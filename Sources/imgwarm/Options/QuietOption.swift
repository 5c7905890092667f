import ArgumentParser

/// `--quiet` for the commands that report what they moved (`pack`, `push`, `pull`): nothing on
/// success, as cron and CI jobs want; errors, and files that arrived other than packed, are
/// still printed.
struct QuietOption: ParsableArguments {
    @Flag(
        name: .shortAndLong,
        help: "Print nothing on success; errors (and, for push, files whose times differ) are still printed.")
    var quiet = false
}
