import CSQLite

/// Facts about the SQLite library linked in, as Swift values.
public enum SQLiteLibrary {
    /// The version, e.g. `3.40.1` (`sqlite3_libversion`).
    public static var version: String { String(cString: sqlite3_libversion()) }

    /// The check-in the library was built from: date, time and hash (`sqlite3_sourceid`).
    public static var sourceID: String { String(cString: sqlite3_sourceid()) }

    /// True when the library may be used from several threads (`sqlite3_threadsafe`).
    public static var isThreadSafe: Bool { sqlite3_threadsafe() != 0 }

    /// True when the library was compiled with `SQLITE_<option>` (`sqlite3_compileoption_used`),
    /// e.g. `ENABLE_FTS5`.
    public static func hasCompileOption(_ option: String) -> Bool {
        sqlite3_compileoption_used(option) != 0
    }
}
