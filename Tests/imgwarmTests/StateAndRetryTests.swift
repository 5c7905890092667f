import Foundation
import ImgwarmKit
import LoopbackServer
import SQLite
import TestSupport
import Testing

/// Retries, the persisted blacklist, --refresh and the state database, against the loopback
/// server with the real binary and a real database file.
@Suite struct StateAndRetryTests {
    let fast = ["--retry-delay", "0.05"]

    @Test func transientFailuresAreRetried() throws {
        let h = try PrefetchHarness()
        let twice = h.url("/flaky/photo.jpg?fail=2&status=503&id=a")
        let enough = try h.prefetch([twice], options: fast + ["--retries", "2"])
        #expect(enough.status == 0, "\(enough.stderr)")
        #expect(try enough.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(try enough.entry(line: 1)["attempts"] as? Int == 3)
        #expect(h.server.requests.filter { $0.query["id"] == "a" }.count == 3)

        let other = h.url("/flaky/photo.jpg?fail=2&status=503&id=b")
        let short = try h.prefetch([other], options: fast + ["--retries", "1"])
        #expect(short.status == 1)
        let entry = try short.entry(line: 1)
        #expect(entry["outcome"] as? String == "failed")
        #expect(entry["attempts"] as? Int == 2)
        #expect(entry["httpStatus"] as? Int == 503)
        #expect(entry["errorKind"] as? String == "transient")
        #expect(short.stderr.contains("after 2 attempts"))
        // A transient failure is not blacklisted: the next run asks again (and now succeeds).
        let again = try h.prefetch([other], options: fast)
        #expect(try again.entry(line: 1)["outcome"] as? String == "downloaded")
    }

