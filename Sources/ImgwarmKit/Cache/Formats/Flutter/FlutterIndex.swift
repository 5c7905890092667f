import ImgwarmSystem
import Synchronization

/// flutter_cache_manager's database as the index of its files folder (docs/cache-formats-android.md,
/// "flutter_cache_manager"): a row per key names the key's file; a hit is the row, its file and a
/// `validTill` not before now.
///
/// Stores and reads are recorded and written in batches (at most a second, or `batchSize`), each
/// in one SQLite transaction: a row is written only after its file is complete under its name,
/// and the file a replaced row named is removed after the new row is in, as the library's
/// `WebHelper` does. SQLite's own locking keeps two processes' batches apart.
public final class FlutterIndex: RowCopyingIndex, FolderPreparingIndex {
    static let library = "flutter_cache_manager"
    static let batchSize = 4096

    let folder: String
    let databasePath: String
    private let names: FlutterFileName
    private let state = Mutex(State())

    private struct State {
        /// The rows as last read or written, found by key and by file name.
        var rows = Rows()
        var pending: [Operation] = []
        /// The files of the rows `pending` puts (`awaitsListing`).
        var putNames: Set<String> = []
        /// `listingFlushes`.
        var flushes = 0
        var lastFlush = Monotonic.now()
    }

    private enum Operation {
        case put(FlutterDatabase.Put)
        case read(key: String)
        /// A 304: the row keeps its file and length, and takes the response's `validTill` and
        /// its `eTag` when it has one (`_setDataFromHeaders`, `copyWith`).
        case revalidate(key: String, validTill: Int64, eTag: String?)
        /// A row copied from another cache (`merge`): written with its own `touched`.
        case copy(FlutterDatabase.Put, touched: Int64)
    }

    public init(location: CacheLocation, databasePath: String, names: FlutterFileName = FlutterFileName()) {
        folder = location.folder
        self.databasePath = databasePath
        self.names = names
    }

    static func milliseconds(_ time: Timestamp) -> Int64 { time.seconds * 1000 + Int64(time.nanoseconds / 1_000_000) }

    func open(create: Bool, readOnly: Bool, busyTimeout: Double) throws(CacheIndexError) -> FlutterDatabase? {
        do {
            return try FlutterDatabase(path: databasePath, create: create, readOnly: readOnly, busyTimeout: busyTimeout)
        } catch {
            throw FlutterIndex.indexError(error, path: databasePath)
        }
    }

    static func indexError(_ problem: FlutterDatabase.Problem, path: String, timeout: Double = 5) -> CacheIndexError {
        switch problem {
        case .unusable(let reason): return .refused(path: path, library: library, reason: reason)
        case .absent: return .refused(path: path, library: library, reason: problem.description)
        case .notARegularFile(let what): return .notARegularFile(path: path, what: what)
        case .sqlite(_, busy: true):
            return .locked(CacheLock.Timeout(path: path, seconds: timeout, exclusive: true, holders: []))
        case .sqlite(let error, busy: false):
            return .system(path: path, SystemError(code: 5, call: "sqlite3 (\(error.description))"))
        }
    }

    // MARK: Reading

    public func load() throws(CacheIndexError) {
        let exists: Bool
        do { exists = try FlutterDatabase.isRegularFile(databasePath) } catch {
            throw FlutterIndex.indexError(error, path: databasePath)
        }
        guard exists else {
            state.withLock { $0.rows = Rows() }
            return
        }
        // SQLite's reads move the database's access time: it is put back once the database is
        // closed, so the commands that only read (keys detect, verify) leave it as they found it.
        let accessed = try? FileSystem.status(ofPath: databasePath, followingLinks: false).accessed
        defer { if let accessed { FlutterIndex.putBack(accessed, of: databasePath) } }
        guard let db = try open(create: false, readOnly: true, busyTimeout: 5) else { return }
        // Row by row into the index: the rows are never held as a list besides it.
        var rows = Rows()
        do {
            try db.forEachRow { row in
                guard rows.position(ofKey: row.key) == nil else { return }
                rows.put(Listed(row))
            }
        } catch {
            throw FlutterIndex.indexError(error, path: databasePath)
        }
        state.withLock { $0.rows = rows }
    }

