import ImgwarmSystem

/// `imgwarm verify`: will the app find these images? For each key of the lists (or each entry of
/// the folder without lists) the format's reader says hit or miss and why, and a hit's bytes must
/// be an image the library would decode; for the folder as a whole, the format says whether the
/// library would use it (docs/usage.md, "imgwarm verify").
///
/// Reads only: it creates, moves, locks and touches nothing, and reading a file does not move its
/// access time (`O_NOATIME`, or the access time put back where that is not allowed).
public final class VerifyJob {
    public struct Configuration: Sendable {
        /// How the key of a line without an explicit `"key"` is computed from its URL, as prefetch
        /// computes it (docs/cache-contract.md §6). No filter (the key is the URL) by default.
        public var keyFilters = KeyFilterChain()
        /// Check only the keys of this shard; the others are counted as `otherShard`. nil (every
        /// key) by default.
        public var shard: Shard?
        /// How a hit's bytes are checked: `.header` by default (the format's magic bytes, its
        /// structure, its header), never a full decode.
        public var validation = ValidationConfiguration()
        /// Files larger than this are judged by their magic bytes alone (the structure check needs
        /// the whole file in memory). `268435456` (256 MiB) by default.
        public var maxCheckedBytes = 256 << 20

        public init() {}
    }

    public typealias Check = Verification.Check
    public typealias InvalidLine = Verification.InvalidLine
    public typealias IgnoredEntry = Verification.IgnoredEntry
    public typealias Event = Verification.Event
    public typealias Totals = Verification.Totals
    public typealias Result = Verification.Result

    /// A run-level problem: nothing can be said of the keys.
    public enum Error: Swift.Error, Sendable, CustomStringConvertible {
        /// A list cannot be read (`code` is the errno value): a usage error.
        case unreadableInput(path: String, code: Int32)
        /// The folder is one the library uses, but imgwarm cannot read it.
        case unreadableFolder(String, SystemError)

        public var description: String {
            switch self {
            case .unreadableInput(let path, let code): return ListIngest.ReadError(path: path, code: code).description
            case .unreadableFolder(let path, let error): return "cannot read the cache folder \(path): \(error)"
            }
        }
    }

    public let location: CacheLocation
    public let sources: [ListSource]
    public let configuration: Configuration
    /// Checks a hit's bytes (`VerifyJob+Image`); ImageMagick starts only for a format without a
    /// header reader of imgwarm's own.
    let validator: ImageValidator
    /// The counts of the run under way.
    private var totals = Totals()
    /// The format's index as the library reads it (a journal), for a usable folder; nil for a
    /// plain-files cache (`VerifyJob+Index.swift`).
    var index: (any CacheIndex)?
    /// Why a key misses when there is no folder the library uses: no file, or (the folder is
    /// there, its index is not) no entry the index lists.
    private var missWithoutFolder = EntryMiss.absent

    /// A job over the keys of `sources`; without sources, over every entry of the folder.
    public init(location: CacheLocation, sources: [ListSource], configuration: Configuration) {
        self.location = location
        self.sources = sources
        var configuration = configuration
        configuration.validation.mode = .header
        // A file prefetch stored with `--accept-svg` is there for an app with the plugin.
        configuration.validation.acceptSVG = true
        self.configuration = configuration
        validator = ImageValidator(configuration: configuration.validation)
    }

