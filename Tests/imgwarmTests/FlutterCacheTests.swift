import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// flutter (issue 25): files in `libCachedImageData/` named by a version 1 UUID and the
/// Content-Type's extension, a row per key in `libCachedImageData.db` (schema and user_version 3
/// as flutter_cache_manager 3.4.1's `CacheObjectProvider` makes them), read back with the
/// `sqlite3` CLI and judged by `FlutterReaderModel`, written from the Dart source
/// (docs/cache-formats-android.md, "flutter_cache_manager").
@Suite struct FlutterCacheTests {
    /// A version 1 UUID, lower-case, and an extension.
    static func isUUIDName(_ name: String) -> Bool {
        name.wholeMatch(of: #/[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.[a-z]+/#) != nil
    }
    static let day: Int64 = 86_400_000

    static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    struct Setup {
        var h: PrefetchHarness
        var folder: String
        var database: String
        var options: [String]
        var model: FlutterReaderModel

        init() throws {
            h = try PrefetchHarness()
            folder = h.temp.path("caches/libCachedImageData")
            database = h.temp.path("caches/libCachedImageData.db")
            options = ["--cache-format", "flutter", "--disk-cache-path", folder]
            model = FlutterReaderModel(database: database, folder: folder)
        }

        func list(_ urls: [String], name: String = "list.txt") throws -> String {
            try h.temp.write(name, Data((urls.joined(separator: "\n") + "\n").utf8))
        }
    }

    @Test func prefetchWritesFilesAndRowsTheLibraryReads() throws {
        let s = try Setup()
        let urls = [s.h.url("/img/photo.jpg"), s.h.url("/img/gradient.png"), s.h.url("/max-age/60/anim.gif")]
        let before = Self.nowMilliseconds()
        let run = try s.h.run(["prefetch"] + s.options + ["--report", "-", try s.list(urls)])
        let after = Self.nowMilliseconds()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FlutterReaderModel.sqlite3(s.database, "PRAGMA user_version") == "3\n")
        let schema = try FlutterReaderModel.sqlite3(s.database, ".schema cacheObject").lowercased()
        #expect(
            schema.contains(
                "_id integer primary key, url text, key text, relativepath text, etag text, validtill integer, touched integer, length integer"
            ))
        #expect(schema.contains("create unique index cacheobjectkey on cacheobject (key)"))
        let rows = try s.model.rows()
        #expect(rows.map(\.key).sorted() == urls.sorted())
        for (url, name) in zip(urls, ["photo.jpg", "gradient.png", "anim.gif"]) {
            let row = try #require(rows.first { $0.key == url })
            #expect(Self.isUUIDName(row.relativePath), "\(row.relativePath)")
            #expect(row.relativePath.hasSuffix(name == "photo.jpg" ? ".jpg" : "." + (name as NSString).pathExtension))
            let body = try #require(s.h.routes.valid[name])
            #expect(FileManager.default.contents(atPath: s.folder + "/" + row.relativePath).map([UInt8].init) == body)
            #expect(row.length == Int64(body.count))
            #expect(row.eTag == FixtureRoutes.etag(body))
            let validity = name == "anim.gif" ? 60_000 : 7 * Self.day
            #expect(row.validTill >= before + validity && row.validTill <= after + validity, "\(name)")
            #expect(row.touched >= before && row.touched <= after)
            #expect(try s.model.miss(url, now: Self.nowMilliseconds()) == nil)
        }
        // verify from the list and from the folder; path prints the row's file.
        #expect(try s.h.run(["verify"] + s.options + [try s.list(urls)]).status == 0)
        let whole = try s.h.run(["verify"] + s.options + ["--json"])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect((try whole.report["totals"] as? [String: Any])?["hits"] as? Int == 3)
        let path = try s.h.run(["path"] + s.options + [urls[0]])
        let row = try #require(rows.first { $0.key == urls[0] })
        #expect(path.status == 0)
        #expect(String(decoding: path.result.stdout, as: UTF8.self) == s.folder + "/" + row.relativePath + "\n")
        let unknown = try s.h.run(["path"] + s.options + ["https://example.com/none.png"])
        #expect(unknown.status == 1)
        #expect(unknown.result.stdout.isEmpty)
        #expect(unknown.stderr.contains("no entry"))
        #expect(try s.h.run(["stats"] + s.options + ["--json"]).status == 0)

