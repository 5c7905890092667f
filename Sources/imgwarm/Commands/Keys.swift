import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `imgwarm keys detect`: which `--key-filter` rule made a cache pulled off a device
/// (docs/usage.md, "Apps with a cacheKeyFilter").
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find the cache key rule an app uses.",
        discussion: """
            Examples:
              imgwarm keys detect --cache-format kingfisher --cache-dir pulled feed.txt

            \(ExitStatus.helpText)
            """,
        subcommands: [Detect.self])

    struct Detect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find the --key-filter rule that maps the most URLs onto entries of a cache folder.",
            discussion: """
                Pull the cache off a device or simulator where the app ran (imgwarm pull, adb \
                exec-out run-as PACKAGE tar ..., xcrun simctl get_app_container) and give the URLs \
                the app loaded (URL \
                lines, JSON Lines or a HAR). The entry names are one-way digests, so keys detect \
                computes each URL's key under each candidate rule and looks its name up among the \
                folder's names (the index's listed names for a format with an index; the \
                database's keys for flutter). Candidates: the URL as given, strip-query, \
                scheme-host-path, drop-params and keep-params over the parameter names of the \
                list (searched by the structure of a sample of URLs, then greedily: never every \
                subset). It prints the winner as the exact --key-filter arguments, its hits and \
                those of the URL as given, then the URLs no rule explains with the nearest \
                explanation: another rule, or a normalisation --key-filter has no filter for \
                (scheme and host lower-cased, http and https swapped, a trailing /, \
                percent-encoding normalised), which the app's own cacheKeyFilter must then make. \
                It also tries SDWebImage's transformed keys (-Thumbnail(...) before the \
                extension) and Kingfisher's processed keys (@<processor identifier>) of a \
                built-in list of the libraries' processors and common sizes, on a few sampled \
                URLs, and names a form that hits with the rule under it: imgwarm writes no \
                processed key; warm with that rule, and the library processes the unprocessed \
                entry when the processed one misses (docs/usage.md, "Processed images").

                --json prints the JSON document (docs/keys-detect.schema.json) on standard \
                output instead.

                Reads only: nothing in the cache folder changes, not even an access time.

                Examples:
                  imgwarm keys detect --cache-format kingfisher --cache-dir pulled feed.txt
                  imgwarm keys detect --cache-format glide --cache-dir pulled session.har
                  imgwarm keys detect --json feed.jsonl | jq -r '.keyFilter[]'

                Exit codes:
                  0    a rule (or a rule under a processed form) explains at least half of
                       the URLs
                  1    the best rule explains fewer (or none)
                  2    usage error or a list that cannot be read: nothing was read
                  3    the cache folder or its index cannot be read
                  128+N  stopped by signal N: 130 SIGINT, 143 SIGTERM
                """)

        @OptionGroup var location: CacheLocationOptions

        @Argument(
            help: ArgumentHelp("List files the app's URLs are read from; - is standard input.", valueName: "list"),
            completion: .file())
        var lists: [String]

        @OptionGroup var listFormat: ListFormatOption

        @Flag(help: "Print the JSON document on standard output instead of text.")
        var json = false

        @Option(help: "Unexplained URLs to print (the JSON lists them all).")
        var limit = 20

        func validate() throws {
            if lists.filter({ $0 == "-" }).count > 1 {
                throw ValidationError("standard input (-) can be read only once")
            }
            if limit < 0 { throw ValidationError("--limit must be 0 or more") }
        }

        func run() throws {
            let location = try location.location()
            let sources = lists.map { ListSource(path: $0, format: listFormat.format ?? .auto) }
            if location.format.judgeFolder(atPath: location.folder) == .absent {
                // Most often a wrong path: say so, rather than only "0 of N URLs hit".
                Console.warning(
                    "\(location.folder) does not exist: no URL can hit; give the pulled cache's folder (--cache-dir or --disk-cache-path)"
                )
            }
            let result: KeysDetectJob.Result
            do {
                result = try KeysDetectJob(location: location, sources: sources).run()
            } catch {
                switch error {
                case .unreadableInput: throw CommandFailure.usage(error.description)
                case .unreadableFolder: throw CommandFailure.cache(error.description)
                }
            }
            if json {
                Console.output(
                    KeysDetectReport(
                        location: location, search: result.search, urls: result.urls, entries: result.entries,
                        withExtension: result.withExtension
                    ).json())
            } else {
                Console.output(Detect.text(result, limit: limit))
            }
            let explained = ([result.search.best] + result.search.processed.map(\.best)).map(\.hits).max() ?? 0
            if result.urls == 0 || explained * 2 < result.urls {
                throw ExitStatus.partial
            }
        }

        /// `--key-filter` arguments for `specs`, as a command line writes them.
        static func arguments(_ specs: [String]) -> String {
            specs.isEmpty ? "the URL as given" : specs.map { "--key-filter \($0)" }.joined(separator: " ")
        }

        static func text(_ result: KeysDetectJob.Result, limit: Int) -> String {
            let search = result.search
            var lines = [
                "\(search.best.hits) of \(result.urls) URLs hit with \(arguments(search.best.filters))"
                    + (search.best.filters.isEmpty ? "" : "; \(search.plainHits) with the URL as given")
                    + " (\(result.entries) \(result.entries == 1 ? "entry" : "entries") in the folder)"
            ]
            if let extended = result.withExtension, extended.hits > search.best.hits {
                lines.append(
                    "\(extended.hits) of \(result.urls) URLs hit with \(arguments(extended.filters)) when the names carry the key's path extension (Kingfisher's autoExtAfterHashedFileName, \(result.extensionNamed) such files): imgwarm writes names without it, so the app would not find what it stores"
                )
            }
            for found in search.processed {
                lines.append(
                    "\(found.best.hits) of \(result.urls) URLs hit as \(found.form.words) with \(arguments(found.best.filters)): "
                        + "imgwarm writes no processed key (its entry holds the image \(found.form.library.name) made, which imgwarm does not make); "
                        + "warm with \(arguments(found.best.filters)): \(found.form.library.fallback)")
            }
            for (words, count) in search.normalisations {
                lines.append(
                    "\(count) more hit with \(words): --key-filter has no filter for that; the app's cacheKeyFilter does it"
                )
            }
            // The misses of the best rule that something else explains are not "unexplained":
            // the lines above count them (normalisations, processed forms), or another rule does.
            let explained = search.unexplained.filter { $0.nearest != nil }
            let unexplained = search.unexplained.filter { $0.nearest == nil }
            if !explained.isEmpty {
                lines.append(
                    "\(Console.count(explained.count, "URL")) the rule misses \(explained.count == 1 ? "hits" : "hit") otherwise:"
                )
                for miss in explained.prefix(limit) {
                    switch miss.nearest {
                    case .normalised(let words)?: lines.append("  \(miss.url): hits with \(words)")
                    case .rule(let specs)?: lines.append("  \(miss.url): hits with \(arguments(specs))")
                    case .processed(let form, let specs)?:
                        lines.append("  \(miss.url): hits as \(form.words) with \(arguments(specs))")
                    case nil: break
                    }
                }
                if explained.count > limit { lines.append("  … and \(explained.count - limit) more") }
            }
            if !unexplained.isEmpty {
                lines.append("\(Console.count(unexplained.count, "URL")) unexplained (no rule and no form hits):")
                for miss in unexplained.prefix(limit) { lines.append("  \(miss.url)") }
                if unexplained.count > limit { lines.append("  … and \(unexplained.count - limit) more") }
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }
}
