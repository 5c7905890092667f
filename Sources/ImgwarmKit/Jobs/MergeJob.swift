import ImgwarmSystem

/// `imgwarm merge`: puts the entries of other caches of one format (the sources: per-machine
/// shards, docs/usage.md, "Running on many machines") into a destination cache, by the library's
/// own rules (docs/merge.md): each file with its modification and access times, the journal
/// listing every entry, an entry two caches hold decided by the format's clock (the newer wins).
///
/// Sources are only read, as untrusted folders (`MergeJob+Entries.swift`). Every source is checked
/// before the destination is touched: a missing or unreadable source, or one of another format,
/// leaves the destination as it was (not even created). The destination is opened as prefetch
/// opens its cache (`CacheStore`: created when absent) and changed entry by entry, each under the
/// cache lock held exclusively, through `CacheStore.store` (the file complete under its name before
/// the index lists it, in batches of at most a second as prefetch lists its stores): a stopped
/// merge leaves a cache the library reads, some entries missing (stored but not yet listed: the
/// library deletes such files), none half there. An entry the destination already holds
/// as the source holds it is left alone, so a second merge of the same sources changes nothing.
public final class MergeJob {
    public struct Configuration: Sendable {
        /// Say what would change and change nothing (no folder, lock or file is made). `false`
        /// by default.
        public var dryRun = false
        /// Seconds to wait for the destination's cache lock another process holds
        /// (`--lock-timeout`). `CacheLock.defaultTimeout` by default.
        public var lockTimeout = CacheLock.defaultTimeout
        /// A file larger than this is not copied (it is skipped, with why). `268435456` (256 MiB)
        /// by default.
        public var maxFileBytes = 256 << 20

        public init() {}
    }

    /// What became of one entry of a source.
    public enum Outcome: String, Sendable, CaseIterable {
        /// The destination had no such entry: it has the source's now.
        case added
        /// The destination's entry lost to the source's (an older clock): replaced.
        case replaced
        /// The destination's entry won (a newer or equal clock): left as it was.
        case kept
        /// The destination holds this entry exactly (same bytes and modification time).
        case unchanged
        /// Not copied: not a regular file, a name that is not plain, too large (`detail` says).
        case skipped
    }

    /// One entry of a source and what became of it.
    public struct Event: Sendable {
        /// Which source (its position among the sources given).
        public var source: Int
        /// The entry's name in the folder (the file a key names; Fresco's with its folders).
        public var name: String
        public var outcome: Outcome
        /// True when the destination held another copy of the entry (`replaced` or `kept`).
        public var conflict: Bool
        /// The entry file's size.
        public var size: UInt64
        /// Its clock (docs/merge.md); nil for a skipped entry.
        public var clock: Timestamp?
        /// Why it was skipped.
        public var detail: String?
    }

    /// The counts of a merge.
    public struct Totals: Sendable, Equatable {
        public var entries = 0
        public var added = 0
        public var replaced = 0
        public var kept = 0
        public var unchanged = 0
        public var skipped = 0
        /// Entries the destination held another copy of (`replaced` + `kept`).
        public var conflicts = 0
        /// The bytes of the entry files written (their companions not counted).
        public var bytesWritten: UInt64 = 0
        /// State records copied with the entries added or replaced (their validators).
        public var stateRecords = 0
        /// Blacklist entries written: a URL no database had, or a later failure than the
        /// destination's.
        public var blacklisted = 0
        /// State rows not copied: their URL's password digest was made with another database's
        /// salt, so they cannot be the destination's (docs/merge.md, "The state databases").
        public var stateSkipped = 0

        public init() {}

        mutating func count(_ event: Event) {
            entries += 1
            switch event.outcome {
            case .added: added += 1
            case .replaced: replaced += 1
            case .kept: kept += 1
            case .unchanged: unchanged += 1
            case .skipped: skipped += 1
            }
            if event.conflict { conflicts += 1 }
            if event.outcome == .added || event.outcome == .replaced { bytesWritten += event.size }
        }
    }

    /// A run-level problem; every one found before the destination changed leaves it as it was.
    public enum Error: Swift.Error, Sendable, CustomStringConvertible {
        /// The format's entries are not merged yet (its index names the entries: flutter's database).
        case unsupportedFormat(String)
        /// A source is the destination itself.
        case sourceIsDestination(String)
        /// There is no folder at a source's path.
        case missingSource(String)
        /// A source's folder holds files the format does not name so (a cache of another format):
        /// its path, up to three names, how many, the format's name shape.
        case otherFormat(String, names: [String], count: Int, format: String, shape: String)
        /// A source cannot be read: its path, why in words.
        case unreadableSource(String, String)
        /// The destination cannot be opened or written.
        case destination(CacheStoreError)
        /// The destination's index (its journal) could not be written.
        case index(CacheIndexError)
        /// Writing an entry failed (a full disk): the entries written before it are in.
        case store(String, StoreFailure)
        /// The destination's state database could not be written (the cache's entries are in).
        case state(StateError)
        case locked(CacheLock.Timeout)

