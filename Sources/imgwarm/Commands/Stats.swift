import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `imgwarm stats`: the folder's entries and sizes (for SDWebImage its totalDiskSize / totalDiskCount),
/// the format's entries, and more.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the size, entry count, formats and dates of a disk cache.",
        discussion: """
            Entries and logical bytes count every entry of the folder at any depth, hidden ones \
            and subfolders included: for sdwebimage, SDWebImage's totalDiskCount and \
            totalDiskSize. \(Stats.layoutFolders)Format entries are the cache files named as \
            --cache-format names its entries (the others are foreign files, which make clean \
            refuse); for \(Stats.expiringFormats) it also says how many are expired, as the \
            library's reader decides (modification time at or before now). Allocated bytes are \
            what the entries take on disk (what clean --max-size counts for \
            \(Stats.allocatedFormats); the others count logical bytes). Formats are sniffed from \
            each cache file's first bytes, and dates are those of --expire-type. Reading the \
            files does not move their access times. Like clean, it refuses / and the home folder \
            (exit 2), even through a symbolic link: it would walk all of them. Several formats \
            (--cache-format sdwebimage,glide): a block a format, each as that format alone prints \
            it; --json: one document holding each format's document in "caches".

            Examples:
              imgwarm stats
              imgwarm stats --namespace avatars --json | jq .totals
              imgwarm stats --cache-format sdwebimage,glide --cache-dir seed

            \(ExitStatus.helpText)
            """)

    /// The formats whose layout folder is not counted, in a sentence (empty when none has one).
    static var layoutFolders: String {
        FormatHelp.grouped { ($0 as? any LayoutFolderFormat)?.layoutFolder }.map {
            "For \($0.names.joined(separator: ", ")), the folder \($0.text) and the folders in it are the library's layout, not entries: the files in them are counted. "
        }.joined()
    }

    static var expiringFormats: String {
        CacheFormats.all.filter { $0 is any ExpiryStampingFormat }.map(\.name).joined(separator: ", ")
    }

    static var allocatedFormats: String {
        CacheFormats.all.filter {
            if case .index = $0.cleanRules.expiry { return false }
            return $0.cleanRules.measure == .allocated
        }.map(\.name).joined(separator: ", ")
    }

    @OptionGroup var location: CacheLocationsOptions
    @OptionGroup var stateOptions: StateOptions

    @OptionGroup var expireOption: ExpireTypeOption
    var expireType: ExpireType { expireOption.expireType }

    @Flag(help: "Print JSON on standard output instead of text.")
    var json = false

    func run() throws {
        let locations = try location.locations()
        try stateOptions.refuseWithSeveral(locations)
        var texts: [String] = []
        var documents: [[UInt8]] = []
        for location in locations {
            let (stats, state) = try statistics(of: location)
            if let problem = state.problem { Console.warning(problem) }
            if json {
                documents.append(
                    StatsReport(location: location, expireType: expireType, statistics: stats, state: state).json())
            } else {
                texts.append(text(location: location, stats: stats, state: state))
            }
        }
        if json {
            Console.output(
                documents.count == 1
                    ? documents[0]
                    : JSONWriter.severalCaches(
                        schemaVersion: StatsReport.schemaVersion, command: "stats", documents: documents))
        } else {
            // Several formats: one block a format, as one format's stats prints it.
            Console.output(texts.joined(separator: "\n"))
        }
    }

    /// The statistics of one format's folder and its state.
    private func statistics(of location: CacheLocation) throws -> (DiskCache.Statistics, StateStore.Summary) {
        var configuration = StatsJob.Configuration()
        configuration.expireType = expireType
        configuration.statePath = stateOptions.state
        configuration.lockTimeout = stateOptions.lockTimeout
        if let home = CurrentProcess.environment["HOME"], !home.isEmpty {
            configuration.refusedFolders[CacheLocation.absolute(home)] = "the home folder"
        }
        do {
            let result = try StatsJob(location: location, configuration: configuration).run()
            return (result.statistics, result.state)
        } catch {
            if case .protectedFolder(let folder, let what) = error {
                throw CommandFailure.usage(
                    "refusing to read \(folder): it is \(what), not a disk cache folder, and stats would walk all of it; name the cache folder itself"
                )
            }
            throw CommandFailure.cache(error.description)
        }
    }

    private func text(location: CacheLocation, stats: DiskCache.Statistics, state: StateStore.Summary) -> String {
        var lines = ["Cache folder:   \(location.folder)\(stats.exists ? "" : " (does not exist yet)")"]
        let totals = stats.totals
        let format = location.format
        let names = format.statisticsNames
        let depth =
            (format as? any LayoutFolderFormat).map { "at any depth, \($0.layoutFolder) and its folders not counted" }
            ?? "at any depth"
        lines.append(
            "Entries:        \(totals.entries) (\(depth)\(names.map { ": " + $0.entries } ?? ""))")
        lines.append(
            "Size:           \(totals.logicalBytes) bytes, \(Quantities.formatBytes(totals.logicalBytes)) "
                + (names.map { "(\($0.size))" } ?? "(logical)")
                + "; \(Quantities.formatBytes(totals.allocatedBytes)) allocated")
        let formats = stats.formats.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        lines.append(
            "Cache files:    \(stats.files)"
                + (formats.isEmpty ? "" : ": " + formats.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        lines.append(
            "Format entries: \(stats.formatEntries) \(format.name) (\(format.entryNameShape))"
                + (stats.expiredEntries.map { ", \($0) expired" } ?? "")
                + (stats.foreignFiles > 0 ? "; \(Console.count(stats.foreignFiles, "foreign file"))" : ""))
        if let oldest = stats.oldest, let newest = stats.newest {
            lines.append(
                "\(expireType.rawValue.capitalized) dates:".padding(16)
                    + "oldest \(oldest.iso8601), newest \(newest.iso8601)")
        }
        if stats.hiddenEntries + stats.directories + stats.symlinks > 0 {
            lines.append(
                "Other entries:  \(stats.hiddenEntries) hidden, \(Console.count(stats.directories, "folder")), "
                    + Console.count(stats.symlinks, "symbolic link")
            )
        }
        if state.exists, state.problem != nil {
            // Its figures would read 0: the warning above says what is wrong with it.
            lines.append("State:          unusable, see the warning (\(state.path))")
        } else if state.exists {
            lines.append(
                "State:          \(Console.count(state.trackedKeys, "tracked key"))\(state.staleRows > 0 ? " (\(state.staleRows) stale)" : ""), \(state.blacklisted) blacklisted (\(state.path))"
            )
            if let run = state.lastRun {
                let t = run.totals
                lines.append(
                    "Last run:       \(run.command) at \(Timestamp(seconds: Int64(run.finishedAt)).iso8601): \(t.lines) lines, \(t.downloaded) downloaded, \(t.cached) cached, \(t.failed) failed, \(t.blacklisted) blacklisted\(run.interrupted ? ", interrupted" : "")"
                )
            }
        } else {
            lines.append("State:          none yet (\(state.path))")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