        // A second run finds every key cached, and touches the rows as the library's read does.
        let again = try s.h.run(["prefetch"] + s.options + ["--report", "-", try s.list(urls)])
        #expect(try again.totals["cached"] as? Int == 3)
        let touched = try s.model.rows()
        #expect(touched.map(\.relativePath).sorted() == rows.map(\.relativePath).sorted())
        #expect(touched.allSatisfy { row in row.touched >= after })
    }

    @Test func anExpiredRowIsFetchedAgainUnderANewNameAndItsOldFileGoes() throws {
        let s = try Setup()
        let urls = [s.h.url("/img/photo.jpg"), s.h.url("/img/gradient.png")]
        let list = try s.list(urls)
        #expect(try s.h.run(["prefetch"] + s.options + [list]).status == 0)
        let first = try #require(try s.model.rows().first { $0.key == urls[0] })
        _ = try FlutterReaderModel.sqlite3(
            s.database, "UPDATE cacheObject SET validTill = 1000 WHERE _id = \(first.id)")
        #expect(try s.model.miss(urls[0], now: Self.nowMilliseconds()) == "expired")
        let verify = try s.h.run(["verify"] + s.options + [list])
        #expect(verify.status == 1, "\(verify.stderr)")
        let run = try s.h.run(["prefetch"] + s.options + ["--report", "-", list])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.totals["cached"] as? Int == 1)
        let rows = try s.model.rows()
        #expect(rows.count == 2)
        let second = try #require(rows.first { $0.key == urls[0] })
        #expect(second.id == first.id && second.relativePath != first.relativePath)
        #expect(!FileManager.default.fileExists(atPath: s.folder + "/" + first.relativePath))
        #expect(try s.model.miss(urls[0], now: Self.nowMilliseconds()) == nil)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: s.folder)) == Set(rows.map(\.relativePath)))
    }

    @Test(arguments: ["garbage", "foreign", "version0"])
    func aDatabaseTheLibraryWouldNotUseIsLeftAlone(_ kind: String) throws {
        let s = try Setup()
        try FileManager.default.createDirectory(atPath: s.folder, withIntermediateDirectories: true)
        switch kind {
        case "garbage": _ = try s.h.temp.write("caches/libCachedImageData.db", Data(repeating: 0x41, count: 4096))
        case "foreign": _ = try FlutterReaderModel.sqlite3(s.database, "CREATE TABLE t (a); PRAGMA user_version = 3;")
        default: _ = try FlutterReaderModel.sqlite3(s.database, FlutterDatabase.schema)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: s.database))
        let list = try s.list([s.h.url("/img/photo.jpg")])
        let run = try s.h.run(["prefetch"] + s.options + [list])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("flutter_cache_manager would not use"))
        #expect(try s.h.run(["verify"] + s.options + [list]).status == 3)
        #expect(try s.h.run(["clean"] + s.options).status == 3)
        #expect(try s.h.run(["path"] + s.options + ["k"]).status == 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.database)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.folder).isEmpty)
    }

    @Test func cleanRemovesWhatTheLibrarysCleanupRemoves() throws {
        let s = try Setup()
        try FileManager.default.createDirectory(atPath: s.folder, withIntermediateDirectories: true)
        let now = Self.nowMilliseconds()
        // 500 rows: 100 touched within the day, 400 older (up to ~81 days, each 2.4 h from a
        // boundary): 200 beyond the capacity of 200, and those untouched for 30 days are old.
        var sql = FlutterDatabase.schema + "PRAGMA user_version = 3;"
        for index in 0..<500 {
            let touched =
                index < 100
                ? now - Int64(index) * 60_000 : now - Self.day - Int64(index - 100) * (Self.day / 5) - Self.day / 10
            let name = String(format: "%08x-0000-1000-8000-000000000000.png", index)
            _ = try s.h.temp.write("caches/libCachedImageData/\(name)", Data([1, 2, 3]))
            sql +=
                "INSERT INTO cacheObject (url, key, relativePath, validTill, touched, length) VALUES ('u\(index)', 'k\(index)', '\(name)', \(now + Self.day), \(touched), 3);"
        }
        _ = try FlutterReaderModel.sqlite3(s.database, sql)
        let expected = try s.model.cleanupIDs(now: now)
        let byID = Dictionary(uniqueKeysWithValues: try s.model.rows().map { ($0.id, $0) })

        #expect(try s.h.run(["clean"] + s.options + ["--max-age", "7d"]).status == 2)
        #expect(try s.h.run(["clean"] + s.options + ["--max-size", "1M"]).status == 2)
        let dry = try s.h.run(["clean"] + s.options + ["--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(try s.model.rows().count == 500)

        let run = try s.h.run(["clean"] + s.options)
        #expect(run.status == 0, "\(run.stderr)")
        let kept = try s.model.rows()
        #expect(Set(kept.map(\.id)) == Set(byID.keys).subtracting(expected))
        #expect(expected.count > 100, "more than one batch")
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: s.folder))
        #expect(files == Set(kept.map(\.relativePath)))

        #expect(try s.h.run(["clean"] + s.options + ["--all"]).status == 0)
        #expect(try s.model.rows().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.folder).isEmpty)
    }

    @Test func theDatabaseGoesWhereDatabaseSays() throws {
        let s = try Setup()
        // A folder that does not exist yet is made, as the library makes it.
        let elsewhere = s.h.temp.path("support/app/libCachedImageData.db")
        let list = try s.list([s.h.url("/img/photo.jpg")])
        let options = s.options + ["--database", elsewhere]
        #expect(try s.h.run(["prefetch"] + options + [list]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: s.database))
        let rows = try FlutterReaderModel(database: elsewhere, folder: s.folder).rows()
        #expect(rows.count == 1)
        #expect(try s.h.run(["verify"] + options + [list]).status == 0)
        #expect(try s.h.run(["verify"] + s.options + [list]).status == 1, "no database: every key misses")
        let wrong = try s.h.run(["path", "--database", elsewhere, "k"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("--database does not apply to sdwebimage"))
    }

    /// verify of a files folder without its database (where it looked: beside the folder, or
    /// --database) says once where it looked; each key misses as not-indexed, without an empty
    /// file name; exit 1, as for a folder that does not exist; the JSON's folder verdict is `empty`.
    @Test func verifyWithoutTheDatabaseSaysWhereItLooked() throws {
        let s = try Setup()
        let urls = [s.h.url("/img/photo.jpg"), s.h.url("/img/gradient.png")]
        let list = try s.list(urls)
        #expect(try s.h.run(["prefetch"] + s.options + [list]).status == 0)
        try FileManager.default.removeItem(atPath: s.database)

        let text = try s.h.run(["verify"] + s.options + [list])
        #expect(text.status == 1, "\(text.stderr)")
        let out = text.result.stdoutText
        #expect(!out.contains("miss: : "), "\(out)")
        for url in urls {
            #expect(
                out.contains(
                    "\(url): miss: the library's index (its journal or database) does not list it (imgwarm prefetch of the same list with the same cache options stores it again)\n"
                ), "\(out)")
        }
        let said = "there is no database at \(s.database) (--database names another)"
        #expect(out.components(separatedBy: said).count == 2, "once: \(out)")
        #expect(out.contains("2 keys: 0 hit, 2 missing (2 not-indexed)"), "\(out)")

        let elsewhere = s.h.temp.path("support/libCachedImageData.db")
        let json = try s.h.run(["verify"] + s.options + ["--database", elsewhere, "--json", list])
        #expect(json.status == 1, "\(json.stderr)")
        let folder = try #require(try json.report["folder"] as? [String: Any])
        #expect(folder["verdict"] as? String == "empty")
        #expect(try VerifyTests.schema().validate(try json.report) == [])
        #expect((folder["message"] as? String)?.contains("there is no database at \(elsewhere)") == true, "\(folder)")
        #expect(json.stderr.contains("there is no database at \(elsewhere)"), "\(json.stderr)")
        #expect(try json.entries.map { $0["reason"] as? String } == ["not-indexed", "not-indexed"])
    }

    /// Two processes on one folder and database, with lists that overlap: every key has one row,
    /// every row its file, no file without a row, and every key hits.
    @Test func twoProcessesLoseNothing() throws {
        let s = try Setup()
        let shared = (0..<20).map { s.h.url("/img/sticker.webp?shared=\($0)") }
        let lists = (0..<2).map { run in shared + (0..<20).map { s.h.url("/img/photo.jpg?run=\(run)&n=\($0)") } }
        var processes: [BackgroundProcess] = []
        for (number, urls) in lists.enumerated() {
            let list = try s.list(urls, name: "list\(number).txt")
            processes.append(
                try BackgroundProcess(
                    CLI.binary, ["prefetch"] + s.options + ["--quiet", list],
                    environment: CLI.environment(home: s.h.temp.path), folder: s.h.temp.url))
        }
        for process in processes {
            let end = process.wait(timeout: 120)
            #expect(end.status == 0 && !end.timedOut, "\(process.stderr)")
        }
        let rows = try s.model.rows()
        let keys = Set(lists.flatMap { $0 })
        #expect(rows.count == keys.count)
        #expect(Set(rows.map(\.key)) == keys)
        let now = Self.nowMilliseconds()
        #expect(try keys.allSatisfy { try s.model.miss($0, now: now) == nil })
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: s.folder)) == Set(rows.map(\.relativePath)))
    }

    /// kill -9 while batches are written (issue 39): at every moment a reader sees rows whose
    /// files are complete (a batch is one transaction), the database passes `integrity_check`
    /// after the kill, and the next run finishes the list on top of what is there.
    @Test func killedMidRunTheDatabaseStillHolds() throws {
        let s = try Setup()
        let photo = try #require(s.h.routes.valid["photo.jpg"])
        let urls = (0..<60).map { s.h.url("/slow-headers/photo.jpg?delay=0.2&n=\($0)") }
        let process = try BackgroundProcess(
            CLI.binary, ["prefetch"] + s.options + ["--concurrency", "1", "--quiet", try s.list(urls)],
            environment: CLI.environment(home: s.h.temp.path), folder: s.h.temp.url)
        func complete(_ rows: [FlutterReaderModel.Row]) -> Bool {
            rows.allSatisfy {
                FileManager.default.contents(atPath: s.folder + "/" + $0.relativePath).map([UInt8].init) == photo
            }
        }
        // Read while the run writes: every row seen names a complete file.
        var incomplete = 0
        let written = eventually(timeout: 60) {
            guard let rows = try? s.model.rows() else { return false }
            if !complete(rows) { incomplete += 1 }
            return rows.count >= 2
        }
        #expect(written)
        #expect(incomplete == 0)
        process.signal(SIGKILL)
        _ = process.wait(timeout: 30)
        #expect(try FlutterReaderModel.sqlite3(s.database, "PRAGMA integrity_check") == "ok\n")
        let rows = try s.model.rows()
        #expect(rows.count >= 2 && rows.count < urls.count)
        #expect(complete(rows))
        let finish = try s.h.run(["prefetch"] + s.options + [try s.list(urls)])
        #expect(finish.status == 0, "\(finish.stderr)")
        let now = Self.nowMilliseconds()
        #expect(try urls.allSatisfy { try s.model.miss($0, now: now) == nil })
    }

    /// `--refresh`: a 304 keeps the row's file and takes the response's validTill, as the
    /// library's `_manageResponse` does for a 304.
    @Test func aRevalidatedHitTakesTheNewValidTill() throws {
        let s = try Setup()
        let url = s.h.url("/img/photo.jpg")
        let list = try s.list([url])
        #expect(try s.h.run(["prefetch"] + s.options + [list]).status == 0)
        let first = try #require(try s.model.rows().first)
        let soon = Self.nowMilliseconds() + 600_000
        _ = try FlutterReaderModel.sqlite3(s.database, "UPDATE cacheObject SET validTill = \(soon)")
        let before = Self.nowMilliseconds()
        let run = try s.h.run(["prefetch", "--refresh"] + s.options + ["--report", "-", list])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.totals["revalidated"] as? Int == 1)
        let row = try #require(try s.model.rows().first)
        #expect(row.relativePath == first.relativePath && row.length == first.length && row.eTag == first.eTag)
        #expect(row.validTill >= before + 7 * Self.day)
        #expect(row.touched >= before)
    }
}