        public var description: String {
            switch self {
            case .unsupportedFormat(let format):
                return
                    "merge does not yet merge \(format) caches (its index names the entries): nothing was changed"
            case .sourceIsDestination(let path):
                return "the source \(path) is the destination: name another folder"
            case .missingSource(let path):
                return "there is no cache folder at \(path): nothing was changed"
            case .otherFormat(let path, let names, let count, let format, let shape):
                let more = count > names.count ? " and \(count - names.count) more" : ""
                return
                    "\(path) is not a \(format) cache: \(names.joined(separator: ", "))\(more) do not have its entry names (\(shape)); nothing was changed"
            case .unreadableSource(let path, let why):
                return "cannot read the source \(path): \(why); nothing was changed"
            case .destination(let error): return error.description
            case .index(let error): return error.description
            case .store(let name, let failure): return "cannot store \(name): \(failure)"
            case .state(let error): return error.description
            case .locked(let timeout): return timeout.description
            }
        }
    }

    public let destination: CacheLocation
    public let sources: [CacheLocation]
    public let configuration: Configuration

    /// A merge of `sources` into `destination`, all of `destination`'s format.
    public init(destination: CacheLocation, sources: [CacheLocation], configuration: Configuration) {
        self.destination = destination
        self.sources = sources
        self.configuration = configuration
    }

    /// Whether merge takes `format`'s caches: one whose index names the entries
    /// (`EntryNamingIndex`) only when it can copy its rows (`RowCopyingIndex`).
    public static func isSupported(_ format: any CacheFormat) -> Bool {
        let index = CacheLocation(folder: "/", format: format).makeIndex()
        return !(index is any EntryNamingIndex) || index is any RowCopyingIndex
    }

    /// A source checked and read: its open folder, its index, its entries' names.
    struct Source {
        var location: CacheLocation
        var descriptor: FileDescriptor
        var index: (any CacheIndex)?
        var names: [String]
        var unsafeNames: [String]
        /// The index's rows by the file each names (`RowCopyingIndex`); empty without.
        var rows: [String: CacheIndexRow] = [:]
        /// Its state database (nil: none), its records by entry name, its blacklist.
        var state: StateStore?
        var records: [String: StateStore.Record] = [:]
        var blacklist: [StateStore.BlacklistEntry] = []
    }

    /// Checks every source, then merges them in the order given, telling `observe` of each entry.
    public func run(observe: (Event) -> Void) throws(Error) -> Totals {
        guard MergeJob.isSupported(destination.format) else { throw .unsupportedFormat(destination.format.name) }
        var opened: [Source] = []
        defer { for source in opened { source.descriptor.close() } }
        for location in sources { opened.append(try open(location)) }
        let target = try Target(destination, configuration: configuration)
        var totals = Totals()
        var winners: [(source: Int, event: Event)] = []
        func note(_ event: Event) {
            totals.count(event)
            observe(event)
        }
        for (position, source) in opened.enumerated() {
            for name in source.unsafeNames {
                note(
                    Event(
                        source: position, name: name, outcome: .skipped, conflict: false, size: 0, clock: nil,
                        detail: "its index names no plain name of the folder"))
            }
            for name in source.names {
                let event: Event
                do { event = try merge(name, from: source, position: position, into: target) } catch {
                    // What was stored before the failure is complete: the index lists it.
                    try? target.finish()
                    throw error
                }
                if event.outcome == .added || event.outcome == .replaced { winners.append((position, event)) }
                note(event)
            }
        }
        try target.finish()
        try mergeState(opened, winners: winners, into: &totals)
        return totals
    }

    /// The state databases (docs/merge.md): the record of each entry added or replaced, from
    /// the database of the source it came from (a replaced entry whose source has none loses the
    /// destination's, whose validators were the old copy's); the blacklists' union, the latest
    /// failure of a URL winning. Keys stay in the destination's URL identity: a row whose password
    /// digest another database's salt made is left out. One transaction, after the files.
    private func mergeState(_ sources: [Source], winners: [(source: Int, event: Event)], into totals: inout Totals)
        throws(Error)
    {
        let path = StateStore.defaultPath(for: destination)
        let hasRows =
            winners.contains { sources[$0.source].records[$0.event.name] != nil }
            || sources.contains { !$0.blacklist.isEmpty }
            || (winners.contains { $0.event.outcome == .replaced } && FileSystem.exists(path))
        guard hasRows else { return }
        let dryRun = configuration.dryRun
        var store: StateStore?
        do {
            store =
                dryRun
                ? try StateStore.openExisting(path: path)
                : try StateStore(path: path, busyTimeout: configuration.lockTimeout)
            if !dryRun { try store?.begin() }
            for (position, event) in winners {
                let source = sources[position]
                guard let state = source.state, var record = source.records[event.name] else {
                    if event.outcome == .replaced, !dryRun { try store?.removeRecord(fileName: event.name) }
                    continue
                }
                guard let key = StateStore.key(record.key, storedBy: state, for: store) else {
                    totals.stateSkipped += 1
                    continue
                }
                record.key = key
                if !dryRun { try store?.recordStored(record) }
                totals.stateRecords += 1
            }
            var latest: [String: StateStore.BlacklistEntry] = [:]
            for source in sources {
                guard let state = source.state else { continue }
                for var entry in source.blacklist {
                    guard let key = StateStore.key(entry.url, storedBy: state, for: store) else {
                        totals.stateSkipped += 1
                        continue
                    }
                    entry.url = key
                    if let held = latest[key], held.failedAt >= entry.failedAt { continue }
                    latest[key] = entry
                }
            }
            for key in latest.keys.sorted() {
                guard let entry = latest[key] else { continue }
                if let at = try store?.blacklistedAt(storedKey: key), at >= entry.failedAt { continue }
                if !dryRun { try store?.blacklist(entry) }
                totals.blacklisted += 1
            }
            if !dryRun { try store?.commit() }
        } catch {
            store?.rollback()
            throw .state(error)
        }
    }

