import ImgwarmSystem
import SQLite

/// Per-key records: what was stored and the validators `--refresh` sends.
extension StateStore {
    /// One stored key.
    public struct Record: Sendable, Equatable {
        public var key: String
        public var fileName: String
        public var size: Int
        public var format: String?
        public var width: Int?
        public var height: Int?
        public var etag: String?
        public var lastModified: String?
        public var fetchedAt: Double
        public var validatedAt: Double

        public init(
            key: String, fileName: String, size: Int, format: String?, width: Int?, height: Int?,
            etag: String?, lastModified: String?, fetchedAt: Double, validatedAt: Double
        ) {
            self.key = key
            self.fileName = fileName
            self.size = size
            self.format = format
            self.width = width
            self.height = height
            self.etag = etag
            self.lastModified = lastModified
            self.fetchedAt = fetchedAt
            self.validatedAt = validatedAt
        }
    }

    /// Records a download (replacing any earlier record of the key).
    public func recordStored(_ record: Record) throws(StateError) {
        try run(
            try statement(
                """
                INSERT OR REPLACE INTO entries(key, file_name, size, format, width, height, etag, last_modified, fetched_at, validated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """),
            [
                .text(storedKey(record.key)), .text(record.fileName), .integer(Int64(record.size)),
                text(record.format),
                integer(record.width), integer(record.height), text(record.etag), text(record.lastModified),
                .real(record.fetchedAt), .real(record.validatedAt),
            ])
    }

    /// A `304 Not Modified`: the record was confirmed now (and the server may send new validators).
    public func recordRevalidated(key: String, etag: String?, lastModified: String?, at time: Double) throws(StateError)
    {
        try run(
            try statement(
                """
                UPDATE entries SET validated_at = ?, etag = coalesce(?, etag), last_modified = coalesce(?, last_modified) WHERE key = ?
                """), [.real(time), text(etag), text(lastModified), .text(storedKey(key))])
    }

    /// The record of `key`, or nil.
    public func record(forKey key: String) throws(StateError) -> Record? {
        var found: Record?
        try query(
            "SELECT key, file_name, size, format, width, height, etag, last_modified, fetched_at, validated_at FROM entries WHERE key = ?",
            [.text(storedKey(key))]
        ) { row in
            found = Record(
                key: key, fileName: row.text(1) ?? "", size: Int(row.int64(2)), format: row.text(3),
                width: row.isNull(4) ? nil : Int(row.int64(4)), height: row.isNull(5) ? nil : Int(row.int64(5)),
                etag: row.text(6), lastModified: row.text(7), fetchedAt: row.double(8), validatedAt: row.double(9))
        }
        return found
    }

    /// Removes the records whose file is gone (`isGone(fileName)`, asked once per row); returns
    /// how many.
    @discardableResult
    public func removeRecords(whereFileIsGone isGone: (String) -> Bool) throws(StateError) -> Int {
        // In batches by key, so neither the rows nor the stale keys of a large database are held.
        let batchSize = 1000
        var removed = 0
        var after: String?
        let delete = try statement("DELETE FROM entries WHERE key = ?")
        while true {
            var batch: [(key: String, name: String)] = []
            if let after {
                try query(
                    "SELECT key, file_name FROM entries WHERE key > ? ORDER BY key LIMIT \(batchSize)", [.text(after)]
                ) { row in
                    if let key = row.text(0), let name = row.text(1) { batch.append((key, name)) }
                }
            } else {
                try query("SELECT key, file_name FROM entries ORDER BY key LIMIT \(batchSize)") { row in
                    if let key = row.text(0), let name = row.text(1) { batch.append((key, name)) }
                }
            }
            for row in batch where isGone(row.name) {
                try run(delete, [.text(row.key)])
                removed += 1
            }
            guard batch.count == batchSize, let last = batch.last else { return removed }
            after = last.key
        }
    }

    /// Gives the space of removed rows back to the file system when most of the database is
    /// free pages and it holds at least `minimumPages` (SQLite keeps freed pages for reuse, so
    /// `clean` removing rows never shrank the file): `VACUUM` rewrites it, and a checkpoint of
    /// the WAL lets the file shrink. Outside a transaction. Returns whether it compacted.
    @discardableResult
    public func reclaimSpaceWhenMostlyFree(minimumPages: Int = 256) throws(StateError) -> Bool {
        do {
            let pages = Int(try db.scalarText("PRAGMA page_count") ?? "") ?? 0
            let free = Int(try db.scalarText("PRAGMA freelist_count") ?? "") ?? 0
            guard pages >= minimumPages, free * 2 > pages else { return false }
            try StateStore.retryingWhileBusy(until: Monotonic.now() + busyTimeout) { () throws(SQLiteError) in
                try db.execute("VACUUM")
            }
            _ = try db.scalarText("PRAGMA wal_checkpoint(TRUNCATE)")
            return true
        } catch {
            throw StateStore.classify(error, path: path)
        }
    }

    /// Calls `body` with the file name of every record (once per key: several keys may name one
    /// file), one row at a time.
    public func forEachTrackedFileName(_ body: (String) -> Void) throws(StateError) {
        try query("SELECT file_name FROM entries") { row in if let name = row.text(0) { body(name) } }
    }

    /// Calls `body` with every recorded key and the name of its entry in the cache folder
    /// (`pack`'s manifest names each file's key where the state knows it).
    public func forEachKeyAndFileName(_ body: (String, String) -> Void) throws(StateError) {
        try query("SELECT key, file_name FROM entries") { row in
            if let key = row.text(0), let name = row.text(1) { body(key, name) }
        }
    }

    func text(_ value: String?) -> SQLiteStatement.Value { value.map { .text($0) } ?? .null }
    func integer(_ value: Int?) -> SQLiteStatement.Value { value.map { .integer(Int64($0)) } ?? .null }
}
