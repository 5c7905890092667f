import ImgwarmSystem
import SQLite

/// flutter_cache_manager 3.4.1's database, `libCachedImageData.db`, as its `CacheObjectProvider`
/// opens and queries it (`lib/src/storage/cache_info_repositories/cache_object_provider.dart`,
/// `lib/src/storage/cache_object.dart`; docs/cache-formats-android.md, "flutter_cache_manager").
///
/// sqflite opens it with version 3: `PRAGMA user_version` 0 runs `onCreate` (whose `create table`
/// fails on a table that exists), 1 and 2 run `onUpgrade`; so imgwarm writes only to a database
/// at version 3 whose `cacheObject` table has the library's eight columns, and creates a missing
/// one as `onCreate` does. Times are epoch milliseconds. The rollback journal is left as SQLite's
/// default (no WAL), so the database is one file to copy onto a device.
public final class FlutterDatabase {
    /// One `cacheObject` row.
    public struct Row: Sendable, Equatable {
        public var id: Int64
        public var url: String
        public var key: String
        public var relativePath: String
        public var eTag: String?
        public var validTill: Int64
        public var touched: Int64
        public var length: Int64?
    }

    /// What a store writes for a key.
    public struct Put: Sendable, Equatable {
        public var url: String
        public var key: String
        public var relativePath: String
        public var eTag: String?
        public var validTill: Int64
        public var length: Int64

        public init(url: String, key: String, relativePath: String, eTag: String?, validTill: Int64, length: Int64) {
            (self.url, self.key, self.relativePath, self.eTag) = (url, key, relativePath, eTag)
            (self.validTill, self.length) = (validTill, length)
        }
    }

    /// The database is not one the library would use, or cannot be used.
    public enum Problem: Error, Sendable, CustomStringConvertible {
        /// The library would fail to open or query it (not a database, another version, another schema).
        case unusable(String)
        /// There is no database at the path (the library would create an empty one).
        case absent(String)
        /// Something else than a regular file is at the path (`what`: "a FIFO"…): not opened.
        case notARegularFile(what: String)
        /// SQLite failed (`busy` true: another process held its lock past the wait).
        case sqlite(SQLiteError, busy: Bool)

        public var description: String {
            switch self {
            case .unusable(let reason): return reason
            case .absent(let path): return "there is no database at \(path)"
            case .notARegularFile(let what): return "it is \(what), not a regular file"
            case .sqlite(let error, _): return error.description
            }
        }
    }

    /// sqflite's `version: 3`, kept in `PRAGMA user_version`.
    public static let userVersion = 3
    public static let table = "cacheObject"
    /// The columns and their declared types, as `onCreate` makes them.
    public static let columns: [(name: String, type: String)] = [
        ("_id", "integer"), ("url", "text"), ("key", "text"), ("relativePath", "text"), ("eTag", "text"),
        ("validTill", "integer"), ("touched", "integer"), ("length", "integer"),
    ]
    /// What `onCreate` runs: the table and a unique index on `key`.
    public static let schema = """
        create table cacheObject (_id integer primary key, url text, key text, relativePath text, eTag text, \
        validTill integer, touched integer, length integer);
        create unique index cacheObjectkey ON cacheObject (key);
        """
    /// `DefaultCacheManager.key`: the files folder's and the database's name.
    public static let cacheKey = "libCachedImageData"
    /// `Config`'s default `maxNrOfCacheObjects`.
    public static let capacity = 200
    /// `Config`'s default `stalePeriod`, 30 days, in milliseconds.
    public static let stalePeriod: Int64 = 30 * 86_400_000
    /// `getObjectsOverCapacity` looks only at rows touched longer ago than this: 1 day.
    public static let recentPeriod: Int64 = 86_400_000
    /// Both cleanup queries' `limit`.
    public static let batchLimit = 100

    public let path: String
    let db: SQLiteDatabase
    /// Statements compiled once for this connection, by their SQL (`statement(_:)`).
    private var statements: [String: SQLiteStatement] = [:]
    /// True inside `batch`: a write joins its transaction instead of making its own.
    var inBatch = false
    /// True when the database opened read-only is one the library would create its table in
    /// (version 0, no table): it holds no rows.
    public private(set) var isUnmade = false

