import SQLite

/// The persisted blacklist (SDWebImage's `failedURLs`, kept across runs, with an expiry).
extension StateStore {
    /// One blacklisted URL. The blacklist is by URL (what was fetched), not by cache key: the
    /// table's `key` column holds the URL.
    public struct BlacklistEntry: Sendable, Equatable {
        public var url: String
        public var failedAt: Double
        public var errorClass: String
        public var message: String
        public var httpStatus: Int?
        public var attempts: Int
        /// For a failure that depends on the client's configuration (TLS, 401, 403, 407), a
        /// fingerprint of that configuration (`FetchConfiguration.clientFingerprint`): the entry
        /// holds only while it is the same. Nil for the others.
        public var client: String?

        public init(
            url: String, failedAt: Double, errorClass: String, message: String, httpStatus: Int?, attempts: Int,
            client: String? = nil
        ) {
            self.url = url
            self.failedAt = failedAt
            self.errorClass = errorClass
            self.message = message
            self.httpStatus = httpStatus
            self.attempts = attempts
            self.client = client
        }
    }

    /// Puts (or refreshes) `entry.url` on the blacklist.
    public func blacklist(_ entry: BlacklistEntry) throws(StateError) {
        try run(
            try statement(
                """
                INSERT OR REPLACE INTO blacklist(key, failed_at, error_class, message, http_status, attempts, client) VALUES (?, ?, ?, ?, ?, ?, ?)
                """),
            [
                .text(storedKey(entry.url)), .real(entry.failedAt), .text(entry.errorClass),
                .text(Redaction.redactAll(entry.message)),
                integer(entry.httpStatus), .integer(Int64(entry.attempts)), entry.client.map { .text($0) } ?? .null,
            ])
    }

    /// The blacklist entry of `url` that is still in force at `now` for a client whose
    /// configuration has the fingerprint `client` (nil when absent, expired, or recorded for
    /// another configuration).
    public func blacklistEntry(forURL url: String, now: Double, ttl: Expiry, client: String? = nil) throws(StateError)
        -> BlacklistEntry?
    {
        var found: BlacklistEntry?
        let columns = "key, failed_at, error_class, message, http_status, attempts" + (version >= 2 ? ", client" : "")
        try query("SELECT \(columns) FROM blacklist WHERE key = ?", [.text(storedKey(url))]) { row in
            found = StateStore.decodeBlacklist(row)
            found?.url = url
            if version >= 2, !row.isNull(6) { found?.client = row.text(6) }
        }
        guard let found else { return nil }
        if ttl.hasExpired(found.failedAt, now: now) { return nil }
        if let recorded = found.client, recorded != client { return nil }
        return found
    }

    /// True when the blacklist holds any entry (one index probe, whatever its size).
    public func hasBlacklistEntries() throws(StateError) -> Bool {
        var found = false
        try query("SELECT EXISTS(SELECT 1 FROM blacklist)") { row in found = row.int64(0) != 0 }
        return found
    }

    /// Takes `url` off the blacklist; true when it was on it.
    @discardableResult
    public func unblacklist(_ url: String) throws(StateError) -> Bool {
        try run(try statement("DELETE FROM blacklist WHERE key = ?"), [.text(storedKey(url))])
        return db.changes > 0
    }

    /// Every entry, oldest failure first.
    public func blacklistEntries() throws(StateError) -> [BlacklistEntry] {
        var entries: [BlacklistEntry] = []
        try query(
            "SELECT key, failed_at, error_class, message, http_status, attempts FROM blacklist ORDER BY failed_at, key"
        ) { row in
            entries.append(StateStore.decodeBlacklist(row))
        }
        return entries
    }

    /// Empties the blacklist; returns how many entries it held.
    @discardableResult
    public func clearBlacklist() throws(StateError) -> Int {
        try run(try statement("DELETE FROM blacklist"), [])
        return db.changes
    }

    static func decodeBlacklist(_ row: SQLiteStatement) -> BlacklistEntry {
        BlacklistEntry(
            url: row.text(0) ?? "", failedAt: row.double(1), errorClass: row.text(2) ?? "", message: row.text(3) ?? "",
            httpStatus: row.isNull(4) ? nil : Int(row.int64(4)), attempts: Int(row.int64(5)))
    }
}
