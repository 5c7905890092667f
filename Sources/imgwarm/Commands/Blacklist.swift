import ArgumentParser
import ImgwarmKit

/// `imgwarm blacklist list|remove|clear`: the persisted failed-URL list (SPEC §5).
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

        func open() throws -> StateStore {
            let location = try location.location()
            do {
                let store = try StateStore(path: state.path(for: location), busyTimeout: state.lockTimeout)
                if let aside = store.movedAside {
                    Console.warning("the state database was damaged: moved aside to \(aside) and rebuilt")
                }
                return store
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
            let store = try options.open()
            let entries: [StateStore.BlacklistEntry]
            do { entries = try store.blacklistEntries() } catch { throw CommandFailure.cache(error.description) }
            if json {
                var w = JSONWriter(pretty: true)
                w.beginObject()
                w.field("schemaVersion", 1)
                w.field("state", store.path)
                w.key("entries")
                w.beginArray()
                for entry in entries {
                    w.beginObject()
                    w.field("url", Redaction.redact(entry.url))
                    w.field("failedAt", Timestamp(seconds: Int64(entry.failedAt)).iso8601)
                    w.field("errorClass", entry.errorClass)
                    w.field("httpStatus", entry.httpStatus)
                    w.field("attempts", entry.attempts)
                    w.field("message", Redaction.redact(entry.message))
                    w.endObject()
                }
                w.endArray()
                w.endObject()
                Console.output(w.bytes)
                return
            }
            if entries.isEmpty {
                Console.output("The blacklist is empty.\n")
                return
            }
            var text = ""
            for entry in entries {
                let status = entry.httpStatus.map { " \($0)" } ?? ""
                text += "\(Timestamp(seconds: Int64(entry.failedAt)).iso8601)  \(entry.errorClass)\(status)  \(Redaction.redact(entry.url))\n"
                text += "    \(Redaction.redact(entry.message))\n"
            }
            Console.output(text)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take URLs off the blacklist (exit code 1 if one was not on it).")

        @OptionGroup var options: Options

        @Argument(help: ArgumentHelp("The URLs, exactly as in the lists.", valueName: "url"))
        var urls: [String] = []

        func validate() throws {
            if urls.isEmpty { throw ValidationError("give at least one URL to remove") }
        }

        func run() throws {
            let store = try options.open()
            var missing = 0
            for url in urls {
                let removed: Bool
                do { removed = try store.unblacklist(url) } catch { throw CommandFailure.cache(error.description) }
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
            let store = try options.open()
            let count: Int
            do { count = try store.clearBlacklist() } catch { throw CommandFailure.cache(error.description) }
            Console.writeError("removed \(count) entries from the blacklist\n")
        }
    }
}
