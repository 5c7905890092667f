import ImgwarmKit
import ImgwarmSystem

/// The text `imgwarm verify` prints: one line per miss (per key with `--verbose`), invalid lines,
/// ignored entries, and a summary with the folder's verdict, on standard output (its results);
/// warnings and run-level errors on standard error. Keys and URLs are redacted as prefetch's
/// lines are, and control characters escaped as `imgwarm path` does.
final class VerifyConsole {
    let location: CacheLocation
    /// The lists, their formats told once they are open (`VerifyJob.run`'s `opened`).
    var sources: [ListSource]
    /// False when the JSON document goes to standard output: then no text goes there.
    let printsText: Bool
    let quiet: Bool
    let verbose: Bool
    /// The file that stands where the cache folder or one of its parents should be
    /// (`--cache-dir somefile`): the run says that once, as every command does, and prints no
    /// line per key (each would be a miss of no use). nil otherwise.
    let notAFolder: String?
    /// The keys' shard (`--shard`), which the summary names.
    let shard: Shard?
    /// True in a verify of several formats: each key's line names the format (`miss in glide:`).
    let namesFormat: Bool

    init(
        location: CacheLocation, sources: [ListSource], printsText: Bool, quiet: Bool, verbose: Bool,
        notAFolder: String? = nil, shard: Shard? = nil, namesFormat: Bool = false
    ) {
        self.shard = shard
        self.namesFormat = namesFormat
        self.location = location
        self.sources = sources
        self.printsText = printsText
        self.quiet = quiet
        self.verbose = verbose
        self.notAFolder = notAFolder
    }

    /// Prints what `event` calls for.
    func print(_ event: VerifyJob.Event) {
        if notAFolder != nil, case .checked = event { return }
        guard printsText, let line = line(for: event) else { return }
        Console.output(line + "\n")
    }

    /// The line for `event`; nil when this verbosity prints none.
    func line(for event: VerifyJob.Event) -> String? {
        switch event {
        case .checked(let check):
            guard check.isMiss || (check.unsupported != nil && !quiet) || verbose else { return nil }
            return VerifyConsole.line(for: check, sources: sources, format: namesFormat ? location.format.name : nil)
        case .invalid(let invalid):
            return "\(sources[invalid.input].place(invalid.line)): invalid: \(Redaction.redact(invalid.reason))"
        case .ignored(let entry):
            if quiet || (entry.reason == .hidden && !verbose) { return nil }
            let why =
                entry.reason == .hidden
                ? "hidden" : "not a \(location.format.name) entry name (\(location.format.entryNameShape))"
            return "\(EscapedText.escaped(entry.name)): ignored: \(why)"
        }
    }

    /// `list:line: key: miss: file: reason` (no `file: ` for a key without a file name), or without
    /// lists `file: miss: reason`; a hit `… hit: file (format, size)` with the library's note, a
    /// stale entry `… stale: file (format, size): stale since …` with how the app revalidates it.
    /// With `format` (a verify of several formats), the verdict says whose cache: `miss in glide:`.
    static func line(for check: VerifyJob.Check, sources: [ListSource], format: String? = nil) -> String {
        var head = ""
        if let input = check.input, let line = check.line { head += "\(sources[input].place(line)): " }
        if let key = check.key {
            var shown = EscapedText.escaped(Redaction.redact(key))
            if let url = check.url, url != key { shown += " (URL \(EscapedText.escaped(Redaction.redact(url))))" }
            head += shown + ": "
        }
        let file = EscapedText.escaped(check.fileName)
        let whose = format.map { " in \($0)" } ?? ""
        switch check.read {
        case .hit(let size):
            let format = check.imageFormat.map { "\($0.rawValue), " } ?? ""
            let note = check.detail.map { ": " + $0 } ?? ""
            return
                "\(head)\(check.verdict.rawValue)\(whose): \(file) (\(format)\(Quantities.formatBytes(UInt64(size))))\(note)"
        case .miss where check.unsupported != nil:
            // Not a miss: the library does not decode it without a plugin.
            return "\(head)unsupported\(whose): \(Redaction.redact(check.unsupported ?? ""))"
        case .miss(let reason):
            let detail = check.detail.map { ": " + Redaction.redact($0) } ?? ""
            // A format whose index names the files gives a key it does not list no file name.
            return
                "\(head)miss\(whose): \(file.isEmpty ? "" : file + ": ")\(reason.description)\(detail) (\(repair(reason, fromList: check.key != nil)))"
        }
    }

