import ImgwarmSystem
import Synchronization

/// The DiskLruCache journal of one cache folder as imgwarm keeps it (docs/cache-formats-android.md):
/// read as the library reads it, never written when the library would not read it, and
/// changed only by appending the operations the library itself would append, in a new
/// `journal.tmp` renamed over `journal`.
///
/// Every entry's files are complete under their names before the `CLEAN` line that lists them
/// exists; a hit gets the `READ` line the library's `get` writes. Lines are batched (at most a
/// second or `batchSize` lines) and written under `<private folder>/journal.lock`, after reading the
/// journal again, so what another process wrote in between is kept.
public final class JournalIndex: CacheIndex {
    /// What differs between the libraries that keep this journal.
    public struct Layout: Sendable, Equatable {
        public var library: String
        public var header: DiskLruJournal.Header
        public var dialect: DiskLruJournal.Dialect
        /// The value that holds the image bytes (Glide `0`, Coil `1`); the others are written empty.
        public var dataIndex: Int
    }

    public static let journalName = "journal"
    public static let temporaryName = "journal.tmp"
    public static let backupName = "journal.bkp"
    /// Lines that make a batch due before its second is up.
    static let batchSize = 512

    public let layout: Layout
    private let folder: String
    /// The cache folder.
    var folderPath: String { folder }
    private let lockPath: String
    private let state = Mutex(State())

    private struct State {
        var journal = DiskLruJournal()
        /// The journal's bytes up to its last complete line as last written, and which file they
        /// were (`journal` by inode, size and modification time; nil: read it again).
        var bytes: [UInt8] = []
        var identity: Identity?
        var loaded = false
        var pending: [Operation] = []
        var stored: Set<String> = []
        var lastFlush = Monotonic.now()
    }

    private struct Identity: Equatable {
        var inode: UInt64
        var size: UInt64
        var modified: Timestamp
        init(_ info: FileStatus) {
            inode = info.inode
            size = info.size
            modified = info.modified
        }
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

    private func path(_ name: String) -> String { CacheLocation.join(folder, name) }

    // MARK: Reading

