import Foundation
import SQLite
import TestSupport
import Testing

@testable import ImgwarmKit

@Suite struct FlutterDatabaseTests {
    static let now: Int64 = 1_764_000_000_000

    func put(_ key: String, path: String, etag: String? = nil, validTill: Int64 = now + 1000) -> FlutterDatabase.Put {
        FlutterDatabase.Put(url: key, key: key, relativePath: path, eTag: etag, validTill: validTill, length: 3)
    }

    @Test func aNewDatabaseHasTheLibrarysSchemaAndVersion() throws {
        let temp = try TemporaryFolder()
        let path = temp.path("libCachedImageData.db")
        let db = try FlutterDatabase(path: path, create: true)
        try db.put(put("https://e.com/a.png", path: "a.png", etag: "\"v1\""), now: Self.now)
        #expect(try FlutterReaderModel.sqlite3(path, "PRAGMA user_version") == "3\n")
        let schema = try FlutterReaderModel.sqlite3(path, "SELECT sql FROM sqlite_master ORDER BY name").lowercased()
        #expect(
            schema.contains(
                "create table cacheobject (_id integer primary key, url text, key text, relativePath text, eTag text, validTill integer, touched integer, length integer)"
                    .lowercased()))
        #expect(schema.contains("create unique index cacheobjectkey on cacheobject (key)"))
        #expect(try FlutterReaderModel.sqlite3(path, "PRAGMA journal_mode") == "delete\n")
        let rows = try FlutterReaderModel(database: path, folder: temp.path).rows()
        #expect(
            rows == [
                .init(
                    id: 1, key: "https://e.com/a.png", relativePath: "a.png", eTag: "\"v1\"",
                    validTill: Self.now + 1000, touched: Self.now, length: 3)
            ])
    }

    /// A stored file awaits its row until the index's next flush, which the count of listing
    /// flushes says (the run asks again about its awaiting downloads only when it moves).
    @Test func aStoreAwaitsItsRowUntilTheFlush() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("cache"))
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        try Data("abc".utf8).write(to: URL(fileURLWithPath: location.folder + "/a.png"))
        let index = FlutterIndex(location: location, databasePath: temp.path("libCachedImageData.db"))
        let response = CacheIndexResponse(
            key: "https://e.com/a.png", url: "https://e.com/a.png", headers: ResponseHeaders(),
            receivedAt: Timestamp(seconds: 1_764_000_000, nanoseconds: 0), length: 3)
        index.didStore("a.png", response: response)
        #expect(index.awaitsListing("a.png"))
        #expect(index.listingFlushes == 0)
        try index.flush(force: true, lockTimeout: 5)
        #expect(!index.awaitsListing("a.png"))
        #expect(index.listingFlushes == 1)
        let rows = try FlutterReaderModel(database: temp.path("libCachedImageData.db"), folder: location.folder).rows()
        #expect(rows.map(\.relativePath) == ["a.png"])
    }

    @Test func aRefetchReplacesTheRowAndNamesTheOldFile() throws {
        let temp = try TemporaryFolder()
        let path = temp.path("x.db")
        let db = try FlutterDatabase(path: path, create: true)
        #expect(try db.put(put("k", path: "one.png"), now: Self.now) == nil)
        #expect(try db.put(put("k", path: "one.png"), now: Self.now + 1) == nil)
        #expect(try db.put(put("k", path: "two.jpg", etag: "e"), now: Self.now + 2) == "one.png")
        let rows = try FlutterReaderModel(database: path, folder: temp.path).rows()
        #expect(rows.count == 1)
        #expect(rows.first?.id == 1 && rows.first?.relativePath == "two.jpg" && rows.first?.touched == Self.now + 2)
    }

    @Test func theReaderModelAgreesOnHitsAndMisses() throws {
        let temp = try TemporaryFolder()
        let path = temp.path("x.db")
        let db = try FlutterDatabase(path: path, create: true)
        try db.put(put("fresh", path: "f.png"), now: Self.now)
        try db.put(put("stale", path: "s.png", validTill: Self.now - 1), now: Self.now)
        try db.put(put("gone", path: "g.png"), now: Self.now)
        _ = try temp.write("f.png", Data([1, 2, 3]))
        _ = try temp.write("s.png", Data([1, 2, 3]))
        let model = FlutterReaderModel(database: path, folder: temp.path)
        #expect(try model.miss("fresh", now: Self.now) == nil)
        #expect(try model.miss("stale", now: Self.now) == "expired")
        #expect(try model.miss("gone", now: Self.now) == "no file")
        #expect(try model.miss("other", now: Self.now) == "no row")
        let row = try #require(try db.row(forKey: "fresh"))
        try db.touch(id: row.id, now: Self.now + 5)
        #expect(try model.rows().first { $0.key == "fresh" }?.touched == Self.now + 5)
    }

    @Test func theCleanupQueriesSelectWhatTheModelDoes() throws {
        let temp = try TemporaryFolder()
        let path = temp.path("x.db")
        let db = try FlutterDatabase(path: path, create: true)
        let day: Int64 = 86_400_000
        // 450 rows: 150 touched within the day, 300 older (spread over 60 days).
        for index in 0..<450 {
            let touched = index < 150 ? Self.now - Int64(index) * 1000 : Self.now - day - Int64(index - 150) * (day / 5)
            try db.put(put("k\(index)", path: "\(index).png"), now: touched)
        }
        let model = FlutterReaderModel(database: path, folder: temp.path)
        let expected = try model.cleanupIDs(now: Self.now)
        var removed = Set<Int64>()
        while true {
            let round = Set(try db.overCapacity(now: Self.now).map(\.id)).union(
                try db.oldObjects(now: Self.now).map(\.id))
            if round.isEmpty { break }
            removed.formUnion(round)
            try db.delete(ids: Array(round))
        }
        #expect(removed == expected)
        #expect(!removed.isEmpty)
        #expect(try db.allRows().count == 450 - removed.count)
    }

    @Test(arguments: ["foreign", "version", "garbage", "columns"])
    func aDatabaseTheLibraryWouldNotUseIsRefusedUnchanged(_ kind: String) throws {
        let temp = try TemporaryFolder()
        let path = temp.path("x.db")
        switch kind {
        case "foreign": _ = try FlutterReaderModel.sqlite3(path, "PRAGMA user_version = 3; CREATE TABLE other (a);")
        case "version":
            _ = try FlutterReaderModel.sqlite3(path, FlutterDatabase.schema + "PRAGMA user_version = 2;")
        case "columns":
            _ = try FlutterReaderModel.sqlite3(
                path, "create table cacheObject (_id integer primary key, url text, key text); PRAGMA user_version = 3;"
            )
        default: _ = try temp.write("x.db", Data(repeating: 0x5a, count: 8192))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: FlutterDatabase.Problem.self) { try FlutterDatabase(path: path, create: true) }
        #expect(throws: FlutterDatabase.Problem.self) { try FlutterDatabase(path: path, create: false, readOnly: true) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aDatabaseUpgradedFromVersionOneIsUsed() throws {
        let temp = try TemporaryFolder()
        let path = temp.path("x.db")
        // onUpgrade adds key and length after the first columns, with a plain index.
        _ = try FlutterReaderModel.sqlite3(
            path,
            """
            create table cacheObject (_id integer primary key, url text, relativePath text, eTag text, validTill integer, touched integer);
            alter table cacheObject add key text; create index cacheObjectkey on cacheObject (key);
            alter table cacheObject add length integer; PRAGMA user_version = 3;
            """)
        let db = try FlutterDatabase(path: path, create: true)
        try db.put(put("k", path: "a.png"), now: Self.now)
        #expect(try db.row(forKey: "k")?.relativePath == "a.png")
    }

    @Test func anAbsentDatabaseIsCreatedOnlyWhenAsked() throws {
        let temp = try TemporaryFolder()
        #expect(throws: FlutterDatabase.Problem.self) { try FlutterDatabase(path: temp.path("no.db"), create: false) }
        #expect(!FileManager.default.fileExists(atPath: temp.path("no.db")))
        _ = try temp.write("empty.db", Data())
        let unmade = try FlutterDatabase(path: temp.path("empty.db"), create: false, readOnly: true)
        #expect(unmade.isUnmade)
        #expect(try unmade.allRows().isEmpty)
    }
}

