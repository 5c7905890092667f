import ArgumentParser

/// How much a command says on standard error.
struct OutputOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print nothing but run-level errors.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Print one line per URL, successes included.")
    var verbose = false

    @Flag(help: "Show the live progress line even when standard error is not a terminal.")
    var progress = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose contradict each other: use one") }
    }
}
