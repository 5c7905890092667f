import ImgwarmSystem
import Synchronization

/// The DiskLruCache journal of one cache folder as imgwarm keeps it (docs/cache-formats-android.md):
/// read as the library reads it, never written when the library would not read it, and
/// changed only by appending the operations the library itself would append (`O_APPEND`, to the
/// file this process read), or by rewriting it as the library does when its own rule says so
/// (a new `journal.tmp` renamed over `journal`). It is read as a stream (`DiskLruJournal.Reader`):
/// only its entries are kept, never its bytes.
///
/// Every entry's files are complete under their names before the `CLEAN` line that lists them
/// exists; a hit gets the `READ` line the library's `get` writes. Lines are batched (at most a
/// second or `batchSize` lines) and written under `<private folder>/journal.lock`, after reading the
/// journal again if it is not the file this process last read or wrote, so what another process
/// wrote in between is kept.
public final class JournalIndex: ResponseCompanionsIndex, HitJudgingIndex, RevalidationUpdatingIndex, ReceivedClockIndex
{
    /// What differs between the libraries that keep this journal.
    public struct Layout: Sendable, Equatable {
        public var library: String
        public var header: DiskLruJournal.Header
        public var dialect: DiskLruJournal.Dialect
        /// The value that holds the image bytes (Glide `0`, Coil `1`); the others are written empty.
        public var dataIndex: Int
        /// When the library rewrites the journal (imgwarm compacts it by the same rule).
        public var rebuild: DiskLruJournal.RebuildRule = .redundantReachesEntries
        /// Hex digits in a key: 64 (a SHA-256: Glide, Coil), 32 (an MD5: OkHttp).
        public var keyLength = 64
        /// What the other values hold: nil, empty (Glide, Coil); else what the library writes
        /// of the response (OkHttp's entry metadata).
        public var companionWriter: (any JournalCompanionWriter)?

        public static func == (a: Layout, b: Layout) -> Bool {
            a.library == b.library && a.header == b.header && a.dialect == b.dialect && a.dataIndex == b.dataIndex
                && a.rebuild == b.rebuild && a.keyLength == b.keyLength
                && a.companionWriter?.kind == b.companionWriter?.kind
        }
    }

    public static let journalName = "journal"
    public static let temporaryName = "journal.tmp"
    public static let backupName = "journal.bkp"
    /// Lines that make a batch due before its second is up: each batch costs an `fsync` (about
    /// 0.1 s on a busy disk), so a fill of 2,000 entries a second makes about one a second.
    static let batchSize = 4096

    public let layout: Layout
    private let folder: String
    /// The cache folder.
    var folderPath: String { folder }
    private let lockPath: String
    private let state = Mutex(State())
    private let buffered = Mutex(0)

    /// The most bytes of one line held at once by any read of the journal (at most
    /// `DiskLruJournal.lineLimit`; for tests).
    public var mostBufferedLine: Int { buffered.withLock { $0 } }

    func noteBuffered(_ count: Int) { buffered.withLock { $0 = max($0, count) } }

    private struct State {
        var journal = DiskLruJournal()
        /// Which file the journal read or last written was, and whether lines can be appended to it.
        var file = JournalFile.none
        var loaded = false
        var pending: [Operation] = []
        var stored: Set<String> = []
        /// `listingFlushes`.
        var flushes = 0
        var lastFlush = Monotonic.now()
        /// This run wrote to the journal (its last flush then compacts by the library's rule).
        var wrote = false
    }

    private enum Operation {
        case clean(String)
        case read(String)
    }

    public init(location: CacheLocation, layout: Layout) {
        self.layout = layout
        folder = location.folder
        lockPath = location.privateFolder + "/journal.lock"
    }

    // MARK: Names

