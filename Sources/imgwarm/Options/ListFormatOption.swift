import ArgumentParser
import ImgwarmKit

/// `--format`: how the commands that read URL lists (prefetch, verify) read them.
struct ListFormatOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "How lists are read: auto (a HAR capture by its content, {\"log\": ...}, or by a .har name; .jsonl and .ndjson are JSON Lines), plain, jsonl or har (default auto).",
            valueName: "format"),
        completion: .list(ListFormat.allCases.map(\.rawValue)), transform: Parse.format)
    var format: ListFormat?
}