    /// Sets the access time of the file at `path` back to `accessed` when it moved (best effort:
    /// another user's file cannot be changed).
    static func putBack(_ accessed: Timestamp, of path: String) {
        let slash = path.lastIndex(of: "/")
        let (parent, name) =
            slash.map { ($0 == path.startIndex ? "/" : String(path[..<$0]), String(path[path.index(after: $0)...])) }
            ?? (".", path)
        guard let now = try? FileSystem.status(ofPath: path, followingLinks: false), now.accessed != accessed,
            let folder = try? FileDescriptor.openFolder(parent)
        else { return }
        defer { folder.close() }
        try? folder.setAccessTime(of: name, to: accessed)
    }

    /// Creates the database as the library's `onCreate` does when there is none, in a folder
    /// made when missing (as `_getPath` makes it).
    public func prepare() throws(CacheIndexError) {
        guard !FileSystem.exists(databasePath) else { return }
        var missing: [String] = []
        var parent = CacheLocation.split(databasePath).parent
        while parent != "/" && !parent.isEmpty && !FileSystem.exists(parent) {
            missing.append(parent)
            parent = CacheLocation.split(parent).parent
        }
        for folder in missing.reversed() {
            do throws(SystemError) { try FileSystem.makeFolder(folder) } catch  where error.isAlreadyThere {} catch {
                throw .system(path: folder, error)
            }
        }
        _ = try open(create: true, readOnly: false, busyTimeout: 5)
    }

    public func check(_ name: String) -> EntryMiss? {
        let now = FlutterIndex.milliseconds(.now())
        return state.withLock { state in
            guard let position = state.rows.position(ofName: name) else { return .notIndexed }
            return state.rows[position].validTill < now ? .expired : nil
        }
    }

    public func isEntryFile(_ name: String) -> Bool { FlutterFileName.isName(name) }

    /// A row whose `relativePath` is not a plain name (`../x`) names no file of the folder: it
    /// is left out, and its key is one the index does not list (docs/hardening.md).
    public var listedNames: [String] {
        state.withLock {
            $0.rows.all.sorted { ($0.touched, $0.id) < ($1.touched, $1.id) }.map(\.relativePath)
                .filter(FileDescriptor.isPlainName)
        }
    }

    public var unsafeNames: [String] {
        state.withLock { $0.rows.all.map(\.relativePath).filter { !FileDescriptor.isPlainName($0) }.sorted() }
    }

    public func entryName(forKey key: String) -> String? {
        state.withLock { $0.rows[key: key]?.relativePath }
    }

    public var accountedBytes: UInt64 {
        state.withLock { $0.rows.all.reduce(0) { $0 + UInt64(max(0, $1.length ?? 0)) } }
    }

    // MARK: Stores and reads

    /// Every download gets a new name: a version 1 UUID and the extension of its `Content-Type`.
    public func storeName(for name: String, response: CacheIndexResponse) -> String {
        names.next(
            milliseconds: FlutterIndex.milliseconds(response.receivedAt),
            fileExtension: FlutterResponse.fileExtension(contentType: response.contentType))
    }

    public func didStore(_ name: String) {}

    public func didStore(_ name: String, response: CacheIndexResponse) {
        let put = FlutterDatabase.Put(
            url: response.url, key: response.key, relativePath: name, eTag: response.etag,
            validTill: FlutterResponse.validTill(
                receivedAt: FlutterIndex.milliseconds(response.receivedAt), cacheControl: response.cacheControl),
            length: Int64(response.length))
        state.withLock {
            $0.pending.append(.put(put))
            $0.putNames.insert(name)
        }
    }

    public func awaitsListing(_ name: String) -> Bool {
        state.withLock { $0.putNames.contains(name) }
    }

    public var listingFlushes: Int { state.withLock { $0.flushes } }

    public func didRead(_ name: String) {
        state.withLock { state in
            guard let position = state.rows.position(ofName: name) else { return }
            state.pending.append(.read(key: state.rows[position].key))
        }
    }

    // MARK: Copies (merge)

    public func copiedRows() throws(CacheIndexError) -> [CacheIndexRow] {
        let exists: Bool
        do { exists = try FlutterDatabase.isRegularFile(databasePath) } catch {
            throw FlutterIndex.indexError(error, path: databasePath)
        }
        guard exists else { return [] }
        let accessed = try? FileSystem.status(ofPath: databasePath, followingLinks: false).accessed
        defer { if let accessed { FlutterIndex.putBack(accessed, of: databasePath) } }
        guard let db = try open(create: false, readOnly: true, busyTimeout: 5) else { return [] }
        var rows: [CacheIndexRow] = []
        do {
            try db.forEachRow { row in
                rows.append(
                    CacheIndexRow(
                        key: row.key, url: row.url, relativePath: row.relativePath, eTag: row.eTag,
                        validTill: row.validTill, touched: row.touched, length: row.length))
            }
        } catch {
            throw FlutterIndex.indexError(error, path: databasePath)
        }
        return rows
    }

