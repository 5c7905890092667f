import SQLite

/// No password in the state (issue 50, docs/usage.md "Credentials"): a URL `scheme://user:PASSWORD@host/…`
/// is kept as `scheme://user:sha256.<digest>@host/…`, the digest of the password with a random
/// salt of this database (its `meta` table, schema 3), so neither the password nor its Basic
/// encoding is in any file imgwarm owns, and two credentials stay two keys. A database written
/// by an earlier version is rewritten so on migration, its freed pages wiped (`secure_delete`,
/// then `VACUUM` and a truncating checkpoint of the WAL).
extension StateStore {
    /// The name of the salt in `meta`.
    static let saltName = "credential-salt"

    /// `url` as the state keeps it: its password replaced by its salted digest; unchanged when it
    /// has none (or the database predates schema 3 and is only read).
    func storedKey(_ url: String) -> String {
        guard let salt = credentialSalt else { return url }
        return StateStore.storedKey(url, salt: salt)
    }

    static func storedKey(_ url: String, salt: String) -> String {
        guard let range = passwordRange(in: url) else { return url }
        let password = url[range]
        guard !password.isEmpty, !password.hasPrefix(digestPrefix) else { return url }
        let digest = digestPrefix + Digest.sha256Hex(salt + ":" + password)
        return String(url[..<range.lowerBound]) + digest + String(url[range.upperBound...])
    }

    /// Where the password of `url`'s authority is (`scheme://user:PASSWORD@host`); nil when it
    /// has none.
    static func passwordRange(in url: String) -> Range<String.Index>? {
        guard let slashes = url.firstRange(of: "//") else { return nil }
        let start = slashes.upperBound
        let end = url[start...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        let authority = url[start..<end]
        guard let at = authority.lastIndex(of: "@") else { return nil }
        let userinfo = authority[authority.startIndex..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return nil }
        return userinfo.index(after: colon)..<at
    }

    /// What a password's digest starts with in a stored key.
    static let digestPrefix = "sha256."

    /// The salt of this database, read once; nil before schema 3.
    static func readSalt(_ db: SQLiteDatabase) -> String? {
        guard let version = Int((try? db.scalarText("PRAGMA user_version")) ?? ""), version >= 3 else { return nil }
        return try? db.scalarText("SELECT value FROM meta WHERE name = '\(saltName)'")
    }

    /// Schema 3's rewrite, inside the migration's transaction: every key and blacklisted URL
    /// with a password gets the digest instead, every blacklist message is redacted. True when
    /// a row changed (the caller then wipes the freed pages).
    static func rewriteCredentials(_ db: SQLiteDatabase, salt: String) throws(SQLiteError) -> Bool {
        var changed = false
        for table in ["entries", "blacklist"] {
            var keys: [String] = []
            let select = try db.prepare("SELECT key FROM \(table) WHERE key LIKE '%:%@%'")
            while try select.step() { if let key = select.text(0) { keys.append(key) } }
            for key in keys {
                let stored = storedKey(key, salt: salt)
                guard stored != key else { continue }
                // A row of the same credential already rewritten wins (the newer one).
                try db.prepare("DELETE FROM \(table) WHERE key = ?").run([.text(stored)])
                try db.prepare("UPDATE \(table) SET key = ? WHERE key = ?").run([.text(stored), .text(key)])
                changed = true
            }
        }
        var messages: [(String, String)] = []
        let select = try db.prepare("SELECT key, message FROM blacklist WHERE message LIKE '%:%@%'")
        while try select.step() {
            if let key = select.text(0), let message = select.text(1) { messages.append((key, message)) }
        }
        for (key, message) in messages where Redaction.redactAll(message) != message {
            try db.prepare("UPDATE blacklist SET message = ? WHERE key = ?").run([
                .text(Redaction.redactAll(message)), .text(key),
            ])
            changed = true
        }
        return changed
    }

    /// After a rewrite: the pages that held the passwords are wiped and the WAL emptied.
    static func wipeFreedPages(_ db: SQLiteDatabase) throws(SQLiteError) {
        try db.execute("PRAGMA secure_delete = ON")
        try db.execute("VACUUM")
        _ = try db.scalarText("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}