    /// Judges the folder, then every key (or entry), telling `observe` of each as it goes; what
    /// it found of each is not kept. `opened` is told the lists' formats (a HAR by its content)
    /// once they are open, before any event.
    public func run(
        now: Timestamp = .now(), opened: ([ListSource]) -> Void = { _ in }, observe: (Event) -> Void
    ) throws(Error) -> Result {
        let format = location.format
        let verdict = format.judgeFolder(atPath: location.folder)
        var folder: FileDescriptor?
        if verdict == .usable {
            do {
                folder = try FileDescriptor.openFolder(location.folder)
            } catch {
                throw .unreadableFolder(location.folder, error)
            }
        }
        defer { folder?.close() }
        index = verdict == .usable ? loadIndex() : nil
        // Without its index the library lists nothing: every key misses as one it does not list.
        if case .empty = verdict { missWithoutFolder = .notIndexed } else { missWithoutFolder = .absent }
        totals = Totals()
        func count(_ event: Event) {
            switch event {
            case .checked(let check):
                totals.keys += 1
                switch check.read {
                case .hit: if check.staleSince == nil { totals.hits += 1 } else { totals.stale += 1 }
                case .miss where check.unsupported != nil: totals.unsupported += 1
                case .miss(let reason): totals.misses[reason, default: 0] += 1
                }
            case .invalid: totals.invalid += 1
            case .ignored: totals.ignored += 1
            }
            observe(event)
        }
        if sources.isEmpty {
            if let folder { try walk(folder, now: now, count) }
        } else {
            try readLists(folder, now: now, opened: opened, count)
        }
        var result = Result(totals: totals, folder: verdict, fromLists: !sources.isEmpty)
        let notFound = (totals.misses[.absent] ?? 0) + (totals.misses[.notIndexed] ?? 0)
        if !sources.isEmpty, let folder, notFound * 2 > totals.keys {
            result.folderEntries = countEntries(folder)
        }
        return result
    }

    // MARK: - Keys from lists

    private func readLists(
        _ folder: FileDescriptor?, now: Timestamp, opened: ([ListSource]) -> Void, _ observe: (Event) -> Void
    ) throws(Error) {
        let lists: [OpenedList]
        do {
            lists = try ListIngest.open(sources)
        } catch {
            throw .unreadableInput(path: error.path, code: error.code)
        }
        opened(lists.map(\.source))
        // Each key once: 8 bytes of its MD5 a key, as prefetch's duplicate check in memory.
        var seen = FingerprintSet()
        // A key the library refuses (`KeyRefusingFormat`) is an invalid line, as in prefetch.
        let refusing = location.format as? any KeyRefusingFormat
        for (index, list) in lists.enumerated() {
            /// One URL line: its key judged once (duplicates and other shards counted).
            func check(_ url: String, _ explicitKey: String?, unsupported: String?, line: Int) {
                let key = explicitKey ?? configuration.keyFilters.key(for: url)
                guard !key.isEmpty else {
                    let reason = "the key filters (\(configuration.keyFilters)) made the key of this URL empty"
                    let text = ListLine.display(ArraySlice(url.utf8))
                    observe(.invalid(InvalidLine(input: index, line: line, text: text, reason: reason)))
                    return
                }
                if let refusal = refusing?.refusal(forKey: key) {
                    let text = ListLine.display(ArraySlice(url.utf8))
                    observe(.invalid(InvalidLine(input: index, line: line, text: text, reason: refusal)))
                    return
                }
                let digest = MD5.digest(Array(key.utf8))
                if let shard = configuration.shard, !shard.owns(digest) {
                    totals.otherShard += 1
                } else if !seen.insert(digest) {
                    totals.duplicates += 1
                } else {
                    var check = judge(key: key, in: folder, now: now)
                    check.input = index
                    check.line = line
                    check.url = url
                    if !check.isHit { check.unsupported = unsupported }
                    observe(.checked(check))
                }
            }
            do {
                try ListIngest.read(list, index: index) {
                    (line, parsed) throws(Never) -> Bool in
                    switch parsed {
                    case .ignored:
                        break
                    case .invalid(let reason, let text):
                        observe(.invalid(InvalidLine(input: index, line: line, text: text, reason: reason)))
                    case .url(let url, let explicitKey, _), .file(let url, let explicitKey, _, _):
                        check(url, explicitKey, unsupported: nil, line: line)
                    case .unsupported(let url, let reason):
                        check(url, nil, unsupported: reason, line: line)
                    }
                    return true
                }
            } catch {
                switch error {
                case .read(let error): throw .unreadableInput(path: error.path, code: error.code)
                case .line(let never): switch never {}
                }
            }
        }
    }