    public func load() throws(CacheIndexError) {
        // The identity first: a journal replaced after it is read again at the first flush.
        let identity = journalIdentity()
        let (bytes, journal) = try currentJournalBytes()
        state.withLock {
            $0.journal = journal
            $0.bytes = bytes
            $0.identity = identity
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

    /// Which file `journal` is now (not following a link); nil when there is none.
    private func journalIdentity() -> Identity? {
        guard let directory = try? openFolder() else { return nil }
        defer { directory.close() }
        return (try? directory.status(of: JournalIndex.journalName)).map(Identity.init)
    }

    /// The bytes of the regular file `name` of `directory`; nil when there is none. Anything but
    /// a regular file there (a FIFO, a device, a link) is never read: it is `.notARegularFile`.
    func contents(of name: String, in directory: FileDescriptor) throws(CacheIndexError) -> [UInt8]? {
        let opening: RegularFileOpening
        do { opening = try directory.openRegularFile(name) } catch { throw .system(path: path(name), error) }
        let file: FileDescriptor
        switch opening {
        case .absent: return nil
        case .other(let what): throw .notARegularFile(path: path(name), what: what)
        case .opened(let opened, _): file = opened
        }
        defer { file.close() }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do { count = try file.read(into: &buffer) } catch { throw .system(path: path(name), error) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[..<count])
        }
    }

    /// The journal as the library would read it now, `journal`, else `journal.bkp` (the library
    /// renames a lone backup into place), else an empty cache: its bytes up to its last complete
    /// line (or a new header), and what they hold.
    func currentJournalBytes() throws(CacheIndexError) -> (bytes: [UInt8], journal: DiskLruJournal) {
        if let directory = try openFolder() {
            defer { directory.close() }
            for name in [JournalIndex.journalName, JournalIndex.backupName] {
                guard let bytes = try contents(of: name, in: directory) else { continue }
                do {
                    let journal = try DiskLruJournal.parse(bytes, header: layout.header, dialect: layout.dialect)
                    return (Array(bytes[..<journal.completeLength]), journal)
                } catch {
                    throw .unreadable(path: path(name), library: layout.library, reason: error.description)
                }
            }
        }
        return (layout.header.bytes, DiskLruJournal.empty(header: layout.header))
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

    public func isEntryFile(_ name: String) -> Bool {
        guard let key = key(of: name) else { return false }
        return key.utf8.count == 64 && !key.contains(".")
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

    public func didRead(_ name: String) {
        guard let key = key(of: name) else { return }
        state.withLock { $0.pending.append(.read(key)) }
    }

    public var accountedBytes: UInt64 {
        state.withLock { UInt64(max(0, $0.journal.openSize)) }
    }

    // MARK: Writing

    public func flush(force: Bool, lockTimeout: Double) throws(CacheIndexError) {
        try state.withLock { (state: inout State) throws(CacheIndexError) in
            guard !state.pending.isEmpty else { return }
            if !force && state.pending.count < JournalIndex.batchSize && Monotonic.now() - state.lastFlush < 1 {
                return
            }
            guard let lock = try takeLock(timeout: force ? lockTimeout : 0, required: force) else { return }
            defer {
                lock.unlock()
                lock.close()
            }
            var bytes: [UInt8]
            var journal: DiskLruJournal
            let found = journalIdentity()
            if let found, found == state.identity {
                // Nobody wrote it since this process did: its bytes are the ones kept.
                (bytes, journal) = (state.bytes, state.journal)
            } else {
                (bytes, journal) = try currentJournalBytes()
            }
            var lines = ""
            var readable = Set<String>()
            for operation in state.pending {
                switch operation {
                case .read(let key):
                    if journal.isReadable(key) || readable.contains(key) { lines += "READ \(key)\n" }
                case .clean(let key):
                    // Listed only if every value file is still there (a clean may have run since).
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
            let added = Array(lines.utf8)
            guard !added.isEmpty else {
                // Nothing left to say (the entries went since): the journal stays as it is.
                (state.journal, state.bytes, state.identity) = (journal, bytes, found)
                state.pending.removeAll()
                state.stored.removeAll()
                state.lastFlush = Monotonic.now()
                return
            }
            bytes.append(contentsOf: added)
            try replaceJournal(with: bytes)
            do throws(DiskLruJournal.Corruption) {
                try journal.append(added, header: layout.header, dialect: layout.dialect)
            } catch {
                throw .unreadable(
                    path: path(JournalIndex.journalName), library: layout.library, reason: error.description)
            }
            state.journal = journal
            state.bytes = bytes
            state.identity = journalIdentity()
            state.pending.removeAll()
            state.stored.removeAll()
            state.lastFlush = Monotonic.now()
        }
    }

    /// Writes `bytes` to a new `journal.tmp`, flushed to disk, renames it over `journal`, and
    /// removes `journal.bkp` (the library removes a backup once a journal exists). All three are
    /// names in the open cache folder: whatever stands at `journal.tmp` (a link, a FIFO) is
    /// removed, never followed, and the new one is created exclusively.
    func replaceJournal(with bytes: [UInt8]) throws(CacheIndexError) {
        let directory: FileDescriptor
        do { directory = try FileDescriptor.openFolder(folder) } catch { throw .system(path: folder, error) }
        defer { directory.close() }
        do {
            try directory.replaceFile(JournalIndex.journalName, with: bytes, through: JournalIndex.temporaryName)
        } catch {
            throw .system(path: path(JournalIndex.temporaryName), error)
        }
        do { try directory.removeEntryIfPresent(JournalIndex.backupName) } catch {
            throw .system(path: path(JournalIndex.backupName), error)
        }
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