    @Test func retryAfterIsHonoured() throws {
        let h = try PrefetchHarness()
        let key = h.url("/flaky/gradient.png?fail=1&status=429&retry-after=1")
        let run = try h.prefetch([key], options: ["--retry-delay", "30"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.entry(line: 1)["attempts"] as? Int == 2)

        let tooLong = try h.prefetch([h.url("/status/429?retry-after=3600")], options: ["--max-retry-wait", "5"])
        let entry = try tooLong.entry(line: 1)
        #expect(entry["attempts"] as? Int == 1, "a server asking for an hour is not waited for")
        #expect((entry["errorMessage"] as? String)?.contains("Retry-After") == true)
    }

    /// A retry waits without blocking the other transfers.
    @Test func retriesDoNotBlockOtherTransfers() throws {
        let h = try PrefetchHarness()
        let slow = h.url("/flaky/photo.jpg?fail=1&status=503&id=s")
        let others = (0..<5).map { h.url("/img/icon.bmp?n=\($0)") }
        let run = try h.prefetch(
            [slow] + others, options: ["--concurrency", "1", "--retry-delay", "2", "--max-retry-wait", "2"])
        #expect(run.status == 0)
        let order = h.server.requests.map { $0.query["id"] ?? $0.query["n"] ?? "" }
        #expect(order.first == "s")
        #expect(order.last == "s", "the other URLs went while the retry waited: \(order)")
    }

    @Test func permanentFailuresAreBlacklistedAcrossRuns() throws {
        let h = try PrefetchHarness()
        let key = h.url("/dynamic/missing.png")
        let first = try h.prefetch([key])
        #expect(first.status == 1)
        #expect(try first.entry(line: 1)["errorKind"] as? String == "permanent")
        #expect(h.server.requestCount("/dynamic/missing.png") == 1)

        let listed = try h.run(["blacklist", "list", "--disk-cache-path", h.folder, "--json"])
        let entries = try #require(try listed.report["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["httpStatus"] as? Int == 404)
        #expect(entries.first?["errorClass"] as? String == "http-status")

        let second = try h.prefetch([key])
        #expect(second.status == 1)
        #expect(h.server.requestCount("/dynamic/missing.png") == 1, "no request to a blacklisted URL")
        let entry = try second.entry(line: 1)
        #expect(entry["outcome"] as? String == "blacklisted")
        #expect(entry["attempts"] as? Int == 0)
        #expect((entry["errorMessage"] as? String)?.contains("blacklisted since") == true)
        #expect(try second.totals["skippedCount"] as? Int == 1)
        #expect(try second.totals["blacklisted"] as? Int == 1)

        let forced = try h.prefetch([key], options: ["--retry-failed"])
        #expect(forced.status == 1)
        #expect(h.server.requestCount("/dynamic/missing.png") == 2, "--retry-failed asks again")

        // The image appears: the success removes the entry.
        let png = h.routes.valid["gradient.png"]!
        h.routes.setDynamic("missing.png", .init(body: png, etag: "\"v1\""))
        let fixed = try h.prefetch([key], options: ["--retry-failed"])
        #expect(fixed.status == 0)
        let after = try h.run(["blacklist", "list", "--disk-cache-path", h.folder, "--json"])
        #expect(try (after.report["entries"] as? [Any])?.isEmpty == true)
        h.expectCache(exactly: [key: png])
    }

    @Test func blacklistEntriesExpire() throws {
        let h = try PrefetchHarness()
        let key = h.url("/status/410")
        _ = try h.prefetch([key])
        _ = try h.prefetch([key], options: ["--blacklist-ttl", "1h"])
        #expect(h.server.requestCount("/status/410") == 1)
        _ = try h.prefetch([key], options: ["--blacklist-ttl", "0"])
        #expect(h.server.requestCount("/status/410") == 2, "an expired entry is tried again")
        _ = try h.prefetch([key], options: ["--blacklist-ttl", "never"])
        #expect(h.server.requestCount("/status/410") == 2)
    }

    /// A body cut short under a matching Content-Length is found by validation (`truncated`), not
    /// by libcurl: it goes through the same retry decision as a transfer failure, and when it stays
    /// cut it is reported failed after the last try, not blacklisted.
    @Test func truncatedBodiesAreRetried() throws {
        let h = try PrefetchHarness()
        let once = h.url("/cut/photo.jpg?fail=1")
        let run = try h.prefetch([once], options: fast)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(try run.entry(line: 1)["attempts"] as? Int == 2)
        h.expectCache(exactly: [once: h.routes.valid["photo.jpg"]!])

        let always = h.url("/cut/gradient.png")
        let failing = try h.prefetch([always], options: fast + ["--retries", "2"])
        #expect(failing.status == 1)
        let entry = try failing.entry(line: 1)
        #expect(entry["errorClass"] as? String == "truncated")
        #expect(entry["errorKind"] as? String == "transient")
        #expect(entry["attempts"] as? Int == 3)
        #expect(h.server.requestCount("/cut/gradient.png") == 3)
        let listed = try h.run(["blacklist", "list", "--disk-cache-path", h.folder, "--json"])
        #expect(try (listed.report["entries"] as? [Any])?.isEmpty == true, "a cut body is not blacklisted")
        // The next run asks again.
        _ = try h.prefetch([always], options: fast + ["--retries", "0"])
        #expect(h.server.requestCount("/cut/gradient.png") == 4)
    }

    /// A `Retry-After` too large for any integer is a wait too long, not a missing header.
    @Test func retryAfterBeyondAnyInteger() throws {
        let h = try PrefetchHarness()
        let run = try h.prefetch([h.url("/status/503?retry-after=99999999999999999999999")], options: fast)
        #expect(run.status == 1)
        let entry = try run.entry(line: 1)
        #expect(entry["attempts"] as? Int == 1, "not retried")
        #expect(entry["errorKind"] as? String == "transient")
        #expect((entry["errorMessage"] as? String)?.contains("Retry-After") == true, "\(entry["errorMessage"] ?? "")")
        let listed = try h.run(["blacklist", "list", "--disk-cache-path", h.folder, "--json"])
        #expect(try (listed.report["entries"] as? [Any])?.isEmpty == true)
    }

    /// An ETag or Last-Modified with control characters, or longer than 1 KiB, is neither stored
    /// nor echoed into a conditional request.
    @Test func unsafeValidatorsAreNeverSent() throws {
        let h = try PrefetchHarness()
        let png = h.routes.valid["gradient.png"]!
        h.routes.setDynamic("bell.png", .init(body: png, etag: "\"a\u{07}b\""))
        h.routes.setDynamic("long.png", .init(body: png, etag: "\"" + String(repeating: "x", count: 2000) + "\""))
        h.routes.setDynamic(
            "date.png", .init(body: png, etag: "\"fine\"", lastModified: "Tue, 03 Nov 2026\u{01} 10:00:00 GMT"))
        let keys = ["bell.png", "long.png", "date.png"].map { h.url("/dynamic/\($0)") }
        let first = try h.prefetch(keys)
        #expect(first.status == 0, "\(first.stderr)")
        h.server.clearLog()
        _ = try h.prefetch(keys, options: ["--refresh"])
        let requests = h.server.requests
        let bell = try #require(requests.first { $0.path == "/dynamic/bell.png" })
        let long = try #require(requests.first { $0.path == "/dynamic/long.png" })
        let date = try #require(requests.first { $0.path == "/dynamic/date.png" })
        #expect(bell.header("if-none-match") == nil, "\(bell.headers)")
        #expect(long.header("if-none-match") == nil)
        #expect(date.header("if-modified-since") == nil, "\(date.headers)")
        #expect(date.header("if-none-match") == "\"fine\"", "a valid ETag beside it is still used")
    }

    @Test func blacklistCommands() throws {
        let h = try PrefetchHarness()
        let keys = [h.url("/status/404"), h.url("/html"), "http://u:hunter2@127.0.0.1:\(h.server.port)/status/403"]
        _ = try h.prefetch(keys)
        let text = try h.run(["blacklist", "list", "--disk-cache-path", h.folder])
        #expect(text.result.stdoutText.contains("not-an-image"))
        #expect(!text.result.stdoutText.contains("hunter2"))
        let json = try h.run(["blacklist", "list", "--disk-cache-path", h.folder, "--json"])
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/blacklist.schema.json"))
        #expect(schema.validate(try json.report) == [])
        #expect(try (json.report["entries"] as? [[String: Any]])?.count == 3)
        #expect(!json.result.stdoutText.contains("hunter2"))
        let removed = try h.run(["blacklist", "remove", "--disk-cache-path", h.folder, keys[0], h.url("/never/listed")])
        #expect(removed.status == 1, "one of the two was not listed")
        #expect(removed.stderr.contains("is not on the blacklist"))
        let cleared = try h.run(["blacklist", "clear", "--disk-cache-path", h.folder])
        #expect(cleared.status == 0)
        #expect(cleared.stderr.contains("removed 2 entries"))
        #expect(try h.run(["blacklist", "list", "--disk-cache-path", h.folder]).result.stdoutText.contains("empty"))
    }

    @Test func refreshRevalidatesWithTheStoredETag() throws {
        let h = try PrefetchHarness()
        let key = h.url("/dynamic/avatar.png")
        let v1 = h.routes.valid["gradient.png"]!
        h.routes.setDynamic("avatar.png", .init(body: v1, etag: "\"v1\""))
        #expect(try h.prefetch([key]).status == 0)
        let path = h.folder + "/" + SDFileName.forKey(key)
        var old = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &old, 0) == 0)