    /// Opens the database at `path` and checks that the library would use it. A missing file is
    /// created as `onCreate` makes it when `create` is true; otherwise it throws `.unusable`.
    public init(path: String, create: Bool, readOnly: Bool = false, busyTimeout: Double = 5)
        throws(Problem)
    {
        self.path = path
        let exists = try FlutterDatabase.isRegularFile(path)
        if !exists && (!create || readOnly) { throw .absent(path) }
        do {
            db = try SQLiteDatabase(path: path, readOnly: readOnly, create: create && !readOnly, noFollow: true)
            db.setBusyTimeout(milliseconds: Int32(clamping: Int(busyTimeout * 1000)))
        } catch {
            throw FlutterDatabase.problem(error)
        }
        do throws(SQLiteError) {
            // sqflite runs `onCreate` on a database at version 0 (a new or an empty file): so does imgwarm.
            if try FlutterDatabase.version(db) == 0, try !FlutterDatabase.hasTable(db) {
                if readOnly {
                    isUnmade = true
                    return
                }
                // Asked again under the write lock: another process may have made it meanwhile.
                try db.transaction { () throws(SQLiteError) in
                    guard try FlutterDatabase.version(db) == 0, try !FlutterDatabase.hasTable(db) else { return }
                    try db.execute(FlutterDatabase.schema)
                    try db.execute("PRAGMA user_version = \(FlutterDatabase.userVersion)")
                }
            }
        } catch {
            throw FlutterDatabase.problem(error)
        }
        try check()
    }

    /// True when a regular file is at `path`, false when nothing is; anything else (a FIFO, a
    /// device, a link: SQLite would wait on it or follow it) is `.notARegularFile`, and is
    /// neither read nor waited on.
    static func isRegularFile(_ path: String) throws(Problem) -> Bool {
        let opening: RegularFileOpening
        do { opening = try FileDescriptor.openRegularFile(atPath: path) } catch {
            throw .sqlite(SQLiteError(code: 14, message: error.description), busy: false)
        }
        switch opening {
        case .absent: return false
        case .other(let what): throw .notARegularFile(what: what)
        case .opened(let file, _):
            file.close()
            return true
        }
    }

    static func problem(_ error: SQLiteError) -> Problem {
        if error.isCorruption { return .unusable("it is not a SQLite database, or a damaged one (\(error.message))") }
        return .sqlite(error, busy: error.isBusy)
    }

    private static func version(_ db: SQLiteDatabase) throws(SQLiteError) -> Int {
        Int(try db.scalarText("PRAGMA user_version") ?? "0") ?? 0
    }

    private static func hasTable(_ db: SQLiteDatabase) throws(SQLiteError) -> Bool {
        let statement = try db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        try statement.bind([.text(table)])
        defer { statement.reset() }
        return try statement.step()
    }

    /// Throws `.unusable` unless `user_version` is 3 and `cacheObject` has the library's columns
    /// with their types (in any order: a database upgraded from version 1 has `key` and `length` last).
    private func check() throws(Problem) {
        let version: Int
        var found: [String: String] = [:]
        do throws(SQLiteError) {
            version = try FlutterDatabase.version(db)
            let info = try db.prepare("PRAGMA table_info(cacheObject)")
            try info.bind([])
            defer { info.reset() }
            while try info.step() {
                found[info.text(1) ?? ""] = (info.text(2) ?? "").lowercased()
            }
        } catch {
            throw FlutterDatabase.problem(error)
        }
        guard version == FlutterDatabase.userVersion else {
            let effect =
                version == 0
                ? "sqflite would run onCreate, whose create table fails on a table that is there"
                : "sqflite opens it as version \(FlutterDatabase.userVersion) and would migrate it or fail"
            throw .unusable("its user_version is \(version), not \(FlutterDatabase.userVersion): \(effect)")
        }
        let expected = Dictionary(uniqueKeysWithValues: FlutterDatabase.columns.map { ($0.name, $0.type) })
        guard found == expected else {
            let shown = found.isEmpty ? "it has no cacheObject table" : "its cacheObject table has other columns"
            let names = FlutterDatabase.columns.map(\.name).joined(separator: ", ")
            throw .unusable("\(shown) than the library's (\(names))")
        }
    }