/// The response rules of `HttpGetResponse` (v3.4.1 `lib/src/web/file_service.dart`) and the
/// names of `WebHelper` (a `Uuid().v1()`), with UUIDs computed by Python's `uuid` module:
///
///     t = ms * 10000 + 122192928000000000 + ticks
///     uuid.UUID(fields=(t & 0xffffffff, (t >> 32) & 0xffff, ((t >> 48) & 0x0fff) | 0x1000,
///                       ((cs >> 8) & 0x3f) | 0x80, cs & 0xff, node))   # .version == 1, .time == t
@Suite struct FlutterResponseTests {
    static let t: Int64 = 1_000_000

    @Test(
        arguments: [
            (nil, 7 * 86_400_000), ("max-age=60", 60_000), ("public, max-age=3600", 3_600_000),
            ("MAX-AGE=10", 10_000), ("max-age=0", 7 * 86_400_000), ("no-cache", 0), ("no-cache, max-age=5", 5000),
            ("max-age=5, no-cache", 0), ("max-age=abc", 7 * 86_400_000), ("max-age=-3", 7 * 86_400_000),
            ("max-age=0x10", 16_000), ("s-maxage=9", 7 * 86_400_000), ("max-age=7=8", 7000),
            (" max-age = 3", 7 * 86_400_000),
        ] as [(String?, Int64)])
    func validTillFollowsTheLibrarysMaxAgeRule(_ header: String?, _ validity: Int64) {
        #expect(FlutterResponse.validTill(receivedAt: Self.t, cacheControl: header) == Self.t + validity)
    }