    public func lastUsed(key: String) -> Timestamp? {
        state.withLock { $0.rows[key: key] }.map {
            Timestamp(seconds: $0.touched / 1000, nanoseconds: ($0.touched % 1000) * 1_000_000)
        }
    }

    public func didCopy(_ name: String, row: CacheIndexRow) {
        let put = FlutterDatabase.Put(
            url: row.url, key: row.key, relativePath: name, eTag: row.eTag, validTill: row.validTill,
            length: row.length ?? 0)
        state.withLock {
            $0.pending.append(.copy(put, touched: row.touched))
            $0.putNames.insert(name)
        }
    }

    public func didRevalidate(_ name: String, response: CacheIndexResponse) {
        let validTill = FlutterResponse.validTill(
            receivedAt: FlutterIndex.milliseconds(response.receivedAt), cacheControl: response.cacheControl)
        state.withLock { state in
            guard let position = state.rows.position(ofName: name) else { return }
            let key = state.rows[position].key
            state.pending.append(.revalidate(key: key, validTill: validTill, eTag: response.etag))
        }
    }

    public func flush(force: Bool, lockTimeout: Double) throws(CacheIndexError) {
        try state.withLock { (state: inout State) throws(CacheIndexError) in
            guard !state.pending.isEmpty else { return }
            if !force && state.pending.count < FlutterIndex.batchSize && Monotonic.now() - state.lastFlush < 1 {
                return
            }
            let db: FlutterDatabase
            do throws(FlutterDatabase.Problem) {
                db = try FlutterDatabase(path: databasePath, create: true, busyTimeout: force ? lockTimeout : 0)
            } catch {
                if case .sqlite(_, busy: true) = error, !force { return }
                throw FlutterIndex.indexError(error, path: databasePath, timeout: lockTimeout)
            }
            var replaced: [String] = []
            // One transaction for the batch: readers see it whole or not at all.
            do throws(FlutterDatabase.Problem) {
                try db.batch { () throws(FlutterDatabase.Problem) in
                    for operation in state.pending {
                        switch operation {
                        case .put(let put), .copy(let put, _):
                            // Written only while its file is there (a clean may have run since).
                            guard FileDescriptor.isPlainName(put.relativePath),
                                FileSystem.exists(CacheLocation.join(folder, put.relativePath))
                            else { continue }
                            var now = FlutterIndex.milliseconds(.now())
                            if case .copy(_, let touched) = operation { now = touched }
                            if let old = try db.put(put, now: now) { replaced.append(old) }
                            var row = FlutterDatabase.Row(
                                id: state.rows[key: put.key]?.id ?? 0, url: put.url, key: put.key,
                                relativePath: put.relativePath,
                                eTag: put.eTag, validTill: put.validTill, touched: now, length: put.length)
                            if let written = try db.row(forKey: put.key) { row = written }
                            state.rows.put(Listed(row))
                        case .read(let key):
                            let now = FlutterIndex.milliseconds(.now())
                            guard try db.touch(key: key, now: now) else { continue }
                            if let position = state.rows.position(ofKey: key) { state.rows[position].touched = now }
                        case .revalidate(let key, let validTill, let eTag):
                            guard let row = try db.row(forKey: key) else { continue }
                            let now = FlutterIndex.milliseconds(.now())
                            try db.revalidate(id: row.id, validTill: validTill, eTag: eTag ?? row.eTag, now: now)
                            if let position = state.rows.position(ofKey: key) {
                                state.rows[position].touched = now
                                state.rows[position].validTill = validTill
                            }
                        }
                    }
                }
            } catch {
                if case .sqlite(_, busy: true) = error, !force { return }
                throw FlutterIndex.indexError(error, path: databasePath, timeout: lockTimeout)
            }
            // The library removes the file a replaced row named once the new row is in; a row
            // that named no plain file of the folder (`../x`) is replaced, and nothing removed.
            if let directory = try? FileDescriptor.openFolder(folder) {
                for name in replaced where FileDescriptor.isPlainName(name) { try? directory.removeEntry(name) }
                directory.close()
            }
            state.pending.removeAll()
            state.putNames.removeAll()
            state.flushes += 1
            state.lastFlush = Monotonic.now()
        }
    }
}