    /// Checks `location` as a source and reads its index: nothing of the destination changes
    /// before every source passed.
    private func open(_ location: CacheLocation) throws(Error) -> Source {
        if location.folder == destination.folder { throw .sourceIsDestination(location.folder) }
        do {
            let info = try FileSystem.status(ofPath: location.folder)
            guard info.kind == .directory else { throw Error.unreadableSource(location.folder, "it is not a folder") }
            // The destination reached another way (a link, a bind mount) is the destination too.
            if let target = try? FileSystem.status(ofPath: destination.folder), target.device == info.device,
                target.inode == info.inode
            {
                throw Error.sourceIsDestination(location.folder)
            }
        } catch let error as Error {
            throw error
        } catch let error as SystemError {
            if error.isNotFound { throw .missingSource(location.folder) }
            if let file = FileSystem.nonFolder(onPath: location.folder) {
                throw .unreadableSource(location.folder, "\(file) is not a folder")
            }
            throw .unreadableSource(location.folder, error.description)
        } catch {
            throw .unreadableSource(location.folder, "\(error)")
        }
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.openFolder(location.folder) } catch {
            throw .unreadableSource(location.folder, error.description)
        }
        do {
            let foreign = try MergeJob.foreignNames(in: descriptor, format: location.format)
            if foreign.count > 0 {
                throw Error.otherFormat(
                    location.folder, names: foreign.names, count: foreign.count, format: location.format.name,
                    shape: location.format.entryNameShape)
            }
            let index = location.makeIndex()
            try index?.load()
            let (names, unsafe) = try MergeJob.entryNames(of: location, descriptor: descriptor, index: index)
            var source = Source(
                location: location, descriptor: descriptor, index: index, names: names, unsafeNames: unsafe)
            for row in try (index as? any RowCopyingIndex)?.copiedRows() ?? [] { source.rows[row.relativePath] = row }
            let statePath = StateStore.defaultPath(for: location)
            do {
                source.state = try StateStore.openExisting(path: statePath)
                source.records = try source.state?.recordsByFileName() ?? [:]
                source.blacklist = try source.state?.storedBlacklist() ?? []
            } catch {
                throw Error.unreadableSource(location.folder, "its state database \(statePath): \(error)")
            }
            return source
        } catch {
            descriptor.close()
            if let error = error as? Error { throw error }
            if let error = error as? CacheIndexError { throw .unreadableSource(location.folder, error.description) }
            throw .unreadableSource(location.folder, "\(error)")
        }
    }

    /// Merges entry `name` of `source` into the destination.
    private func merge(_ name: String, from source: Source, position: Int, into target: Target) throws(Error)
        -> Event
    {
        var event = Event(source: position, name: name, outcome: .skipped, conflict: false, size: 0, clock: nil)
        let entry: EntryFiles
        do {
            switch try MergeJob.readEntry(
                name, in: source.descriptor, index: source.index, limit: configuration.maxFileBytes)
            {
            case .files(let files): entry = files
            // Listed, but a file is gone since (another process's clean): nothing to copy.
            case .absent:
                event.detail = "a file of the entry is missing"
                return event
            case .refused(let why):
                event.detail = why
                return event
            }
        } catch {
            event.detail = "it cannot be read: \(error)"
            return event
        }
        event.size = entry.info.size
        // An index that keeps rows lists the entry under its row's key, with the row's clock.
        let row = source.rows[name]
        if source.index is any RowCopyingIndex && row == nil {
            event.detail = "no row of its index names it"
            return event
        }
        let copy = Held(entry, name: name, clock: row?.lastUsed ?? MergeJob.clock(of: entry, index: source.index))
        event.clock = copy.clock
        try target.withLock { () throws(Error) in
            switch target.existing(name, key: row?.key, limit: configuration.maxFileBytes) {
            case nil:
                event.outcome = .added
            case let held? where held.sameFiles(as: copy):
                event.outcome = .unchanged
                return
            case let held?:
                event.conflict = true
                // The newer wins; on a tie the destination's stays, so a merge run again changes nothing.
                guard copy.clock > held.clock else {
                    event.outcome = .kept
                    return
                }
                event.outcome = .replaced
            }
            try target.store(entry, as: name, held: copy, row: row)
        }
        return event
    }
}
