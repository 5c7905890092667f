import ImgwarmSystem
import SQLite

/// imgwarm's state: one SQLite database per disk cache folder, outside that folder (docs/cache-contract.md §1, §5).
///
/// It remembers, per key, what was stored (file name, size, format, dimensions) and the
/// validators for `--refresh` (ETag, Last-Modified); the persisted blacklist; and a log of runs.
/// The cache files are the truth: a row whose file is gone is stale and ignored, and nothing in
/// the database ever deletes or hides a cache file. WAL mode lets readers and one writer share it;
/// a writer waits for another at most `busyTimeout` seconds.
public final class StateStore {
    public let path: String
    let db: SQLiteDatabase
    /// Set when a damaged database was moved aside on opening: where it went.
    public private(set) var movedAside: String?

    /// Whether this opening ran SQLite's `quick_check` (`checkDue`): tests and `--verbose` read it.
    public private(set) var integrityChecked = false

    /// The schema version this build writes (`PRAGMA user_version`).
    public static let schemaVersion = 3
    /// The schema version of the open database: `schemaVersion`, or an older one a read-only
    /// opening still reads (the columns a newer version added are then absent).
    private(set) var version = StateStore.schemaVersion
    /// The salt of the passwords' digests in stored keys (`StateStore+Credentials`); nil in a
    /// database before schema 3 that is only read.
    private(set) var credentialSalt: String?

    /// The default location: `<private folder>/state.sqlite`.
    public static func defaultPath(for location: CacheLocation) -> String {
        location.privateFolder + "/state.sqlite"
    }

    /// The database a command uses: `given` (`--state`), else the default for `location`. The
    /// one place every job and command takes it from.
    public static func path(_ given: String?, for location: CacheLocation) -> String {
        given ?? defaultPath(for: location)
    }

    /// Opens (creating when missing, migrating when older) the database at `path`.
    ///
    /// A file that is not a database, or fails SQLite's check, is renamed to
    /// `<path>.corrupt-<time>` and a fresh one is built (`movedAside` says where). A lock held
    /// by another process longer than `busyTimeout` throws `.locked`. The database is readable by
    /// its owner only (0600): its keys are URLs, and URLs can carry credentials.
    ///
    /// With `readOnly` (the read-only commands) nothing is created, migrated or moved: a missing
    /// or damaged database throws `.unusable` (use `openExisting` to treat missing as none).
    /// `checked`: what a `quickCheck` of `path` found intact moments ago; SQLite's check is not
    /// run again on that same file.
    public init(
        path: String, busyTimeout: Double = CacheLock.defaultTimeout, readOnly: Bool = false,
        checked: CheckedFile? = nil
    ) throws(StateError) {
        self.path = path
        self.busyTimeout = busyTimeout
        let deadline = Monotonic.now() + busyTimeout
        if readOnly {
            let due = StateStore.checkDue(path)
            integrityChecked = due
            do {
                db = try StateStore.retryingWhileBusy(until: deadline) { () throws(SQLiteError) in
                    try StateStore.openReadOnly(path, busyTimeout: busyTimeout, check: due)
                }
            } catch let error where error.isCorruption {
                if error.isDamagedPage { StateStore.markForCheck(path) }
                throw .unusable(
                    path, "it is damaged (\(error.message)); the next prefetch moves it aside and rebuilds it")
            } catch {
                throw StateStore.classify(error, path: path)
            }
            version = Int((try? db.scalarText("PRAGMA user_version")) ?? "") ?? StateStore.schemaVersion
            credentialSalt = StateStore.readSalt(db)
            return
        }
        try StateStore.makeParent(of: path)
        let due = StateStore.checkDue(path)
        try StateStore.createPrivately(path)
        let intact = !due || (checked != nil && CheckedFile(path) == checked)
        integrityChecked = due
        do {
            db = try StateStore.retryingWhileBusy(until: deadline) { () throws(SQLiteError) in
                try StateStore.openChecked(path, busyTimeout: busyTimeout, check: !intact)
            }
        } catch let error where error.isCorruption {
            let aside = path + ".corrupt-\(Timestamp.now().seconds)"
            do {
                try FileSystem.rename(path, to: aside)
            } catch {
                throw .unusable(path, "it is damaged and cannot be moved aside: \(error)")
            }
            for suffix in ["-wal", "-shm"] { try? FileSystem.rename(path + suffix, to: aside + suffix) }
            movedAside = aside
            try StateStore.createPrivately(path)
            do {
                db = try StateStore.retryingWhileBusy(until: deadline) { () throws(SQLiteError) in
                    try StateStore.openChecked(path, busyTimeout: busyTimeout)
                }
            } catch {
                throw StateStore.classify(error, path: path)
            }
        } catch {
            throw StateStore.classify(error, path: path)
        }
        // Checked now (or rebuilt): the mark of a corruption met earlier has done its work.
        if due || movedAside != nil { try? FileSystem.removeFile(StateStore.checkMark(path)) }
        credentialSalt = StateStore.readSalt(db)
    }

