import SQLite

/// Rows copied from another cache's database (`imgwarm merge`, docs/merge.md): the records of the
/// entries a merge copied, and the blacklist, each kept in this database's URL identity.
extension StateStore {
    /// Every record, by the name of its entry in the cache folder (the last one read when several
    /// keys name one file), its key as stored here.
    public func recordsByFileName() throws(StateError) -> [String: Record] {
        var records: [String: Record] = [:]
        try query(
            "SELECT key, file_name, size, format, width, height, etag, last_modified, fetched_at, validated_at FROM entries"
        ) { row in
            guard let key = row.text(0), let name = row.text(1) else { return }
            records[name] = Record(
                key: key, fileName: name, size: Int(row.int64(2)), format: row.text(3),
                width: row.isNull(4) ? nil : Int(row.int64(4)), height: row.isNull(5) ? nil : Int(row.int64(5)),
                etag: row.text(6), lastModified: row.text(7), fetchedAt: row.double(8), validatedAt: row.double(9))
        }
        return records
    }

    /// Every blacklist entry as stored (its URL as stored here), with its client fingerprint.
    public func storedBlacklist() throws(StateError) -> [BlacklistEntry] {
        var entries: [BlacklistEntry] = []
        let columns = "key, failed_at, error_class, message, http_status, attempts" + (version >= 2 ? ", client" : "")
        try query("SELECT \(columns) FROM blacklist ORDER BY key") { row in
            var entry = StateStore.decodeBlacklist(row)
            if version >= 2, !row.isNull(6) { entry.client = row.text(6) }
            entries.append(entry)
        }
        return entries
    }

    /// `key`, as `other` stores it, in `destination`'s identity (nil: a database not made yet,
    /// whose salt will be new): the same URL when it holds no password digest, or when both
    /// databases digest with one salt; nil when its password's digest was made with another salt
    /// (the password is not known, so it cannot be made the destination's: such a row is not
    /// copied).
    public static func key(_ key: String, storedBy other: StateStore, for destination: StateStore?) -> String? {
        guard let range = passwordRange(in: key), key[range].hasPrefix(digestPrefix) else {
            return destination?.storedKey(key) ?? key
        }
        guard let destination, let salt = other.credentialSalt, salt == destination.credentialSalt else { return nil }
        return key
    }

    /// Removes the record of the entry named `fileName` (a merge replaced its files with a copy
    /// whose database has no record of it: the old validators are not the new copy's).
    public func removeRecord(fileName: String) throws(StateError) {
        try run(try statement("DELETE FROM entries WHERE file_name = ?"), [.text(fileName)])
    }

    /// When the blacklist entry stored under `key` (as stored here) failed; nil when there is none.
    public func blacklistedAt(storedKey key: String) throws(StateError) -> Double? {
        var found: Double?
        try query("SELECT failed_at FROM blacklist WHERE key = ?", [.text(key)]) { row in found = row.double(0) }
        return found
    }
}
