import CSQLite

/// A failed SQLite call: the result code and SQLite's own message.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The (extended) result code, e.g. `SQLITE_BUSY` (5), `SQLITE_CORRUPT` (11), `SQLITE_NOTADB` (26).
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The primary result code (the low byte of an extended code).
    public var primaryCode: Int32 { code & 0xff }

    /// True for "the database is locked by someone else" (`SQLITE_BUSY`, `SQLITE_LOCKED`).
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    /// True when the file is not a database or is damaged (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
    public var isCorruption: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }

    /// True when a page of the file is damaged (`SQLITE_CORRUPT`), the header having opened.
    public var isDamagedPage: Bool { primaryCode == SQLITE_CORRUPT }

    public var description: String { "SQLite error \(code): \(message)" }
}