        // Without --refresh: a hit, no request.
        h.server.clearLog()
        #expect(try h.prefetch([key]).entry(line: 1)["outcome"] as? String == "cached")
        #expect(h.server.requests.isEmpty)
        #expect(utimensat(AT_FDCWD, path, &old, 0) == 0)

        let revalidated = try h.prefetch([key], options: ["--refresh"])
        #expect(revalidated.status == 0)
        #expect(h.server.requests.last?.header("if-none-match") == "\"v1\"")
        let entry = try revalidated.entry(line: 1)
        #expect(entry["outcome"] as? String == "revalidated")
        #expect(entry["httpStatus"] as? Int == 304)
        #expect(try revalidated.totals["revalidated"] as? Int == 1)
        var info = stat()
        stat(path, &info)
        #expect(info.st_atim.tv_sec > 1_000_000_000, "the access time moved")
        #expect(info.st_mtim.tv_sec == 1_000_000_000, "the file was not rewritten")
        h.expectCache(exactly: [key: v1])

        // The image changes behind the same URL: 200, replaced atomically, validators updated.
        let v2 = h.routes.valid["sticker.webp"]!
        h.routes.setDynamic("avatar.png", .init(body: v2, etag: "\"v2\""))
        let replaced = try h.prefetch([key], options: ["--refresh"])
        #expect(try replaced.entry(line: 1)["outcome"] as? String == "downloaded")
        h.expectCache(exactly: [key: v2])
        _ = try h.prefetch([key], options: ["--refresh"])
        #expect(h.server.requests.last?.header("if-none-match") == "\"v2\"")
    }

    /// Without stored validators (the state lost), --refresh sends a plain request.
    @Test func refreshWithoutValidatorsIsAPlainRequest() throws {
        let h = try PrefetchHarness()
        let key = h.url("/img/photo.jpg")
        #expect(try h.prefetch([key], options: ["--state", h.temp.path("first.sqlite")]).status == 0)
        h.server.clearLog()
        let run = try h.prefetch([key], options: ["--refresh", "--state", h.temp.path("second.sqlite")])
        #expect(run.status == 0)
        #expect(h.server.requests.first?.header("if-none-match") == nil)
        #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded")
    }

    @Test func garbageDatabaseIsMovedAsideAndRebuilt() throws {
        let h = try PrefetchHarness()
        let existing = h.url("/img/anim.gif")
        #expect(try h.prefetch([existing]).status == 0)
        let cached = h.folder + "/" + SDFileName.forKey(existing)
        var before = stat()
        stat(cached, &before)
        let state = h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/state.sqlite")
        #expect(FileManager.default.fileExists(atPath: state))
        try? FileManager.default.removeItem(atPath: state + "-wal")
        try? FileManager.default.removeItem(atPath: state + "-shm")
        try Data(repeating: 0x42, count: 10_000).write(to: URL(fileURLWithPath: state))

        let key = h.url("/img/photo.jpg")
        let run = try h.prefetch([existing, key])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("was damaged: moved aside"))
        let folder = (state as NSString).deletingLastPathComponent
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).contains {
                $0.hasPrefix("state.sqlite.corrupt-")
            })
        var after = stat()
        stat(cached, &after)
        #expect(
            after.st_ino == before.st_ino && after.st_mtim.tv_sec == before.st_mtim.tv_sec,
            "the cache file was not touched")
        h.expectCache(exactly: [existing: h.routes.valid["anim.gif"]!, key: h.routes.valid["photo.jpg"]!])
        let check = try SQLiteDatabase(path: state)
        #expect(try check.scalarText("PRAGMA integrity_check") == "ok")
        #expect(try check.scalarText("SELECT count(*) FROM entries") == "1")
    }

    @Test func lockedDatabaseIsExitCodeThree() throws {
        let h = try PrefetchHarness()
        let key = h.url("/img/photo.jpg")
        #expect(try h.prefetch([key]).status == 0)
        let state = h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/state.sqlite")
        let holder = try SQLiteDatabase(path: state)
        try holder.execute("BEGIN EXCLUSIVE")
        defer { try? holder.execute("ROLLBACK") }
        h.server.clearLog()
        let run = try h.prefetch(
            [h.url("/img/gradient.png"), "not a url", h.url("/img/anim.gif")], options: ["--lock-timeout", "0.5"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("locked by another process"))
        #expect(h.server.requests.isEmpty, "no download while the state cannot be used")
        // The report is still written, with what the run knows: the invalid line, the lines that
        // never started, and why (before, the run exited 3 without one).
        let report = try run.report
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        #expect(schema.validate(report) == [])
        #expect((report["error"] as? String)?.contains("locked by another process") == true, "\(report["error"] ?? "")")
        #expect(report["interrupted"] as? Bool == false)
        let totals = try run.totals
        #expect(totals["lines"] as? Int == 3)
        #expect(totals["notStarted"] as? Int == 2)
        #expect(totals["invalid"] as? Int == 1)
        #expect(
            try run.entries.compactMap { $0["outcome"] as? String }.sorted() == [
                "invalid", "not-started", "not-started",
            ])
    }

    /// Another process holding the state database's write lock (a long `clean`, another
    /// prefetch's batch) holds up only the state writer thread: downloads and stores go on, the
    /// records wait, and they all land once the lock is free. Before the writer thread, the
    /// download loop itself waited for the lock, so nothing was stored meanwhile.
    @Test func downloadsGoOnWhileTheStateIsLocked() throws {
        let image = [UInt8](try Fixtures.data("images/valid/photo.jpg"))
        let temp = try TemporaryFolder()
        let cache = temp.path("cache")
        let state = temp.path("state.sqlite")
        let holder = LockHolder()
        // The first request arrives after the run opened and checked the database: the lock is
        // taken then, and kept until every image is stored.
        let server = LoopbackServer { request in
            { request, responder in
                if request.path.contains("first") { holder.take(state) }
                responder.respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: image)
            }
        }
        let port = try server.start()
        defer { server.stop() }
        let urls = ["http://127.0.0.1:\(port)/first.jpg"] + (0..<20).map { "http://127.0.0.1:\(port)/\($0).jpg" }
        let list = try temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let run = try BackgroundProcess(
            CLI.binary,
            ["prefetch", "--disk-cache-path", cache, "--state", state, "--concurrency", "1", "--quiet", list],
            environment: CLI.environment(home: temp.path), folder: temp.url)
        let names = Set(urls.map(SDFileName.forKey))
        let storedWhileLocked = eventually(timeout: 20) {
            names.isSubset(of: Set((try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? []))
        }
        #expect(holder.held, "the first request never came")
        #expect(storedWhileLocked, "not every image was stored while the state database was locked")
        holder.release()
        let result = run.wait(timeout: 60)
        #expect(result.status == 0, "\(run.stderr)")
        let check = try SQLiteDatabase(path: state)
        #expect(try check.scalarText("SELECT count(*) FROM entries") == "21")
    }

    @Test func cleanRemovesTheRowsOfItsFiles() throws {
        let h = try PrefetchHarness()
        let keys = [h.url("/img/photo.jpg"), h.url("/img/gradient.png")]
        #expect(try h.prefetch(keys).status == 0)
        let stats = try h.run(["stats", "--disk-cache-path", h.folder, "--json"])
        let state = try #require(try stats.report["state"] as? [String: Any])
        #expect(state["trackedKeys"] as? Int == 2)
        #expect((state["lastRun"] as? [String: Any])?["downloaded"] as? Int == 2)
        #expect(try h.run(["stats", "--disk-cache-path", h.folder]).result.stdoutText.contains("2 tracked keys"))

        // A file removed behind imgwarm's back leaves a stale row: counted, then cleaned up.
        try FileManager.default.removeItem(atPath: h.folder + "/" + SDFileName.forKey(keys[0]))
        let stale = try h.run(["stats", "--disk-cache-path", h.folder, "--json"])
        #expect((try stale.report["state"] as? [String: Any])?["staleRows"] as? Int == 1)

        let clean = try h.run(["clean", "--disk-cache-path", h.folder, "--max-age", "0"])
        #expect(clean.status == 0)
        let after = try h.run(["stats", "--disk-cache-path", h.folder, "--json"])
        let afterState = try #require(try after.report["state"] as? [String: Any])
        #expect(afterState["trackedKeys"] as? Int == 0)
        #expect(afterState["staleRows"] as? Int == 0)
    }
}

/// Another process's write lock on a state database, taken and released from any thread.
private final class LockHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var database: SQLiteDatabase?

    func take(_ path: String) {
        lock.withLock {
            database = try? SQLiteDatabase(path: path)
            if (try? database?.execute("BEGIN IMMEDIATE")) == nil { database = nil }
        }
    }

    var held: Bool { lock.withLock { database != nil } }

    func release() {
        lock.withLock {
            try? database?.execute("ROLLBACK")
            database = nil
        }
    }
}
