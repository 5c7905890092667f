import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `imgwarm blacklist list|remove|clear`: the persisted failed-URL list (docs/cache-contract.md §5).
struct Blacklist: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or edit the blacklist of URLs that failed permanently.",
        discussion: """
            A permanent failure (a 4xx other than 408 and 429, not an image, too large, a bad \
            redirect, a TLS error…) puts the URL on the blacklist; later prefetches skip it \
            without a request until the entry expires (--blacklist-ttl, 7 days by default), a \
            prefetch with --retry-failed succeeds, or it is removed here.

            Examples:
              imgwarm blacklist list
              imgwarm blacklist list --json | jq -r '.entries[].url'
              imgwarm blacklist remove https://cdn.example.com/fixed.jpg
              imgwarm blacklist clear

            \(ExitStatus.helpText)
            """,
        subcommands: [List.self, Remove.self, Clear.self])

    struct Options: ParsableArguments {
        @OptionGroup var location: CacheLocationOptions
        @OptionGroup var state: StateOptions

        func statePath() throws -> String { state.path(for: try location.location()) }

        /// Opens the state database when it exists, read-only unless `forWriting`; nil (after a
        /// warning naming what is missing) when it does not. Creates nothing either way.
        func openExisting(forWriting: Bool) throws -> StateStore? {
            let location = try location.location()
            let path = state.path(for: location)
            guard FileSystem.existsFollowingLinks(path) else {
                let cacheExists = (try? FileSystem.status(ofPath: location.folder)) != nil
                Console.warning(
                    cacheExists
                        ? "no state database at \(path): no prefetch has used this cache yet, so nothing is blacklisted"
                        : "no cache at \(location.folder) and no state database at \(path): nothing is blacklisted")
                return nil
            }
            do {
                return try StateStore(path: path, busyTimeout: state.lockTimeout, readOnly: !forWriting)
            } catch {
                throw CommandFailure.cache(error.description)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the blacklisted URLs, oldest failure first.")

        @OptionGroup var options: Options

        @Flag(help: "Print JSON on standard output.")
        var json = false

        func run() throws {
            let store = try options.openExisting(forWriting: false)
            let entries: [StateStore.BlacklistEntry]
            do { entries = try store?.blacklistEntries() ?? [] } catch { throw CommandFailure.cache(error.description) }
            let report = BlacklistReport(
                statePath: try store?.path ?? options.statePath(), stateExists: store != nil, entries: entries)
            Console.output(json ? report.json() : Array(report.text().utf8))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take URLs off the blacklist (exit code 1 if one was not on it).")

        @OptionGroup var options: Options

        @Argument(help: ArgumentHelp("The URLs, exactly as in the lists.", valueName: "url"))
        var urls: [String] = []

        func validate() throws {
            if urls.isEmpty { throw ValidationError("give at least one URL to remove") }
        }

        func run() throws {
            let store = try options.openExisting(forWriting: true)
            var missing = 0
            for url in urls {
                let removed: Bool
                do { removed = try store?.unblacklist(url) ?? false } catch {
                    throw CommandFailure.cache(error.description)
                }
                if removed {
                    Console.writeError("removed \(Redaction.redact(url))\n")
                } else {
                    Console.error("\(Redaction.redact(url)) is not on the blacklist")
                    missing += 1
                }
            }
            if missing > 0 { throw ExitStatus.partial }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Empty the blacklist.")

        @OptionGroup var options: Options

        func run() throws {
            let store = try options.openExisting(forWriting: true)
            let count: Int
            do { count = try store?.clearBlacklist() ?? 0 } catch { throw CommandFailure.cache(error.description) }
            Console.writeError("removed \(count) entries from the blacklist\n")
        }
    }
}
