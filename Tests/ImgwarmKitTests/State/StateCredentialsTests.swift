import Foundation
import SQLite
import TestSupport
import Testing

@testable import ImgwarmKit

/// No password in the state database (issue 50): a URL's password is kept as a salted digest,
/// neither it nor its Basic encoding is in any of the database's files, two credentials stay
/// two keys, and a database of an earlier version is rewritten with its freed pages wiped.
@Suite struct StateCredentialsTests {
    static let secret = "S3cretPassw0rd"

    /// Every byte of the database's files (the database, its WAL and shared memory).
    static func bytes(_ path: String) -> Data {
        var all = Data()
        for suffix in ["", "-wal", "-shm"] { all += (FileManager.default.contents(atPath: path + suffix) ?? Data()) }
        return all
    }

    static func holdsNoSecret(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let all = bytes(path)
        #expect(!all.isEmpty, sourceLocation: sourceLocation)
        for needle in [secret, Data("user:\(secret)".utf8).base64EncodedString()] {
            #expect(all.range(of: Data(needle.utf8)) == nil, "\(needle) is in \(path)", sourceLocation: sourceLocation)
        }
    }

    static func record(_ key: String) -> StateStore.Record {
        StateStore.Record(
            key: key, fileName: "a.png", size: 3, format: "png", width: 1, height: 1, etag: nil, lastModified: nil,
            fetchedAt: 1, validatedAt: 1)
    }

    @Test func aPasswordIsStoredAsADigestOnly() throws {
        let temp = try TemporaryFolder()
        let path = temp.path("state.sqlite")
        let url = "https://user:\(Self.secret)@cdn.example/a.png"
        let other = "https://user:another@cdn.example/a.png"
        do {
            let store = try StateStore(path: path)
            try store.recordStored(Self.record(url))
            try store.blacklist(
                StateStore.BlacklistEntry(
                    url: url, failedAt: 1, errorClass: "http-404", message: "GET \(url) answered 404",
                    httpStatus: 404, attempts: 1))
            #expect(try store.record(forKey: url)?.key == url)
            #expect(try store.record(forKey: other) == nil, "another credential is another key")
            #expect(try store.blacklistEntry(forURL: url, now: 2, ttl: .never)?.url == url)
            #expect(try store.blacklistEntry(forURL: other, now: 2, ttl: .never) == nil)
            Self.holdsNoSecret(path)
        }
        Self.holdsNoSecret(path)
        let store = try StateStore(path: path)
        #expect(try store.record(forKey: url) != nil, "found again by the same URL")
        #expect(try store.unblacklist(url))
    }

    @Test func aDatabaseOfAnEarlierVersionIsRewrittenAndWiped() throws {
        let temp = try TemporaryFolder()
        let path = temp.path("state.sqlite")
        let url = "https://user:\(Self.secret)@cdn.example/a.png"
        do {
            let db = try SQLiteDatabase(path: path)
            _ = try db.scalarText("PRAGMA journal_mode=WAL")
            for migration in StateStore.migrations.prefix(2) { try db.execute(migration) }
            try db.execute("PRAGMA user_version = 2")
            try db.prepare(
                "INSERT INTO entries(key, file_name, size, fetched_at, validated_at) VALUES (?, 'a.png', 3, 1, 1)"
            ).run([.text(url)])
            try db.prepare(
                "INSERT INTO blacklist(key, failed_at, error_class, message, attempts) VALUES (?, 1, 'http-404', ?, 1)"
            ).run([.text(url + "?b"), .text("GET \(url)?b answered 404")])
        }
        #expect(Self.bytes(path).range(of: Data(Self.secret.utf8)) != nil, "the old database holds it")
        do {
            let store = try StateStore(path: path)
            #expect(try store.db.scalarText("PRAGMA user_version") == "3")
            #expect(try store.record(forKey: url)?.fileName == "a.png")
            #expect(try store.blacklistEntry(forURL: url + "?b", now: 2, ttl: .never) != nil)
            Self.holdsNoSecret(path)
        }
        Self.holdsNoSecret(path)
    }
}