    /// The journal key of an entry file name (`<key>.<index>`), or nil.
    func key(of name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), Int(name[name.index(after: dot)...]) == layout.dataIndex else {
            return nil
        }
        return String(name[..<dot])
    }

    func path(_ name: String) -> String { CacheLocation.join(folder, name) }

    // MARK: Reading

    public func load() throws(CacheIndexError) {
        let (journal, file) = try currentJournal()
        state.withLock {
            $0.journal = journal
            $0.file = file
            $0.loaded = true
        }
    }

    /// The cache folder, open; nil when it does not exist (an empty cache).
    func openFolder() throws(CacheIndexError) -> FileDescriptor? {
        do { return try FileDescriptor.openFolder(folder) } catch {
            if error.isNotFound { return nil }
            throw .system(path: folder, error)
        }
    }

    // MARK: Hits and stores

    public func check(_ name: String) -> EntryMiss? {
        guard let key = key(of: name) else { return .notIndexed }
        let listed = state.withLock { $0.journal.isReadable(key) || $0.stored.contains(key) }
        guard listed else { return .notIndexed }
        for index in 0..<layout.header.valueCount where index != layout.dataIndex {
            guard let info = try? FileSystem.status(ofPath: path("\(key).\(index)"), followingLinks: false) else {
                return .absent
            }
            guard info.kind == .file else { return .notAFile }
        }
        return nil
    }

    public func companions(of name: String) -> [String] {
        guard let key = key(of: name) else { return [] }
        return (0..<layout.header.valueCount).filter { $0 != layout.dataIndex }.map { "\(key).\($0)" }
    }

    public func contents(ofCompanion companion: String, of name: String, response: CacheIndexResponse?) -> [UInt8] {
        layout.companionWriter?.contents(ofCompanion: companion, response: response) ?? []
    }

    public var updateLimit: Int { layout.companionWriter?.companionLimit ?? 0 }

    public func receivedAt(companion: [UInt8]) -> Timestamp? {
        layout.companionWriter?.receivedAt(companion: companion)
    }

    public func updated(companion: String, of name: String, stored: [UInt8], response: CacheIndexResponse) -> [UInt8]? {
        layout.companionWriter?.updated(companion: companion, stored: stored, response: response)
    }

    /// The library's reading of hit `name`'s first companion (OkHttp's `<key>.0`), read only up
    /// to the writer's `companionLimit` bytes.
    public func judge(hit name: String, now: Timestamp) -> HitJudgement {
        guard let writer = layout.companionWriter, let companion = companions(of: name).first else {
            return .serves(nil)
        }
        let limit = writer.companionLimit
        switch FileSystem.readRegularFile(atPath: path(companion), limit: limit) {
        case .bytes(let bytes): return writer.judge(hitWith: bytes, now: now)
        case .absent: return .miss(.absent, "its \(companion) is missing")
        case .other(let kind): return .miss(.notAFile, "its \(companion) is \(kind), not a regular file")
        case .tooLarge:
            return .miss(
                .badMetadata, "its \(companion) is larger than the \(limit) bytes imgwarm reads of an entry's metadata")
        case .unreadable(let error): return .miss(.unreadable, "its \(companion) cannot be read: \(error)")
        }
    }

    public func isEntryFile(_ name: String) -> Bool {
        guard let key = key(of: name) else { return false }
        return key.utf8.count == layout.keyLength && !key.contains(".")
    }

    /// A key whose file names are not plain names (`../x`) names no file of the folder: it is
    /// left out (`unsafeNames`).
    public var listedNames: [String] { readableNames.filter(FileDescriptor.isPlainName) }

    public var unsafeNames: [String] { readableNames.filter { !FileDescriptor.isPlainName($0) } }

    private var readableNames: [String] {
        state.withLock {
            $0.journal.openEntries.filter { $0.entry.readable }.map { "\($0.key).\(layout.dataIndex)" }
        }
    }

    public func didStore(_ name: String) {
        guard let key = key(of: name) else { return }
        state.withLock {
            $0.pending.append(.clean(key))
            $0.stored.insert(key)
        }
    }

    public func awaitsListing(_ name: String) -> Bool {
        guard let key = key(of: name) else { return false }
        return state.withLock { $0.stored.contains(key) }
    }

    public var listingFlushes: Int { state.withLock { $0.flushes } }

    public func didRead(_ name: String) {
        guard let key = key(of: name) else { return }
        state.withLock { $0.pending.append(.read(key)) }
    }

    public var accountedBytes: UInt64 {
        state.withLock { UInt64(max(0, $0.journal.openSize)) }
    }

    // MARK: Writing

    /// During a run a batch compacts the journal only when it reaches Glide's bound (2,000
    /// redundant lines and the entry count), whichever library keeps it: Coil's rule (2,000 alone)
    /// would rewrite a journal of 100,000 entries every 2,000 hits, and Coil reads a longer one
    /// as it is (and rewrites it itself at its next write). The run's last flush (`force`)
    /// compacts by the library's own rule, so the journal a run leaves is one the library would
    /// not rewrite (docs/cache-formats-android.md, "Appending and compacting").
    public func flush(force: Bool, lockTimeout: Double) throws(CacheIndexError) {
        // The batch's lines are written under the state's lock, and flushed to disk after it.
        let unsynced = UnsyncedAppend()
        defer { unsynced.file?.close() }
        try state.withLock { (state: inout State) throws(CacheIndexError) in
            let rule = force ? layout.rebuild : .redundantReachesEntries
            let compactOnly = force && state.wrote && state.journal.needsRebuild(rule)
            guard !state.pending.isEmpty || compactOnly else { return }
            if !force && state.pending.count < JournalIndex.batchSize && Monotonic.now() - state.lastFlush < 1 {
                return
            }
            guard let lock = try takeLock(timeout: force ? lockTimeout : 0, required: force) else { return }
            defer {
                lock.unlock()
                lock.close()
            }
            let directory: FileDescriptor
            do throws(SystemError) { directory = try FileDescriptor.openFolder(folder) } catch {
                throw .system(path: folder, error)
            }
            defer { directory.close() }
            // The journal is moved out of the state, not copied: changing a copy would copy every
            // entry (the dictionary's copy on write), once a batch. When the batch fails, the state
            // gets it back with the file marked unknown, so the next flush reads the file again.
            var known = (journal: state.journal, file: state.file)
            state.journal = DiskLruJournal()
            var written = false
            defer {
                if !written {
                    state.journal = known.journal
                    state.file = .none
                }
            }
            // A journal another process replaced or appended to is read again (at most a few
            // times: each pass appends only if the file is still the one read).
            for _ in 0..<4 {
                if known.file.identity == nil || known.file.identity != Identity.of(directory) {
                    known = try currentJournal(in: directory)
                }
                let added = lines(for: state.pending, in: known.journal)
                guard
                    let file = try write(
                        added, to: &known.journal, known: known.file, in: directory, rule: rule, unsynced: unsynced)
                else {
                    known.file = .none
                    continue
                }
                written = true
                state.journal = known.journal
                state.file = file
                state.wrote = true
                state.pending.removeAll()
                state.stored.removeAll()
                state.flushes += 1
                state.lastFlush = Monotonic.now()
                return
            }
            throw .notUsed(
                path: path(JournalIndex.journalName), reason: "another process kept changing it while imgwarm appended")
        }
        try unsynced.synchronize(path: path(JournalIndex.journalName))
    }

    /// The lines a batch adds to `journal`: `READ` for a hit on an entry it lists, `CLEAN` for a
    /// stored entry whose every value file is still there (a clean may have run since).
    private func lines(for pending: [Operation], in journal: DiskLruJournal) -> [UInt8] {
        var lines = ""
        var readable = Set<String>()
        for operation in pending {
            switch operation {
            case .read(let key):
                if journal.isReadable(key) || readable.contains(key) { lines += "READ \(key)\n" }
            case .clean(let key):
                var lengths: [String] = []
                for index in 0..<layout.header.valueCount {
                    guard let info = try? FileSystem.status(ofPath: path("\(key).\(index)"), followingLinks: false),
                        info.kind == .file
                    else { break }
                    lengths.append(String(info.size))
                }
                guard lengths.count == layout.header.valueCount else { continue }
                lines += "CLEAN \(key) \(lengths.joined(separator: " "))\n"
                readable.insert(key)
            }
        }
        return Array(lines.utf8)
    }

    /// The index lock, exclusive; nil when `required` is false and another process holds it.
    func takeLock(timeout: Double, required: Bool) throws(CacheIndexError) -> FileDescriptor? {
        let lock: FileDescriptor
        do { lock = try FileDescriptor.openOrCreate(lockPath) } catch { throw .system(path: lockPath, error) }
        do {
            try lock.lock(exclusive: true, timeout: timeout)
        } catch {
            lock.close()
            guard required else { return nil }
            throw .locked(
                CacheLock.Timeout(
                    path: lockPath, seconds: timeout, exclusive: true, holders: FileSystem.lockHolders(ofPath: lockPath)
                ))
        }
        return lock
    }

    /// Names the files of `key`, in value order.
    func fileNames(of key: String) -> [String] {
        (0..<layout.header.valueCount).map { "\(key).\($0)" }
    }
}

/// What a journal's companion values hold (OkHttp's `<key>.0` metadata), from the response the
/// entry was stored from.
public protocol JournalCompanionWriter: Sendable {
    /// Names the writer, for `Layout`'s equality.
    var kind: String { get }
    /// The bytes of `companion` (`<key>.<index>`) for an entry stored from `response`.
    func contents(ofCompanion companion: String, response: CacheIndexResponse?) -> [UInt8]

    /// The most bytes of a companion `judge(hitWith:now:)` is given; a larger one is a miss.
    var companionLimit: Int { get }

    /// What the library does with a hit whose first companion holds `companion` at `now`
    /// (OkHttp: whether it can read it, whether it serves it offline and until when).
    func judge(hitWith companion: [UInt8], now: Timestamp) -> HitJudgement

    /// `companion` (`<key>.<index>`) as the library rewrites it after a 304's `response`, from
    /// the `stored` bytes; nil: the library leaves it (or cannot read it).
    func updated(companion: String, stored: [UInt8], response: CacheIndexResponse) -> [UInt8]?

    /// When the entry whose first companion holds `companion` was received (OkHttp's
    /// `OkHttp-Received-Millis`); nil when it says none or cannot be read.
    func receivedAt(companion: [UInt8]) -> Timestamp?
}
