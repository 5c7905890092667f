import CSQLite

/// One SQLite connection, owned by one Swift object and closed in `deinit`.
///
/// Not thread-safe by itself: give each thread its own connection, or guard one with a lock.
public final class SQLiteDatabase {
    let handle: OpaquePointer

    /// Opens (creating when asked) the database at `path`; with `noFollow`, not when `path` is a
    /// symbolic link (`SQLITE_OPEN_NOFOLLOW`).
    public init(path: String, readOnly: Bool = false, create: Bool = true, noFollow: Bool = false)
        throws(SQLiteError)
    {
        var pointer: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if noFollow { flags |= SQLITE_OPEN_NOFOLLOW }
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        let code = sqlite3_open_v2(path, &pointer, flags, nil)
        guard code == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            if let pointer { sqlite3_close_v2(pointer) }
            throw SQLiteError(code: code, message: message)
        }
        handle = pointer
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
    public func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs one or more statements that return no rows of interest.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(errorMessage)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message)
        }
    }

    /// Compiles one statement.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code) }
        return SQLiteStatement(handle: statement, database: self)
    }

    /// The first column of the first row of `sql`, as text (PRAGMA answers and the like).
    public func scalarText(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`), committing on success and rolling back
    /// when it throws.
    public func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func error(_ code: Int32) -> SQLiteError {
        SQLiteError(
            code: sqlite3_extended_errcode(handle) == 0 ? code : sqlite3_extended_errcode(handle), message: lastMessage)
    }
}