    /// Whether SQLite's `quick_check` (every page of the file: its cost grows with the history
    /// the database keeps) is due before the database at `path` is used. It is when the last use
    /// may not have ended cleanly: a `-wal` or `-journal` beside it (SQLite removes the `-wal`
    /// when the last connection closes; one left means a writer still has it open, or one was
    /// killed or lost power), or the mark a run left after SQLite reported corruption
    /// (`checkMark`). Otherwise opening reads the header and the schema only; a damaged page met
    /// later fails that run with SQLite's message and leaves the mark, so the next run checks,
    /// moves the file aside and rebuilds it (docs/hardening.md, "The state database").
    static func checkDue(_ path: String) -> Bool {
        [path + "-wal", path + "-journal", checkMark(path)].contains { FileSystem.exists($0) }
    }

    /// The file that says the next opening must check the database: `<path>-check`.
    static func checkMark(_ path: String) -> String { path + "-check" }

    /// Leaves `checkMark(path)` (empty, 0600) after SQLite met a damaged page. The one file a
    /// read-only command may create: the damage it met is then checked by the next writer. (A
    /// file that is not a database needs none: every opening finds that.)
    static func markForCheck(_ path: String) {
        try? FileDescriptor.createFile(checkMark(path), permissions: 0o600).close()
    }

    /// Creates the database file with mode 0600 when it is missing (SQLite would use 0644, and
    /// gives its -wal and -shm files the mode of the database), and takes group and other access
    /// away from one an earlier version created.
    private static func createPrivately(_ path: String) throws(StateError) {
        do throws(SystemError) {
            try FileDescriptor.createFile(path, permissions: 0o600).close()
            return
        } catch  where error.isAlreadyThere {
        } catch {
            throw .unusable(path, "cannot create it: \(error)")
        }
        for file in [path, path + "-wal", path + "-shm"] {
            if let info = try? FileSystem.status(ofPath: file), info.permissions & 0o077 != 0,
                info.owner == FileSystem.userID
            {
                try? FileSystem.setPermissions(ofPath: file, to: info.permissions & 0o700)
            }
        }
    }

    /// The wait allowed for another process's lock (`--lock-timeout`).
    let busyTimeout: Double

    /// Runs `body` again while it fails with `SQLITE_BUSY`, until `deadline`.
    ///
    /// SQLite's busy timeout covers the ordinary waits, but SQLite answers `SQLITE_BUSY` at once,
    /// without waiting, where waiting could deadlock: two processes that both create a fresh
    /// database and switch it to WAL at the same moment, or a read snapshot that another writer
    /// made stale. Starting over (a new connection, a new transaction) resolves both; this loop
    /// does so with short growing pauses, never beyond the wait the user allowed.
    static func retryingWhileBusy<T>(until deadline: Double, _ body: () throws(SQLiteError) -> T) throws(SQLiteError)
        -> T
    {
        var pause = 0.002
        while true {
            do {
                return try body()
            } catch  where error.isBusy && Monotonic.now() + pause < deadline {
                Monotonic.sleep(pause)
                pause = min(pause * 2, 0.1)
            }
        }
    }

    /// Opens an existing database read-only (dry runs, `stats`, `blacklist list`); nil when there
    /// is none. Creates, migrates and moves nothing.
    public static func openExisting(path: String, busyTimeout: Double = 5) throws(StateError) -> StateStore? {
        guard FileSystem.exists(path) else { return nil }
        return try StateStore(path: path, busyTimeout: busyTimeout, readOnly: true)
    }

    /// A connection that reads the existing database at `path` and leaves nothing beside it: a
    /// read-only connection to a database in WAL mode creates its `-wal` and `-shm` files and
    /// cannot remove them, so where this user may write the database, and no `-wal` is there
    /// (no writer has it open), it is opened read-write with `query_only` (no statement can
    /// change it); the last connection to close then removes both, as SQLite does for a writer.
    static func openReader(_ path: String) throws(SQLiteError) -> SQLiteDatabase {
        guard !FileSystem.exists(path + "-wal"), FileSystem.isWritable(path) else {
            return try SQLiteDatabase(path: path, readOnly: true, create: false)
        }
        let db = try SQLiteDatabase(path: path, create: false)
        try db.execute("PRAGMA query_only = ON")
        return db
    }

