import ArgumentParser
import ImgwarmKit

/// `imgwarm blacklist list|remove|clear`: the persisted failed-URL list (docs/cache-contract.md §5).
struct Blacklist: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or edit the blacklist of URLs that failed permanently.",
        discussion: """
            A permanent failure (a 4xx other than 408 and 429, not an image, too large, a bad \
            redirect, a TLS error...) puts the URL on the blacklist; later prefetches skip it \
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

        /// Opens the state database when it exists, read-only unless `forWriting`, after a warning
        /// naming what is missing when it does not. Creates nothing either way.
        func openJob(forWriting: Bool) throws -> BlacklistJob {
            let location = try location.location()
            var configuration = BlacklistJob.Configuration()
            configuration.statePath = state.state
            configuration.lockTimeout = state.lockTimeout
            let job: BlacklistJob
            do {
                job = try BlacklistJob(location: location, configuration: configuration, forWriting: forWriting)
            } catch {
                throw CommandFailure.cache(error.description)
            }
            let path = job.statePath
            switch job.missing {
            case .stateDatabase:
                Console.warning(
                    "no state database at \(path): no prefetch has used this cache yet, so nothing is blacklisted")
            case .cacheAndStateDatabase:
                Console.warning(
                    "no cache at \(location.folder) and no state database at \(path): nothing is blacklisted")
            case nil:
                break
            }
            return job
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the blacklisted URLs, oldest failure first.",
            discussion: """
                Examples:
                  imgwarm blacklist list
                  imgwarm blacklist list --cache-format kingfisher
                  imgwarm blacklist list --json | jq -r '.entries[].url'
                """)

        @OptionGroup var options: Options

        @Flag(help: "Print JSON on standard output.")
        var json = false

        func run() throws {
            let job = try options.openJob(forWriting: false)
            let entries: [StateStore.BlacklistEntry]
            do { entries = try job.entries() } catch { throw CommandFailure.cache(error.description) }
            let report = BlacklistReport(statePath: job.statePath, stateExists: job.missing == nil, entries: entries)
            Console.output(json ? report.json() : Array(report.text().utf8))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take URLs off the blacklist (exit code 1 if one was not on it).",
            discussion: """
                Examples:
                  imgwarm blacklist remove https://cdn.example.com/fixed.jpg
                  imgwarm blacklist list --json | jq -r '.entries[].url' \\
                      | grep cdn.example.com | xargs imgwarm blacklist remove
                """)

        @OptionGroup var options: Options

        @Argument(
            help: ArgumentHelp(
                "The URLs, exactly as in the lists, or as 'blacklist list' shows them (a password as ***).",
                valueName: "url"))
        var urls: [String] = []

        func validate() throws {
            if urls.isEmpty { throw ValidationError("give at least one URL to remove") }
        }

        func run() throws {
            let job = try options.openJob(forWriting: true)
            var missing = 0
            for url in urls {
                let removal: BlacklistJob.Removal
                do { removal = try job.remove(url) } catch {
                    throw CommandFailure.cache(error.description)
                }
                switch removal {
                case .removed(let stored):
                    Console.writeError("removed \(Redaction.redact(stored))\n")
                case .notListed:
                    Console.error("\(Redaction.redact(url)) is not on the blacklist")
                    missing += 1
                case .ambiguous(let count):
                    Console.error(
                        "\(url) stands for \(count) blacklisted URLs with different passwords: give the one to remove "
                            + "with its password, or use 'imgwarm blacklist clear'")
                    missing += 1
                }
            }
            if missing > 0 { throw ExitStatus.partial }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Empty the blacklist.",
            discussion: """
                Examples:
                  imgwarm blacklist clear
                  imgwarm blacklist clear --state /data/imgwarm/state.sqlite
                """)

        @OptionGroup var options: Options

        func run() throws {
            let job = try options.openJob(forWriting: true)
            let count: Int
            do { count = try job.clear() } catch { throw CommandFailure.cache(error.description) }
            Console.writeError("removed \(count) entries from the blacklist\n")
        }
    }
}
