import SQLite

/// Many writes in one transaction (docs/cache-formats-android.md, "flutter_cache_manager"): a
/// batch of stores and reads is one `BEGIN IMMEDIATE` … `COMMIT`, its statements compiled once.
/// The database stays in SQLite's default rollback-journal mode, as sqflite leaves it: a reader
/// sees the rows before the batch or after it, never part of it, and a process killed mid-batch
/// leaves a hot journal that the next connection rolls back.
extension FlutterDatabase {
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    /// The writes inside (`put`, `touch`, `revalidate`) join it instead of making their own.
    public func batch<T>(_ body: () throws(Problem) -> T) throws(Problem) -> T {
        do { try db.execute("BEGIN IMMEDIATE") } catch { throw FlutterDatabase.problem(error) }
        inBatch = true
        defer { inBatch = false }
        let value: T
        do { value = try body() } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
        do { try db.execute("COMMIT") } catch {
            try? db.execute("ROLLBACK")
            throw FlutterDatabase.problem(error)
        }
        return value
    }

    /// `body` in its own transaction, or in the batch's when one is open.
    func inTransaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        if inBatch { return try body() }
        return try db.transaction(body)
    }

    /// The library's read of a hit on `key`: the first row with that key (the one `get` returns)
    /// written again with `touched` = `now`. False when no row has the key.
    @discardableResult
    public func touch(key: String, now: Int64) throws(Problem) -> Bool {
        do {
            try statement(
                "UPDATE cacheObject SET touched = ? WHERE _id = (SELECT _id FROM cacheObject WHERE key = ? LIMIT 1)"
            ).run([.integer(now), .text(key)])
            return db.changes > 0
        } catch {
            throw FlutterDatabase.problem(error)
        }
    }
}