    /// The check of one key: its file in `folder` (nil: no folder the library uses).
    func judge(key: String, in folder: FileDescriptor?, now: Timestamp) -> Check {
        let named = try? location.entryName(forKey: key, index: index)
        var check = Check(key: key, fileName: named ?? "", read: .miss(.absent))
        guard let folder else {
            check.read = .miss(missWithoutFolder)
            return check
        }
        // A format whose index names the entries (flutter_cache_manager) gives an unlisted key no name.
        guard let name = named else {
            check.read = .miss(.notIndexed)
            return check
        }
        let info: FileStatus
        do {
            info = try folder.status(of: name)
        } catch {
            if !error.isNotFound {
                check.read = .miss(.unreadable)
                check.detail = error.description
            }
            return check
        }
        judge(&check, info: info, in: folder, now: now)
        return check
    }

    /// The reader's verdict on the file `check.fileName` (`info` from `lstat`), then, for a hit,
    /// what the library makes of it (`HitJudgingIndex`: OkHttp's metadata and freshness) and
    /// whether its bytes are an image.
    func judge(_ check: inout Check, info: FileStatus, in folder: FileDescriptor, now: Timestamp) {
        check.read = location.format.read(info, now: now)
        guard case .hit = check.read else { return }
        if let miss = index?.check(check.fileName) {
            check.read = .miss(miss)
            if miss == .absent { check.detail = "another file of its entry is missing" }
            return
        }
        var note: String?
        var staleSince: Timestamp?
        if let judging = index as? any HitJudgingIndex {
            switch judging.judge(hit: check.fileName, now: now) {
            case .serves(let words): note = words
            case .stale(let since, let words): (staleSince, note) = (since, words)
            case .miss(let reason, let why):
                check.read = .miss(reason)
                check.detail = why
                return
            }
        }
        inspectImage(&check, size: info.size, in: folder)
        guard case .hit = check.read else { return }
        check.staleSince = staleSince
        if check.detail == nil { check.detail = note }
    }

    // MARK: - Entries of the folder

    private func walk(_ folder: FileDescriptor, now: Timestamp, _ observe: (Event) -> Void) throws(Error) {
        let format = location.format
        var seen = Set<String>()
        do {
            try FolderWalk.forEach(in: folder) { bytes, info in
                let name = String(decoding: bytes, as: UTF8.self)
                if let index, format.isEntryName(bytes: bytes), !index.isEntryFile(name) {
                    // The index itself, or a part of an entry: the folder's verdict covers them.
                    return
                }
                if index != nil { seen.insert(name) }
                if bytes.first == UInt8(ascii: ".") {
                    observe(.ignored(IgnoredEntry(name: name, kind: info.kind, reason: .hidden)))
                } else if !format.isEntryName(bytes: bytes) {
                    observe(.ignored(IgnoredEntry(name: name, kind: info.kind, reason: .notAnEntryName)))
                } else {
                    var check = Check(fileName: name, read: .miss(.absent))
                    judge(&check, info: info, in: folder, now: now)
                    observe(.checked(check))
                }
            }
        } catch {
            throw .unreadableFolder(location.folder, (error as? SystemError) ?? SystemError(code: 0))
        }
        reportListed(seen: seen, in: folder, now: now, observe)
    }

    /// The folder's entries: the index's listed ones, else the files with the format's names.
    private func countEntries(_ folder: FileDescriptor) -> Int {
        if let index { return index.listedNames.count }
        var count = 0
        let format = location.format
        try? FolderWalk.forEach(in: folder) { bytes, _ in
            if format.isEntryName(bytes: bytes) { count += 1 }
        }
        return count
    }
}