    /// The command that turns a miss into a hit, for its line: a prefetch of the same list into
    /// the same cache (prefetch takes a damaged or expired file for a miss too, and replaces it).
    static func repair(_ reason: EntryMiss, fromList: Bool) -> String {
        let prefetch = fromList ? "imgwarm prefetch of the same list" : "imgwarm prefetch of its URL"
        switch reason {
        case .folder: return "remove that folder, then \(prefetch) stores the file"
        case .unreadable: return "give imgwarm read access to check it; \(prefetch) replaces it"
        case .absent: return "\(prefetch) with the same cache options stores it"
        case .empty, .notAFile, .expired, .notAnImage, .notIndexed, .badMetadata:
            return "\(prefetch) with the same cache options stores it again"
        }
    }

    /// The summary and the folder's verdict; warnings for a folder the app would not use, for what
    /// its library may do at launch (`LaunchCaveatFormat`) and for lists without a URL, under
    /// `--quiet` too.
    func finish(_ result: VerifyJob.Result) {
        if let notAFolder, case .unusable = result.folder {
            // docs/usage.md: one error, the same for every command (the JSON has the verdict).
            Console.error("\(EscapedText.escaped(notAFolder)) is not a folder")
            return
        }
        let totals = result.totals
        let folder = EscapedText.escaped(location.folder)
        let library = location.format.library
        var verdict: String
        switch result.folder {
        case .usable:
            verdict = "\(library) uses the folder \(folder)"
        case .absent:
            verdict = "the cache folder does not exist: \(folder)"
            if !printsText || quiet { Console.warning("the cache folder does not exist: \(folder); every key misses") }
        case .empty(let why):
            verdict = "\(library) finds no entry in \(folder): \(why)"
            if !printsText || quiet { Console.warning("\(verdict); every key misses") }
        case .unusable(let why):
            verdict = "\(library) cannot use the cache folder \(folder): \(why)"
            Console.error(verdict)
        }
        // What the library may do to the folder at launch, which no look at the folder tells.
        if result.folder == .usable, let caveat = location.format as? any LaunchCaveatFormat {
            Console.warning(caveat.launchCaveat)
        }
        if result.fromLists && totals.keys + totals.duplicates + totals.otherShard == 0 {
            Console.warning("the lists hold no URL: nothing was checked")
        } else if !result.fromLists && result.folder == .usable && totals.keys == 0 {
            Console.warning(
                "\(folder) holds no \(location.format.name) entry (\(location.format.entryNameShape)): nothing was checked"
            )
        }
        guard printsText, !quiet else { return }
        let noun = result.fromLists ? "key" : "entry"
        let nouns = result.fromLists ? "keys" : "entries"
        var summary = "\(totals.keys) \(totals.keys == 1 ? noun : nouns): \(totals.hits) hit, "
        if totals.stale > 0 { summary += "\(totals.stale) stale, " }
        summary += "\(totals.missCount) missing"
        let reasons = EntryMiss.allCases.compactMap { reason in
            totals.misses[reason].map { "\($0) \(reason.rawValue)" }
        }
        if !reasons.isEmpty { summary += " (\(reasons.joined(separator: ", ")))" }
        if totals.invalid > 0 { summary += ", \(Console.count(totals.invalid, "invalid line"))" }
        if totals.duplicates > 0 { summary += ", \(Console.count(totals.duplicates, "duplicate"))" }
        if let shard {
            summary += ", \(totals.otherShard) of other shards (checked as \(Console.shardText(shard)))"
        } else if totals.otherShard > 0 {
            summary += ", \(totals.otherShard) of other shards"
        }
        if totals.unsupported > 0 {
            summary += ", \(totals.unsupported) unsupported (SVG; not counted as missing)"
        }
        if totals.ignored > 0 { summary += ", \(totals.ignored) ignored" }
        Console.output(summary + "; " + verdict + "\n")
        if result.keysLikelyDiffer, let entries = result.folderEntries {
            Console.output(
                "Most keys are not found, yet the folder holds \(entries) \(entries == 1 ? "entry" : "entries"): the app may compute its keys from the URLs another way (a cacheKeyFilter); run imgwarm keys detect with the same cache options and lists to find the --key-filter rule\n"
            )
        }
    }

    /// 3 when the library cannot use the folder; 1 when a key misses or is stale (the app goes to
    /// the network for it), a line is invalid or the folder does not exist; else 0.
    static func exitStatus(_ result: VerifyJob.Result) -> ExitStatus {
        switch result.folder {
        case .unusable: return .cacheUnusable
        case .absent, .empty: return .partial
        case .usable: return result.allHit ? .success : .partial
        }
    }
}
