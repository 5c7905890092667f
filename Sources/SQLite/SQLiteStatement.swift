import CSQLite

/// A compiled statement, owned by one Swift object and finalized in `deinit`.
public final class SQLiteStatement {
    let handle: OpaquePointer
    let database: SQLiteDatabase

    init(handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// A value to bind to a `?` parameter.
    public enum Value: Sendable, Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
    }

    /// Resets the statement and binds `values` to its parameters, in order.
    @discardableResult
    public func bind(_ values: [Value]) throws(SQLiteError) -> SQLiteStatement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text): code = sqlite3_bind_text(handle, index, text, -1, imgwarm_sqlite_transient())
            }
            guard code == SQLITE_OK else { throw database.error(code) }
        }
        return self
    }

    /// Advances to the next row: true when there is one, false when the statement is done.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let failure = database.error(code)
            sqlite3_reset(handle)
            throw failure
        }
    }

    /// Binds, runs to completion and resets: for INSERT, UPDATE and DELETE.
    public func run(_ values: [Value] = []) throws(SQLiteError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    public func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: pointer)
    }

    /// Ends the current execution so the statement releases its read lock.
    public func reset() {
        sqlite3_reset(handle)
    }
}