    // MARK: Reading

    private static let selectColumns = "_id, url, key, relativePath, eTag, validTill, touched, length"

    /// The statement for `sql`, compiled at its first use on this connection and kept.
    func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try db.prepare(sql)
        statements[sql] = statement
        return statement
    }

    private func rows(_ sql: String, _ values: [SQLiteStatement.Value]) throws(Problem) -> [Row] {
        var rows: [Row] = []
        try eachRow(sql, values) { rows.append($0) }
        return rows
    }

    /// Hands each row `sql` selects to `body`, none kept.
    private func eachRow(_ sql: String, _ values: [SQLiteStatement.Value], _ body: (Row) -> Void) throws(Problem) {
        if isUnmade { return }
        do {
            let statement = try statement("SELECT \(FlutterDatabase.selectColumns) FROM cacheObject \(sql)")
            try statement.bind(values)
            defer { statement.reset() }
            while try statement.step() {
                body(
                    Row(
                        id: statement.int64(0), url: statement.text(1) ?? "", key: statement.text(2) ?? "",
                        relativePath: statement.text(3) ?? "", eTag: statement.isNull(4) ? nil : statement.text(4),
                        validTill: statement.int64(5), touched: statement.int64(6),
                        length: statement.isNull(7) ? nil : statement.int64(7)))
            }
        } catch {
            throw FlutterDatabase.problem(error)
        }
    }

    /// Every row, one at a time (`getAllObjects` without holding them all).
    public func forEachRow(_ body: (Row) -> Void) throws(Problem) { try eachRow("", [], body) }

    /// The row `get(key)` returns: the first whose key is `key`.
    public func row(forKey key: String) throws(Problem) -> Row? {
        try rows("WHERE key = ?", [.text(key)]).first
    }

    /// Every row (`getAllObjects`).
    public func allRows() throws(Problem) -> [Row] { try rows("", []) }

    /// `getObjectsOverCapacity(capacity)`: rows touched before `now` − 1 day, most recently
    /// touched first, after the first `capacity` of them, at most 100.
    public func overCapacity(now: Int64, capacity: Int = FlutterDatabase.capacity) throws(Problem) -> [Row] {
        try rows(
            "WHERE touched < ? ORDER BY touched DESC LIMIT ? OFFSET ?",
            [
                .integer(now - FlutterDatabase.recentPeriod), .integer(Int64(FlutterDatabase.batchLimit)),
                .integer(Int64(capacity)),
            ])
    }

    /// `getOldObjects(stalePeriod)`: rows touched before `now` − `stalePeriod`, at most 100, in
    /// the order SQLite gives them (the library's query has no `ORDER BY`).
    public func oldObjects(now: Int64, stalePeriod: Int64 = FlutterDatabase.stalePeriod) throws(Problem) -> [Row] {
        try rows(
            "WHERE touched < ? LIMIT ?", [.integer(now - stalePeriod), .integer(Int64(FlutterDatabase.batchLimit))])
    }

    // MARK: Writing

    /// Writes `put`'s row, `touched` = `now`, as `updateOrInsert` does: the key's row is updated
    /// in place (its `_id` kept), else a row is inserted. Returns the `relativePath` the key's row
    /// had before when it differs (the file the library removes once the new row is in).
    @discardableResult
    public func put(_ put: Put, now: Int64) throws(Problem) -> String? {
        do {
            return try inTransaction { () throws(SQLiteError) -> String? in
                let find = try statement("SELECT _id, relativePath FROM cacheObject WHERE key = ? LIMIT 1")
                try find.bind([.text(put.key)])
                var previous: (id: Int64, path: String?)?
                if try find.step() { previous = (find.int64(0), find.isNull(1) ? nil : find.text(1)) }
                find.reset()
                let values: [SQLiteStatement.Value] = [
                    .text(put.url), .text(put.key), .text(put.relativePath), put.eTag.map { .text($0) } ?? .null,
                    .integer(put.validTill), .integer(now), .integer(put.length),
                ]
                if let previous {
                    try statement(
                        """
                        UPDATE cacheObject SET url = ?, key = ?, relativePath = ?, eTag = ?, validTill = ?, \
                        touched = ?, length = ? WHERE _id = ?
                        """
                    ).run(values + [.integer(previous.id)])
                    return previous.path == put.relativePath ? nil : previous.path
                }
                try statement(
                    "INSERT INTO cacheObject (url, key, relativePath, eTag, validTill, touched, length) VALUES (?, ?, ?, ?, ?, ?, ?)"
                ).run(values)
                return nil
            }
        } catch {
            throw FlutterDatabase.problem(error)
        }
    }

    /// The library's read of a hit: the row written again with `touched` = `now`.
    public func touch(id: Int64, now: Int64) throws(Problem) {
        do {
            try statement("UPDATE cacheObject SET touched = ? WHERE _id = ?").run([.integer(now), .integer(id)])
        } catch {
            throw FlutterDatabase.problem(error)
        }
    }

    /// The rows the library's cleanup removes at `now` (`CacheStore._cleanupCache`: the rows of
    /// `overCapacity` and of `oldObjects`, then `deleteAll`), run again until a run removes
    /// nothing, or every row (`emptyCache`) when `all`; each with `stale` true when it was old.
    /// The deletions are committed when `apply`, else rolled back (a dry run).
    public func cleanup(now: Int64, all: Bool, apply: Bool) throws(Problem) -> [(row: Row, stale: Bool)] {
        if isUnmade { return [] }
        do {
            try db.execute("BEGIN IMMEDIATE")
        } catch {
            throw FlutterDatabase.problem(error)
        }
        var removed: [(row: Row, stale: Bool)] = []
        do throws(Problem) {
            if all {
                removed = try allRows().map { ($0, false) }
                try deleteInTransaction(removed.map(\.row.id))
            } else {
                while true {
                    let old = try oldObjects(now: now)
                    let stale = Set(old.map(\.id))
                    var round: [(row: Row, stale: Bool)] = []
                    var ids = Set<Int64>()
                    for row in try overCapacity(now: now) + old where ids.insert(row.id).inserted {
                        round.append((row, stale.contains(row.id)))
                    }
                    if round.isEmpty { break }
                    try deleteInTransaction(round.map(\.row.id))
                    removed += round
                }
            }
            try execute(apply ? "COMMIT" : "ROLLBACK")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        return removed
    }

    private func execute(_ sql: String) throws(Problem) {
        do { try db.execute(sql) } catch { throw FlutterDatabase.problem(error) }
    }

    private func deleteInTransaction(_ ids: [Int64]) throws(Problem) {
        do {
            let statement = try db.prepare("DELETE FROM cacheObject WHERE _id = ?")
            for id in ids { try statement.run([.integer(id)]) }
        } catch {
            throw FlutterDatabase.problem(error)
        }
    }

    /// A 304's update: `validTill`, `eTag` and `touched` = `now`, the file and length kept.
    public func revalidate(id: Int64, validTill: Int64, eTag: String?, now: Int64) throws(Problem) {
        do {
            try statement("UPDATE cacheObject SET validTill = ?, eTag = ?, touched = ? WHERE _id = ?").run([
                .integer(validTill), eTag.map { .text($0) } ?? .null, .integer(now), .integer(id),
            ])
        } catch {
            throw FlutterDatabase.problem(error)
        }
    }

    /// `deleteAll(ids)`.
    public func delete(ids: [Int64]) throws(Problem) {
        guard !ids.isEmpty else { return }
        do {
            try db.transaction { () throws(SQLiteError) in
                let statement = try db.prepare("DELETE FROM cacheObject WHERE _id = ?")
                for id in ids { try statement.run([.integer(id)]) }
            }
        } catch {
            throw FlutterDatabase.problem(error)
        }
    }
}