    private static func openReadOnly(_ path: String, busyTimeout: Double, check: Bool) throws(SQLiteError)
        -> SQLiteDatabase
    {
        let db = try openReader(path)
        db.setBusyTimeout(milliseconds: Int32(clamping: Int(busyTimeout * 1000)))
        if check { try checkIntegrity(db) }
        let version = Int(try db.scalarText("PRAGMA user_version") ?? "0") ?? 0
        // Versions 1 and 2 differ by a column reads do without (blacklist.client).
        if version < 1 || version > schemaVersion {
            let advice = version > schemaVersion ? "use a newer imgwarm" : "run a prefetch to upgrade it"
            throw SQLiteError(
                code: 1,
                message:
                    "the state database has schema version \(version), this imgwarm reads \(schemaVersion); \(advice)")
        }
        return db
    }

    /// The database file (its device and inode) a `quickCheck` found intact.
    public struct CheckedFile: Sendable, Equatable {
        let device: UInt64
        let inode: UInt64

        init?(_ path: String) {
            guard let info = try? FileSystem.status(ofPath: path) else { return nil }
            (device, inode) = (info.device, info.inode)
        }
    }

    /// SQLite's `quick_check` of the existing database at `path`, through a read-only connection
    /// (nothing is created, migrated or moved): the file it found intact, or nil (none there,
    /// damaged, locked, not readable so). A prefetch runs it while it reads its lists: it reads
    /// every page, 120 ms of a hits-only pass over 100,000 cached lines (docs/performance.md).
    public static func quickCheck(path: String) -> CheckedFile? {
        guard checkDue(path), let before = CheckedFile(path) else { return nil }
        guard let db = try? openReader(path), (try? checkIntegrity(db)) != nil else { return nil }
        return CheckedFile(path) == before ? before : nil
    }

    /// SQLite's `quick_check`, stopping at the first problem: throws a corruption error
    /// (`SQLITE_CORRUPT`) naming it.
    private static func checkIntegrity(_ db: SQLiteDatabase) throws(SQLiteError) {
        let check = try db.scalarText("PRAGMA quick_check(1)")
        if check != "ok" { throw SQLiteError(code: 11, message: "quick_check: \(check ?? "no answer")") }
    }

    private static func openChecked(_ path: String, busyTimeout: Double, check: Bool = true) throws(SQLiteError)
        -> SQLiteDatabase
    {
        let db = try SQLiteDatabase(path: path)
        db.setBusyTimeout(milliseconds: Int32(clamping: Int(busyTimeout * 1000)))
        // Reading the header is where "file is not a database" shows.
        _ = try db.scalarText("PRAGMA journal_mode=WAL")
        if check { try checkIntegrity(db) }
        try db.execute("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF")
        try migrate(db)
        return db
    }

    static func classify(_ error: SQLiteError, path: String) -> StateError {
        if error.isBusy { return .locked(path, "SQLite \(error.code): \(error.message)") }
        // Corruption met in use: the next opening checks the whole file (`checkDue`).
        if error.isDamagedPage {
            markForCheck(path)
            return .unusable(
                path, "\(error.message); the next prefetch checks it, moves it aside and rebuilds it")
        }
        return .unusable(path, error.message)
    }

    private static func makeParent(of path: String) throws(StateError) {
        do {
            try CacheLocation.makeParentFolders(of: path)
        } catch {
            throw .unusable(path, "cannot create its folder: \(error)")
        }
    }

    // MARK: - Schema

