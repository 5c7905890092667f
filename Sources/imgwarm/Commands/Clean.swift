import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `imgwarm clean`: SDWebImage's removeExpiredData on demand (docs/cache-contract.md §3).
struct Clean: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Expire and trim a disk cache the way its image library does (SDWebImage by default).",
        discussion: """
            Each format (--cache-format) is cleaned as its library cleans itself:
            \(FormatHelp.cleanRules)

            sdwebimage, in detail: the age pass deletes every cache file whose date \
            (--expire-type) is at or before now minus --max-age; then, if the allocated size of \
            the remaining files is strictly above --max-size, files are deleted oldest first \
            until it is strictly below half of --max-size. Left out, --max-age is \
            \(Defaults.clean.policy.maxAge.text) and --expire-type \
            \(Defaults.clean.policy.expireType.rawValue), so `clean --max-size 500M` also expires \
            week-old files. --max-age and --expire-type apply to \
            \(FormatHelp.formatsWithAge.joined(separator: ", ")) only.

            The formats with an index (\(FormatHelp.formatsWithIndex.joined(separator: ", "))) \
            are trimmed through it: the entries it lists go with their files, and --all removes \
            every entry it lists; entries the app is still writing and files the index does not \
            list are left to the library. For the others, hidden entries and subfolders are \
            neither deleted nor entered, symbolic links are never followed, and --all removes \
            every entry of the folder but subfolders (links are removed, never their targets).

            Guard: clean deletes only in a folder that looks like the format's disk cache, where \
            every file that is not hidden has one of its entry names:
            \(FormatHelp.entryNames)
            Otherwise it deletes nothing, names up to three foreign files and exits with code 2 \
            (--dry-run too); --force overrides that. It never cleans /, the home folder or a \
            caches root. A cache folder given as a symbolic link is followed; links inside it \
            never are.

            Several formats (--cache-format sdwebimage,glide, or the option repeated), each \
            folder under one caches root: each is cleaned in turn, in the order given, as a \
            clean of it alone cleans it and prints it (one cache lock at a time), with the \
            options its format takes and its own defaults for the others; an option is refused \
            only when no format given takes it. A format whose clean fails is said and the \
            others go on; the exit code is the worst. --report writes {"caches": [...]}, each \
            format's document; --metrics one file with each folder's samples; --state is refused.

            Sizes: bytes, or K M G T and KiB MiB GiB TiB (powers of 1024), KB MB GB TB (powers of \
            1000). Ages: s m h d w, 'never' or a negative value (no age pass), 0 (everything expires).

            Examples:
              imgwarm clean --max-size 500M
              imgwarm clean --max-age 30d --expire-type modification --report clean.json
              imgwarm clean --dry-run --max-size 1GiB --report - | jq '.removed[].name'
              imgwarm clean --cache-format sdwebimage,kingfisher --max-size 500M
              # cron, every night at 03:15:
              15 3 * * * /usr/local/bin/imgwarm clean --max-age 14d --max-size 2G --quiet

            \(ExitStatus.helpText)
            """)

    @OptionGroup var location: CacheLocationsOptions
    @OptionGroup var stateOptions: StateOptions

    @OptionGroup var expireOption: ExpireTypeOption

    @Option(
        name: .customLong("max-age"), parsing: .unconditional,
        help: ArgumentHelp(
            "\(FormatHelp.formatsWithAge.joined(separator: ", ")): delete files whose date is at least this old; units s m h d w, 0 for every file, never or a negative value for none (default \(Defaults.clean.policy.maxAge.text)).",
            valueName: "age"),
        transform: Parse.expiry)
    var maxAge: Expiry?

    @Option(
        name: .customLong("max-size"), parsing: .unconditional,
        help: ArgumentHelp(
            "Trim the cache to this size as its library does (the formats' rules above), e.g. 500M, 2GiB; 0 is none.",
            discussion:
                "Default: \(FormatHelp.maxSizeDefaults). Not for \(FormatHelp.formatsWithoutMaxSize.joined(separator: ", ")). No default for \(FormatHelp.formatsWithDeviceLimit.joined(separator: ", ")): the app's limit depends on the device (Picasso: 2 % of the disk within 5-50 MB); give the app's.",
            valueName: "size"),
        transform: Parse.size)
    var maxSize: UInt64?

    @Flag(
        help:
            "Clean even a folder whose files do not all have cache file names (never /, the home folder or a caches root)."
    )
    var force = false

    @Flag(name: .customLong("dry-run"), help: "Delete nothing; report what would be deleted.")
    var dryRun = false

    @Flag(
        help:
            "Delete every entry, whatever its date: those a format's index lists, with their files; else every entry of the folder but subfolders."
    )
    var all = false

    @Option(help: Defaults.reportHelp)
    var report: String?

    @Option(help: Defaults.metricsHelp)
    var metrics: String?

    @Flag(
        name: .shortAndLong,
        help: """
            Print nothing on success; a missing folder, files that cannot be deleted and run-level \
            errors are still printed.
            """)
    var quiet = false

    @Flag(
        name: .shortAndLong,
        help: "List every deleted file on standard error (control characters escaped as imgwarm path does).")
    var verbose = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose contradict each other: use one") }
    }

    /// The policies of this clean, one a format of `formats`, from the engine
    /// (`CleanOptions.policies(for:)`), which decides which option each format's rules take;
    /// resolved once, `run`'s first step. An option the rules do not take (with several formats:
    /// that none of them takes) is a usage error (exit 2), worded as `run`'s other usage errors
    /// are: one line a format that refuses it.
    func policies(for formats: [any CacheFormat]) throws(CommandFailure) -> [DiskCache.CleanPolicy] {
        let options = CleanOptions(expireType: expireOption.given, maxAge: maxAge, maxSize: maxSize, removeAll: all)
        do {
            return try options.policies(for: formats)
        } catch .notApplicableToAny(let refusals) {
            for refusal in refusals.dropLast() { Console.error(Self.message(refusal)) }
            throw CommandFailure.usage(refusals.last.map(Self.message) ?? "")
        } catch {
            throw CommandFailure.usage(Self.message(error))
        }
    }

    /// `error` in the words of the command line.
    static func message(_ error: CleanOptionError) -> String {
        switch error {
        case .removeAllWithLimit:
            return "--all empties the folder: drop --max-age and --max-size, or drop --all"
        case .notApplicable(let option, let expiry):
            let why: String
            switch expiry {
            case .index(let rule): why = rule
            case .stamped:
                why = "its files carry their own expiry date (the modification time), and clean removes those past it"
            case .none: why = "it expires nothing by age; clean only trims it to --max-size"
            case .age: why = "it applies to \(option.appliesTo.joined(separator: ", ")) only"
            }
            return "\(SettingFlags.flag(for: option.setting)) does not apply to \(option.format): \(why)"
        case .notApplicableToAny(let refusals):
            return refusals.map(message).joined(separator: "\n")
        }
    }

    func run() throws {
        let given = location.givenFormats
        let policies = try policies(for: given.isEmpty ? [location.format] : given)
        let locations = try location.locations()
        try stateOptions.refuseWithSeveral(locations)
        for location in locations {
            try OutputTargets.check(
                report: report, metrics: metrics, location: location, statePath: stateOptions.state)
        }
        let metricsOutput = try MetricsOutput.open(metrics)
        let reportFile = try report.map(ReportFile.openForCommand)
        // Several formats: one document of today's documents, one a format, in the given order.
        let several =
            locations.count > 1
            ? reportFile.map { SeveralDocuments(file: $0, schemaVersion: CleanReport.schemaVersion, command: "clean") }
            : nil
        var runs: [(metrics: MetricsFile, status: Int32, location: CacheLocation)] = []
        var failure: Error?
        var worst = ExitStatus.success
        // One format after another, each as a clean of it alone (one cache lock at a time). A
        // format whose clean fails is said, and the others go on: their folders are their own.
        for (location, policy) in zip(locations, policies) {
            var result: DiskCache.CleanResult?
            var duration = 0.0
            var status: Int32 = 0
            do {
                let file = several?.next() ?? reportFile
                try clean(
                    location: location, policy: policy, reportFile: file, embedded: several != nil, result: &result,
                    duration: &duration)
            } catch {
                status = MetricsOutput.status(of: error)
                if locations.count == 1 {
                    failure = error
                } else {
                    if let failure = error as? CommandFailure { Console.error(failure.message) }
                    if let exit = ExitStatus(rawValue: status), exit.rawValue > worst.rawValue { worst = exit }
                }
            }
            runs.append((metricsFile(result, duration: duration, location: location), status, location))
        }
        metricsOutput?.write(runs)
        if let failure { throw failure }
        try ReportFile.finishForCommand { () throws(ReportFile.OpenError) in try several?.finish() }
        if worst != .success { throw worst }
    }

    /// The clean figures (the run and cache ones are added by `MetricsOutput.write`).
    private func metricsFile(_ result: DiskCache.CleanResult?, duration: Double, location: CacheLocation) -> MetricsFile
    {
        var file = MetricsFile(command: "clean", cacheFolder: location.folder)
        file.gauge(
            "clean_removed_files", "Entries the last clean removed (or would have, with --dry-run), by reason.",
            [
                ([("reason", "expired")], Double(result?.expired ?? 0)),
                ([("reason", "trimmed")], Double(result?.trimmed ?? 0)),
                ([("reason", "cleared")], Double(result?.cleared ?? 0)),
            ])
        file.gauge("clean_removed_bytes", "Bytes the last clean removed.", Double(result?.removedLogicalBytes ?? 0))
        file.gauge("clean_failed_files", "Entries the last clean could not remove.", Double(result?.failed ?? 0))
        file.gauge("clean_duration_seconds", "How long the last clean ran.", duration)
        return file
    }

    /// Cleans one format's folder, its document written into `reportFile` (`embedded`: one of
    /// several formats', closed with the error when the clean fails).
    private func clean(
        location: CacheLocation, policy: DiskCache.CleanPolicy, reportFile: ReportFile?, embedded: Bool,
        result outcome: inout DiskCache.CleanResult?, duration: inout Double
    ) throws {
        var configuration = CleanJob.Configuration()
        configuration.policy = policy
        configuration.force = force
        configuration.protectedFolders = CacheLocation.protectedFolders(
            cacheDir: self.location.cacheDir, environment: CurrentProcess.environment)
        configuration.dryRun = dryRun
        configuration.statePath = stateOptions.state
        configuration.lockTimeout = stateOptions.lockTimeout

        let started = Timestamp.now()
        let document = reportFile.map {
            CleanReport(
                file: $0, location: location, policy: configuration.policy, dryRun: configuration.dryRun,
                startedAt: started, embedded: embedded)
        }
        let result: DiskCache.CleanResult
        do {
            // Removals and failures are reported as they happen; none is kept.
            result = try CleanJob(location: location, configuration: configuration).run(now: started) { event in
                document?.add(event)
                switch event {
                case .failed(let failure):
                    // The failed call names the file as the folder holds it: escaped, as the path is.
                    let error = SystemError(
                        code: failure.code, call: failure.call, path: EscapedText.escaped(failure.entry.name))
                    Console.error(
                        "cannot delete \(EscapedText.escaped(location.folder + "/" + failure.entry.name)): \(error)"
                    )
                case .removed(let removal):
                    guard verbose else { return }
                    Console.writeError(
                        "\(dryRun ? "would delete" : "deleted") \(EscapedText.escaped(removal.entry.name)) (\(removal.reason.rawValue), \(Quantities.formatBytes(removal.entry.allocatedSize)))\n"
                    )
                }
            }
        } catch {
            if embedded { document?.fail(error.description) }
            throw CommandFailure(message: error.description, status: .ofClean(error))
        }
        let finished = Timestamp.now()
        outcome = result
        duration = finished.secondsSinceEpoch - started.secondsSinceEpoch

        if let document {
            // `--report - | head`: the reader has what it wanted; the clean's verdict stands.
            try ReportFile.finishForCommand { () throws(ReportFile.OpenError) in
                try document.finish(result, startedAt: started, finishedAt: finished)
            }
        }
        printSummary(result, location: location)
        if result.failed > 0 { throw ExitStatus.cacheUnusable }
    }

    /// The one line a clean prints when the format has no default size limit (the app's depends
    /// on the device: `CleanRules.limitDependsOnDevice`) and no `--max-size` was given: its only
    /// pass had nothing to trim to.
    static func noLimitLine(_ format: any CacheFormat, maxSize: UInt64?, all: Bool, dryRun: Bool) -> String? {
        guard format.cleanRules.limitDependsOnDevice, maxSize == nil || maxSize == 0, !all else { return nil }
        return
            "\(format.name) has no default size limit (\(format.library)'s depends on the device), and no --max-size was given: nothing \(dryRun ? "would be" : "was") trimmed; give the app's Cache size (--max-size 50MB)"
    }

    private func printSummary(_ result: DiskCache.CleanResult, location: CacheLocation) {
        if let warning = result.stateWarning { Console.warning(warning) }
        if result.orderedByChangeTime {
            Console.warning(
                "the file system of \(location.folder) records no creation times: the size pass took the change time, which imgwarm sets when it stores or re-stamps a file, for \(location.format.library)'s creation date"
            )
        }
        // Said even under --quiet: a cron line with a mistyped folder would otherwise never be heard of.
        if !result.folderExists {
            Console.warning("\(location.folder) does not exist: nothing to clean")
            return
        }
        // Said even under --quiet: the index named something outside the folder.
        if let name = result.firstSkippedName {
            let more = result.skipped > 1 ? " and \(result.skipped - 1) more" : ""
            Console.warning(
                "\(location.format.library)'s index in \(location.folder) names '\(EscapedText.escaped(name))'\(more), not a file of the folder: \(dryRun ? "its entry would go" : "its entry went") from the index, and nothing was opened or deleted for it"
            )
        }
        if quiet { return }
        if let line = Clean.noLimitLine(location.format, maxSize: maxSize, all: all, dryRun: dryRun) {
            Console.writeError(line + "\n")
        }
        let verb = dryRun ? "would delete" : "deleted"
        let detail = all ? "" : " (\(result.expired) expired, \(result.trimmed) trimmed)"
        // Bytes as the format's size limit counts them: a DiskLruCache journal, Kingfisher, Fresco
        // and flutter count the files' lengths, SDWebImage and Nuke the blocks they take.
        let logical = location.format.cleanRules.measure == .logical
        let removed = logical ? result.removedLogicalBytes : result.removedAllocatedBytes
        // A journal's listed lengths where the pass counted them: the journal file is not an entry.
        let remaining = logical ? result.remainingCounted ?? result.after.logicalBytes : result.after.allocatedBytes
        Console.writeError(
            "imgwarm clean: \(verb) \(result.removedCount) files, \(Quantities.formatBytes(removed))\(detail); "
                + "\(result.after.entries) entries, \(Quantities.formatBytes(remaining)) remain in \(location.folder)"
                + (logical ? " (file sizes, as \(location.format.library) counts them; not disk blocks)\n" : "\n"))
    }
}
