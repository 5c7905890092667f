import Foundation
import ImgwarmSystem
import SQLite
import TestSupport
import Testing

@testable import ImgwarmKit

/// The state database on real SQLite files, without the binary: schema and migrations, the
/// read-only mode, damage handling, the blacklist's expiry and the records.
@Suite struct StateStoreTests {
    func path(_ temp: TemporaryFolder) -> String { temp.path("private/state.sqlite") }

    /// Reading a database no writer has open (a dry run, `stats`, `pack`, the prefetch's check
    /// run ahead) leaves no `-wal` or `-shm` beside it (issue 50).
    @Test func aReaderLeavesNoWALFilesBeside() throws {
        let temp = try TemporaryFolder()
        do {
            let store = try StateStore(path: path(temp))
            _ = try store.counts()
        }
        let beside = { try FileManager.default.contentsOfDirectory(atPath: temp.path("private")).sorted() }
        #expect(try beside() == ["state.sqlite"], "the writer closed cleanly")
        try markForCheck(path(temp))
        #expect(StateStore.quickCheck(path: path(temp)) != nil)
        #expect(try beside() == ["state.sqlite", "state.sqlite-check"], "after the quick check")
        try FileManager.default.removeItem(atPath: StateStore.checkMark(path(temp)))
        do {
            let reader = try #require(try StateStore.openExisting(path: path(temp)))
            #expect(try reader.counts() == (trackedKeys: 0, blacklisted: 0))
        }
        #expect(try beside() == ["state.sqlite"], "after a read-only opening")
    }

    @Test func freshDatabaseHasTheCurrentSchemaAndIsPrivate() throws {
        let temp = try TemporaryFolder()
        let store = try StateStore(path: path(temp))
        #expect(try store.db.scalarText("PRAGMA user_version") == "\(StateStore.schemaVersion)")
        #expect(try store.db.scalarText("PRAGMA journal_mode") == "wal")
        var info = stat()
        #expect(stat(path(temp), &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    /// An older database (schema 0: an empty SQLite file) is migrated; an earlier version's
    /// group-readable file loses group and other access.
    @Test func olderDatabasesAreMigratedAndMadePrivate() throws {
        let temp = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: temp.path("private"), withIntermediateDirectories: true)
        do {
            let db = try SQLiteDatabase(path: path(temp))
            try db.execute("CREATE TABLE unrelated(x)")
        }
        #expect(chmod(path(temp), 0o644) == 0)
        let store = try StateStore(path: path(temp))
        #expect(try store.db.scalarText("PRAGMA user_version") == "\(StateStore.schemaVersion)")
        #expect(try store.counts() == (trackedKeys: 0, blacklisted: 0))
        var info = stat()
        #expect(stat(path(temp), &info) == 0 && info.st_mode & 0o077 == 0)
    }

    @Test func newerDatabasesAreRefusedNotRebuilt() throws {
        let temp = try TemporaryFolder()
        _ = try StateStore(path: path(temp))
        try SQLiteDatabase(path: path(temp)).execute("PRAGMA user_version = 99")
        #expect(throws: StateError.self) { try StateStore(path: path(temp)) }
        #expect(try SQLiteDatabase(path: path(temp)).scalarText("PRAGMA user_version") == "99", "left as it was")
    }

    /// Read-only opening creates nothing, migrates nothing and moves nothing aside.
    @Test func readOnlyOpeningChangesNothing() throws {
        let temp = try TemporaryFolder()
        #expect(try StateStore.openExisting(path: path(temp)) == nil)
        #expect(!FileManager.default.fileExists(atPath: temp.path("private")))
        #expect(throws: StateError.self) { try StateStore(path: path(temp), readOnly: true) }
        #expect(!FileManager.default.fileExists(atPath: temp.path("private")))

        try temp.write("private/state.sqlite", Data(repeating: 0x41, count: 4096))
        #expect(throws: StateError.self) { try StateStore.openExisting(path: path(temp)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path("private")) == ["state.sqlite"])

        let writable = try StateStore(path: path(temp))
        #expect(writable.movedAside != nil, "a writer moves the damaged file aside and rebuilds")
        try writable.begin()
        try writable.blacklist(
            .init(
                url: "http://a/x", failedAt: 1, errorClass: "http-status", message: "404", httpStatus: 404, attempts: 1)
        )
        try writable.commit()
        let reader = try #require(try StateStore.openExisting(path: path(temp)))
        #expect(try reader.blacklistEntries().map(\.url) == ["http://a/x"])
        #expect(throws: StateError.self) { try reader.clearBlacklist() }
    }