    /// Each migration takes the schema from version `index` to `index + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE entries(
            key TEXT PRIMARY KEY,
            file_name TEXT NOT NULL,
            size INTEGER NOT NULL,
            format TEXT,
            width INTEGER,
            height INTEGER,
            etag TEXT,
            last_modified TEXT,
            fetched_at REAL NOT NULL,
            validated_at REAL NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX entries_by_file ON entries(file_name);
        CREATE TABLE blacklist(
            key TEXT PRIMARY KEY,
            failed_at REAL NOT NULL,
            error_class TEXT NOT NULL,
            message TEXT NOT NULL,
            http_status INTEGER,
            attempts INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE runs(
            id INTEGER PRIMARY KEY,
            command TEXT NOT NULL,
            started_at REAL NOT NULL,
            finished_at REAL NOT NULL,
            lines INTEGER NOT NULL,
            downloaded INTEGER NOT NULL,
            cached INTEGER NOT NULL,
            revalidated INTEGER NOT NULL,
            failed INTEGER NOT NULL,
            blacklisted INTEGER NOT NULL,
            invalid INTEGER NOT NULL,
            interrupted INTEGER NOT NULL
        );
        """,
        // 2: a blacklist entry of a failure that depends on the client's configuration (TLS, 401,
        // 403, 407) holds only while that configuration is unchanged (FetchConfiguration.clientFingerprint).
        """
        ALTER TABLE blacklist ADD COLUMN client TEXT;
        """,
        // 3: no password in clear (StateStore+Credentials): the salt of their digests; the keys
        // of earlier versions are rewritten by `migrate`.
        """
        CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        INSERT INTO meta(name, value) VALUES ('credential-salt', lower(hex(randomblob(16))));
        """,
    ]

    private static func migrate(_ db: SQLiteDatabase) throws(SQLiteError) {
        let current = Int(try db.scalarText("PRAGMA user_version") ?? "0") ?? 0
        guard current < migrations.count else {
            if current > schemaVersion {
                throw SQLiteError(
                    code: 1,
                    message:
                        "the state database has schema version \(current), newer than this imgwarm (\(schemaVersion)); use a newer imgwarm or \(Setting.statePath) with another file"
                )
            }
            return
        }
        var rewritten = false
        try db.transaction { () throws(SQLiteError) in
            // Another process may have migrated while this one waited for the lock.
            let now = Int(try db.scalarText("PRAGMA user_version") ?? "0") ?? 0
            for version in now..<migrations.count {
                try db.execute(migrations[version])
                try db.execute("PRAGMA user_version = \(version + 1)")
            }
            if now < 3, let salt = readSalt(db) { rewritten = try rewriteCredentials(db, salt: salt) }
        }
        if rewritten { try wipeFreedPages(db) }
    }

    // MARK: - Transactions

    private var inTransaction = false

    /// Starts a write transaction (waiting at most the busy timeout for the lock).
    public func begin() throws(StateError) {
        guard !inTransaction else { return }
        do {
            try StateStore.retryingWhileBusy(until: Monotonic.now() + busyTimeout) { () throws(SQLiteError) in
                try db.execute("BEGIN IMMEDIATE")
            }
        } catch {
            throw StateStore.classify(error, path: path)
        }
        inTransaction = true
    }

    /// Commits the open transaction, if any.
    public func commit() throws(StateError) {
        guard inTransaction else { return }
        do { try db.execute("COMMIT") } catch { throw StateStore.classify(error, path: path) }
        inTransaction = false
    }

    public func rollback() {
        guard inTransaction else { return }
        try? db.execute("ROLLBACK")
        inTransaction = false
    }

    /// Checks now that this process can take the write lock (so a held lock stops the run
    /// before any download rather than in the middle).
    public func checkWritable() throws(StateError) {
        try begin()
        try commit()
    }

    func run(_ statement: SQLiteStatement, _ values: [SQLiteStatement.Value]) throws(StateError) {
        do { try statement.run(values) } catch { throw StateStore.classify(error, path: path) }
    }

    func prepare(_ sql: String) throws(StateError) -> SQLiteStatement {
        do { return try db.prepare(sql) } catch { throw StateStore.classify(error, path: path) }
    }

    private var statements: [String: SQLiteStatement] = [:]

    /// A compiled statement, kept for reuse.
    func statement(_ sql: String) throws(StateError) -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let compiled = try prepare(sql)
        statements[sql] = compiled
        return compiled
    }

    /// Runs a query and calls `row` for each result row.
    func query(_ sql: String, _ values: [SQLiteStatement.Value] = [], row: (SQLiteStatement) -> Void) throws(StateError)
    {
        let statement = try statement(sql)
        do {
            try statement.bind(values)
            while try statement.step() { row(statement) }
            statement.reset()
        } catch {
            statement.reset()
            throw StateStore.classify(error, path: path)
        }
    }
}

/// The state database cannot be used: a run-level failure.
public enum StateError: Error, Equatable, Sendable, CustomStringConvertible {
    case locked(String, String)
    case unusable(String, String)

    public var description: String {
        switch self {
        case .locked(let path, let detail):
            return
                "the state database \(path) is locked by another process for longer than the wait allowed (\(Setting.lockTimeout); \(detail))"
        case .unusable(let path, let reason):
            return "cannot use the state database \(path): \(reason)"
        }
    }
}