    @Test func aHugeMaxAgeStopsAtDartsLastInstant() {
        #expect(
            FlutterResponse.validTill(receivedAt: Self.t, cacheControl: "max-age=9223372036854775")
                == FlutterResponse.latestInstant)
    }

    @Test(
        arguments: [
            (nil, ""), ("image/png", ".png"), ("image/jpeg", ".jpg"), ("IMAGE/JPEG; charset=x", ".jpg"),
            ("image/avif", ".avif"), ("image/svg+xml", ".svg"), ("application/octet-stream", ".bin"), ("image", "."),
            ("image/webp ;q=1", ".webp"),
        ] as [(String?, String)])
    func theExtensionComesFromTheContentType(_ header: String?, _ expected: String) {
        #expect(FlutterResponse.fileExtension(contentType: header) == expected)
    }

    @Test func namesAreVersionOneUUIDs() {
        #expect(
            FlutterFileName.uuid(
                milliseconds: 1_700_000_000_123, ticks: 0, clockSequence: 0x1234,
                node: [0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10])
                == "04c284b0-833b-11ee-9234-0b0c0d0e0f10")
        #expect(
            FlutterFileName.uuid(milliseconds: 0, ticks: 0, clockSequence: 0, node: [1, 0, 0, 0, 0, 0])
                == "13814000-1dd2-11b2-8000-010000000000")
        #expect(
            FlutterFileName.uuid(
                milliseconds: 1_764_033_000_000, ticks: 42, clockSequence: 0x3fff,
                node: Array(repeating: 0xff, count: 6))
                == "76e0242a-c99b-11f0-bfff-ffffffffffff")
        let names = FlutterFileName()
        let made = (0..<1000).map { _ in names.next(milliseconds: 5, fileExtension: ".png") }
        #expect(Set(made).count == 1000)
        #expect(made.allSatisfy { FlutterFileName.isName($0) && $0.hasSuffix(".png") })
        #expect(FlutterFileName.isName("04c284b0-833b-11ee-9234-0b0c0d0e0f10"))
        #expect(!FlutterFileName.isName("04c284b0-833b-41ee-9234-0b0c0d0e0f10.png"))
        #expect(!FlutterFileName.isName("journal"))
    }
}