    /// SQLite's check run ahead (while a prefetch reads its lists, when it is due) creates
    /// nothing, and names the intact file it checked (none for a missing or damaged one); an
    /// opening trusts it for that file only: another file put in its place is checked, and moved
    /// aside when damaged.
    @Test func theCheckRunAhead() throws {
        let temp = try TemporaryFolder()
        #expect(StateStore.quickCheck(path: path(temp)) == nil)
        #expect(!FileManager.default.fileExists(atPath: temp.path("private")))
        _ = try StateStore(path: path(temp))
        #expect(StateStore.quickCheck(path: path(temp)) == nil, "not due after a clean end")
        try markForCheck(path(temp))
        let checked = try #require(StateStore.quickCheck(path: path(temp)))
        #expect(try StateStore(path: path(temp), checked: checked).movedAside == nil)

        let damaged = temp.path("private/damaged.sqlite")
        try makeDamagedDatabase(damaged)
        try markForCheck(damaged)
        #expect(StateStore.quickCheck(path: damaged) == nil)
        try FileSystem.rename(damaged, to: path(temp))
        try markForCheck(path(temp))
        let reopened = try StateStore(path: path(temp), checked: checked)
        #expect(reopened.movedAside != nil, "the check was of the file replaced")
    }

    /// A database whose header and schema open but whose blacklist's root page is damaged
    /// (2,000 rows): only SQLite's check, or a read of the blacklist, finds it.
    func makeDamagedDatabase(_ path: String) throws {
        let root: UInt64
        do {
            let store = try StateStore(path: path)
            try store.begin()
            for n in 0..<2000 {
                try store.blacklist(
                    .init(
                        url: "http://a/\(n)", failedAt: 1, errorClass: "http-status", message: "404", httpStatus: 404,
                        attempts: 1))
            }
            try store.commit()
            let page = try store.db.scalarText("SELECT rootpage FROM sqlite_schema WHERE name = 'blacklist'")
            root = try #require(page.flatMap { UInt64($0) })
        }
        let file = try #require(FileHandle(forWritingAtPath: path))
        try file.seek(toOffset: (root - 1) * 4096 + 8)
        file.write(Data(repeating: 0xFF, count: 200))
        try file.close()
    }

    func markForCheck(_ path: String) throws {
        #expect(FileManager.default.createFile(atPath: StateStore.checkMark(path), contents: Data()))
    }

    /// SQLite's check reads every page, so its cost grows with the history the database keeps
    /// (issue 50): it runs only when the last use may not have ended cleanly. A database closed
    /// cleanly is opened on its header and schema; one a killed writer left (its `-wal` beside
    /// it) is checked, and so is one carrying the mark of a corruption met in use.
    @Test func theCheckRunsOnlyAfterAnUncleanEnd() throws {
        let temp = try TemporaryFolder()
        _ = try StateStore(path: path(temp))
        #expect(!StateStore.checkDue(path(temp)))
        #expect(try !StateStore(path: path(temp)).integrityChecked, "closed cleanly: not checked")
        #expect(try !StateStore(path: path(temp), readOnly: true).integrityChecked)

        // What a writer killed mid-run leaves: the database and its -wal, copied while it is open.
        let killed = temp.path("killed/state.sqlite")
        try FileManager.default.createDirectory(atPath: temp.path("killed"), withIntermediateDirectories: true)
        do {
            let writer = try StateStore(path: path(temp))
            try writer.begin()
            try writer.blacklist(
                .init(
                    url: "http://a/x", failedAt: 1, errorClass: "http-status", message: "404", httpStatus: 404,
                    attempts: 1))
            try writer.commit()
            #expect(FileManager.default.fileExists(atPath: path(temp) + "-wal"))
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: path(temp) + suffix, toPath: killed + suffix)
            }
        }
        #expect(StateStore.checkDue(killed))
        do {
            let recovered = try StateStore(path: killed)
            #expect(recovered.integrityChecked && recovered.movedAside == nil)
            #expect(try recovered.blacklistEntries().map(\.url) == ["http://a/x"], "the -wal's commit kept")
        }
        #expect(!StateStore.checkDue(killed), "closed cleanly: the -wal is gone")
        #expect(try !StateStore(path: killed).integrityChecked)

        try markForCheck(path(temp))
        #expect(try StateStore(path: path(temp), readOnly: true).integrityChecked)
        #expect(StateStore.checkDue(path(temp)), "a reader leaves the mark to the next writer")
        #expect(try StateStore(path: path(temp)).integrityChecked)
        #expect(!FileManager.default.fileExists(atPath: StateStore.checkMark(path(temp))), "checked: the mark removed")
    }

    /// Damage the opening does not look for is met when its page is read: that read fails with
    /// SQLite's words and leaves the mark, and the next writer checks, moves the file aside and
    /// rebuilds it; a reader that meets the mark checks and refuses the file.
    @Test func damageMetInUseIsCheckedAndRebuiltByTheNextOpening() throws {
        let temp = try TemporaryFolder()
        try makeDamagedDatabase(path(temp))
        let reader = try #require(try StateStore.openExisting(path: path(temp)), "the header and schema are intact")
        #expect(!reader.integrityChecked)
        #expect {
            try reader.blacklistEntries()
        } throws: {
            "\($0)".contains("the next prefetch checks it, moves it aside and rebuilds it")
        }
        #expect(StateStore.checkDue(path(temp)), "the mark left")
        #expect(throws: StateError.self) { try StateStore.openExisting(path: path(temp)) }

        let writer = try StateStore(path: path(temp))
        #expect(writer.integrityChecked)
        let aside = try #require(writer.movedAside)
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(try writer.blacklistEntries().isEmpty, "rebuilt")
        #expect(!FileManager.default.fileExists(atPath: StateStore.checkMark(path(temp))))
    }

    /// Entries expire `ttl` after their failure: at exactly the limit, not a moment before.
    @Test func blacklistEntriesExpireAfterTheirTTL() throws {
        let temp = try TemporaryFolder()
        let store = try StateStore(path: path(temp))
        try store.blacklist(
            .init(
                url: "http://a/x", failedAt: 1000, errorClass: "not-an-image", message: "html", httpStatus: 200,
                attempts: 1))
        let week = Expiry.after(seconds: 7 * 86400)
        #expect(
            try store.blacklistEntry(forURL: "http://a/x", now: 1000 + 7 * 86400 - 1, ttl: week)?.errorClass
                == "not-an-image")
        #expect(try store.blacklistEntry(forURL: "http://a/x", now: 1000 + 7 * 86400, ttl: week) == nil)
        #expect(try store.blacklistEntry(forURL: "http://a/x", now: 1e12, ttl: .never) != nil)
        #expect(try store.blacklistEntry(forURL: "http://a/x", now: 1000, ttl: .after(seconds: 0)) == nil)
        #expect(try store.unblacklist("http://a/x"))
        #expect(try !store.unblacklist("http://a/x"))
    }

    /// `clean` removes rows; when most of the file is then free pages, their space goes back to
    /// the file system (SQLite keeps freed pages otherwise, and the file never shrank).
    @Test func removedRowsGiveTheirSpaceBackWhenMostOfTheFileIsFree() throws {
        let temp = try TemporaryFolder()
        let store = try StateStore(path: path(temp))
        try store.begin()
        for n in 0..<5000 {
            try store.recordStored(
                StateStore.Record(
                    key: "https://cdn.example.com/history/\(n).jpg?" + String(repeating: "w", count: 200),
                    fileName: "\(n).jpg", size: 1, format: "jpeg", width: 1, height: 1, etag: nil, lastModified: nil,
                    fetchedAt: 1, validatedAt: 1))
        }
        try store.commit()
        _ = try store.db.scalarText("PRAGMA wal_checkpoint(TRUNCATE)")
        let size = { () throws -> UInt64 in try FileSystem.status(ofPath: self.path(temp)).size }
        let full = try size()
        #expect(full > 1_000_000)
        #expect(try !store.reclaimSpaceWhenMostlyFree(), "nothing free: left as it is")

        try store.begin()
        #expect(try store.removeRecords { name in name != "7.jpg" } == 4999)
        try store.commit()
        #expect(try store.reclaimSpaceWhenMostlyFree())
        let compacted = try size()
        #expect(compacted * 10 < full, "from \(full) bytes to \(compacted)")
        #expect(
            try store.record(forKey: "https://cdn.example.com/history/7.jpg?" + String(repeating: "w", count: 200))
                != nil)
    }

    @Test func recordsAndStaleRows() throws {
        let temp = try TemporaryFolder()
        let store = try StateStore(path: path(temp))
        let record = StateStore.Record(
            key: "k", fileName: "f.png", size: 10, format: "png", width: 2, height: 3, etag: "\"v1\"",
            lastModified: nil,
            fetchedAt: 5, validatedAt: 5)
        try store.recordStored(record)
        try store.recordStored(
            StateStore.Record(
                key: "gone", fileName: "g.png", size: 1, format: nil, width: nil, height: nil, etag: nil,
                lastModified: nil, fetchedAt: 1, validatedAt: 1))
        #expect(try store.record(forKey: "k") == record)
        try store.recordRevalidated(key: "k", etag: "\"v2\"", lastModified: "Tue, 01 Jan 2030 00:00:00 GMT", at: 9)
        #expect(try store.record(forKey: "k")?.etag == "\"v2\"")
        #expect(try store.removeRecords { $0 == "g.png" } == 1)
        var names: [String] = []
        try store.forEachTrackedFileName { names.append($0) }
        #expect(names == ["f.png"])
    }

    /// A blacklist entry of a failure that depends on the client (TLS, 401, 403, 407) holds only
    /// for the configuration that produced it; one without a fingerprint holds for every one.
    @Test func clientDependentEntriesHoldForTheirConfigurationOnly() throws {
        let temp = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: temp.path("private"), withIntermediateDirectories: true)
        let store = try StateStore(path: path(temp))
        let now = 1_000_000.0
        try store.blacklist(
            .init(
                url: "u403", failedAt: now, errorClass: "http-status", message: "403", httpStatus: 403, attempts: 1,
                client: "aaaa"))
        try store.blacklist(
            .init(url: "u404", failedAt: now, errorClass: "http-status", message: "404", httpStatus: 404, attempts: 1))
        let ttl = Expiry.after(seconds: 3600)
        #expect(try store.blacklistEntry(forURL: "u403", now: now, ttl: ttl, client: "aaaa")?.client == "aaaa")
        #expect(try store.blacklistEntry(forURL: "u403", now: now, ttl: ttl, client: "bbbb") == nil)
        #expect(try store.blacklistEntry(forURL: "u404", now: now, ttl: ttl, client: "bbbb") != nil)
        #expect(try store.blacklistEntries().count == 2, "nothing is removed by a lookup")
    }

    /// A database of schema 1 (before the blacklist's client column) is read by the read-only
    /// commands as it is, and migrated by the next writer with its entries kept.
    @Test func schemaOneIsReadThenMigrated() throws {
        let temp = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: temp.path("private"), withIntermediateDirectories: true)
        do {
            let db = try SQLiteDatabase(path: path(temp))
            try db.execute(StateStore.migrations[0])
            try db.execute("PRAGMA user_version = 1")
            try db.execute(
                "INSERT INTO blacklist(key, failed_at, error_class, message, http_status, attempts) VALUES ('u', 5, 'tls', 'm', NULL, 1)"
            )
        }
        let reader = try #require(try StateStore.openExisting(path: path(temp)))
        #expect(try reader.blacklistEntry(forURL: "u", now: 6, ttl: .never, client: "any")?.errorClass == "tls")
        #expect(try reader.db.scalarText("PRAGMA user_version") == "1", "a reader migrates nothing")
        let writer = try StateStore(path: path(temp))
        #expect(try writer.db.scalarText("PRAGMA user_version") == "\(StateStore.schemaVersion)")
        #expect(try writer.blacklistEntries().map(\.url) == ["u"])
        #expect(
            try writer.blacklistEntry(forURL: "u", now: 6, ttl: .never, client: "any") != nil, "no fingerprint: holds")
    }
}
