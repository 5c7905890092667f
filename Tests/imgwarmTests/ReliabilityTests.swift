import Foundation
import ImgwarmKit
import LoopbackServer
import SQLite
import TestSupport
import Testing

/// Signals, crashes, shared caches, full disks and refused folders, with the real binary.
@Suite struct ReliabilityTests {
    /// A list mixing quick images with slow, large ones (their bodies spill to temporary files).
    static func mixedList(_ h: PrefetchHarness, slow: Int = 6, quick: Int = 8) -> (
        lines: [String], expected: [String: [UInt8]]
    ) {
        var lines: [String] = []
        var expected: [String: [UInt8]] = [:]
        for index in 0..<quick {
            let key = h.url("/img/photo.jpg?n=q\(index)")
            lines.append(key)
            expected[key] = h.routes.valid["photo.jpg"]
        }
        for index in 0..<slow {
            let key = h.url("/bigbmp?mb=5&chunk=131072&interval=0.05&n=s\(index)")
            lines.append(key)
            expected[key] = FixtureRoutes.bitmap(megabytes: 5, seed: "s\(index)")
        }
        return (lines, expected)
    }

    /// Every file in the cache is complete: named like one of `expected`'s keys, byte-identical.
    static func expectOnlyCompleteFiles(
        _ h: PrefetchHarness, _ expected: [String: [UInt8]], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var byName: [String: [UInt8]] = [:]
        for (key, body) in expected { byName[SDFileName.forKey(key)] = body }
        for name in h.cacheContents() {
            guard let body = byName[name] else {
                Issue.record("unexpected file \(name)", sourceLocation: sourceLocation)
                continue
            }
            let data = FileManager.default.contents(atPath: h.folder + "/" + name).map([UInt8].init)
            #expect(
                data == body, "\(name) is complete (\(data?.count ?? -1) of \(body.count) bytes)",
                sourceLocation: sourceLocation)
        }
    }

    func start(_ h: PrefetchHarness, _ lines: [String], _ options: [String] = [], list: String = "list.txt") throws
        -> BackgroundProcess
    {
        let path = try h.temp.write(list, Data((lines.joined(separator: "\n") + "\n").utf8))
        return try BackgroundProcess(
            CLI.binary,
            ["prefetch", "--disk-cache-path", h.folder, "--report", h.temp.path(list + ".report.json")] + options + [
                path
            ],
            environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
    }

    var temporaryFolder: (PrefetchHarness) -> String {
        { $0.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/tmp") }
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func signalStopsTheRunCleanly(signal: Int32, code: Int32) throws {
        let h = try PrefetchHarness()
        let (lines, expected) = Self.mixedList(h)
        let run = try start(h, lines)
        // Wait until the quick images are done and the slow ones are under way.
        #expect(eventually { h.server.requests.count >= lines.count })
        usleep(300_000)
        run.signal(signal)
        let end = run.wait()
        #expect(!end.timedOut)
        #expect(end.status == code, "\(run.stderr)")
        #expect(run.stderr.contains("Interrupted by"))
        let report = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: h.temp.url.appendingPathComponent("list.txt.report.json"))) as? [String: Any])
        #expect(report["interrupted"] as? Bool == true)
        let totals = try #require(report["totals"] as? [String: Any])
        #expect((totals["notStarted"] as? Int ?? 0) + (totals["interrupted"] as? Int ?? 0) > 0)
        #expect(totals["lines"] as? Int == lines.count)
        let entries = try #require(report["entries"] as? [[String: Any]])
        // Every line has its entry; the abandoned transfers are `interrupted`, never stored.
        #expect(entries.count == lines.count)
        #expect(entries.filter { $0["outcome"] as? String == "interrupted" }.count == totals["interrupted"] as? Int)
        #expect(entries.filter { $0["outcome"] as? String == "not-started" }.count == totals["notStarted"] as? Int)
        #expect(entries.filter { $0["outcome"] as? String == "downloaded" }.count == totals["downloaded"] as? Int)
        Self.expectOnlyCompleteFiles(h, expected)
        #expect(
            (try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder(h)))?.isEmpty == true,
            "temporary files removed")
        // The same list again completes the work.
        let again = try h.prefetch(lines)
        #expect(again.status == 0, "\(again.stderr)")
        h.expectCache(exactly: expected)
    }

    /// A second SIGINT ends the process at once; the cache folder still holds only complete
    /// files, and the next run removes the temporary files it left.
    @Test func secondSigintExitsAtOnce() throws {
        let h = try PrefetchHarness()
        let (lines, expected) = Self.mixedList(h, slow: 4, quick: 2)
        let run = try start(h, lines)
        #expect(eventually { h.server.requests.count >= lines.count })
        #expect(
            eventually(timeout: 10) {
                ((try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder(h))) ?? []).count >= 2
            })
        run.signal(SIGINT)
        run.signal(SIGINT)
        let end = run.wait(timeout: 10)
        #expect(!end.timedOut)
        #expect(end.status == 130)
        Self.expectOnlyCompleteFiles(h, expected)
        let again = try h.prefetch(lines)
        #expect(again.status == 0)
        h.expectCache(exactly: expected)
    }

    /// `kill -9` at several moments: only complete images in the cache, a sound database, and the
    /// next run finishes the list and removes the stale temporary files.
    @Test(arguments: [0.05, 0.4, 0.9, 1.6])
    func killNineAtAnyMoment(after delay: Double) throws {
        let h = try PrefetchHarness()
        let (lines, expected) = Self.mixedList(h, slow: 4, quick: 30)
        let run = try start(h, lines, ["--concurrency", "4"])
        usleep(useconds_t(delay * 1_000_000))
        run.signal(SIGKILL)
        let end = run.wait()
        // The slow bodies are paced by the server over about 2 s, so every kill lands mid-run.
        #expect(end.signaled && !end.timedOut, "status \(end.status)")
        Self.expectOnlyCompleteFiles(h, expected)
        let state = h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/state.sqlite")
        if FileManager.default.fileExists(atPath: state) {
            let db = try SQLiteDatabase(path: state)
            #expect(try db.scalarText("PRAGMA integrity_check") == "ok")
        }
        let again = try h.prefetch(lines)
        #expect(again.status == 0, "\(again.stderr)")
        h.expectCache(exactly: expected)
    }

    /// Two prefetches of overlapping lists and repeated cleans on one cache at the same time.
    @Test func twoPrefetchesAndACleanShareOneCache() throws {
        let h = try PrefetchHarness()
        let names = h.routes.valid.keys.sorted()
        var expected: [String: [UInt8]] = [:]
        func list(_ range: Range<Int>) -> [String] {
            range.map { index in
                let name = names[index % names.count]
                let key = h.url("/trickle/\(name)?interval=0.002&n=\(index)")
                expected[key] = h.routes.valid[name]
                return key
            }
        }
        let first = try start(h, list(0..<120), ["--concurrency", "8"], list: "a.txt")
        let second = try start(h, list(60..<180), ["--concurrency", "8"], list: "b.txt")
        var cleans: [ProcessResult] = []
        for _ in 0..<6 {
            cleans.append(
                try CLI.run(
                    ["clean", "--disk-cache-path", h.folder, "--max-size", "200K", "--quiet"], home: h.temp.path))
            usleep(150_000)
        }
        let a = first.wait(timeout: 300)
        let b = second.wait(timeout: 300)
        #expect(a.status == 0 && b.status == 0, "\(first.stderr)\n\(second.stderr)")
        #expect(cleans.allSatisfy { $0.status == 0 }, "\(cleans.map(\.stderrText))")
        #expect(!first.stderr.contains("warning") && !second.stderr.contains("warning"))
        Self.expectOnlyCompleteFiles(h, expected)
        // Every state row points at a complete file of the size it records, or is stale.
        let db = try SQLiteDatabase(
            path: h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/state.sqlite"))
        let rows = try db.prepare("SELECT key, file_name, size FROM entries")
        try rows.bind([])
        var checked = 0
        while try rows.step() {
            let key = rows.text(0) ?? ""
            let name = rows.text(1) ?? ""
            #expect(name == SDFileName.forKey(key))
            if let size = try? FileManager.default.attributesOfItem(atPath: h.folder + "/" + name)[.size] as? Int {
                #expect(size == Int(rows.int64(2)))
                checked += 1
            }
        }
        #expect(checked == h.cacheContents().count)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder(h)))?.isEmpty == true)
    }

    /// A lock held too long is exit code 3 with a clear message, for both commands.
    @Test func lockHeldTooLong() throws {
        let h = try PrefetchHarness()
        let key = h.url("/img/photo.jpg")
        #expect(try h.prefetch([key]).status == 0)
        let lockPath = h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/lock")
        let fd = open(lockPath, O_RDWR)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        let blocked = try h.prefetch([key], options: ["--lock-timeout", "0.3"])
        #expect(blocked.status == 3)
        #expect(blocked.stderr.contains("--lock-timeout"))
        #expect((try blocked.report["error"] as? String)?.contains("--lock-timeout") == true)
        // Who holds it is what the kernel says (this test process), not a guess ("a prefetch
        // writing" while flock held it, before).
        #expect(blocked.stderr.contains("is held by pid \(getpid())"), "\(blocked.stderr)")
        #expect(!blocked.stderr.contains("a prefetch writing"))
        flock(fd, LOCK_UN)
        #expect(flock(fd, LOCK_SH) == 0)
        let clean = try h.run(["clean", "--disk-cache-path", h.folder, "--max-age", "0", "--lock-timeout", "0.3"])
        #expect(clean.status == 3)
        #expect(clean.stderr.contains("--lock-timeout"))
        #expect(h.cacheContents().count == 1, "nothing deleted")
    }

    static let canMount: Bool = {
        guard getuid() == 0, let temp = try? TemporaryFolder() else { return false }
        let target = temp.path("m")
        mkdir(target, 0o755)
        let mounted = Glibc.mount("tmpfs", target, "tmpfs", 0, "size=64k") == 0
        if mounted { umount(target) }
        return mounted
    }()

    /// A full disk (a 1 MiB tmpfs): that URL fails with the reason, nothing partial remains,
    /// and the run ends with exit code 3.
    @Test(
        .enabled(
            if: canMount, "needs root and tmpfs mounts; see docs/usage.md, 'Running unattended', for the manual check"))
    func fullDisk() throws {
        let h = try PrefetchHarness()
        let mountPoint = h.temp.path("small")
        mkdir(mountPoint, 0o755)
        #expect(Glibc.mount("tmpfs", mountPoint, "tmpfs", 0, "size=1m") == 0)
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }
        let folder = mountPoint + "/cache"
        let body = h.routes.valid["scan.tiff"]!
        let keys = (0..<40).map { h.url("/img/scan.tiff?n=\($0)") }
        let list = try h.temp.write("full.txt", Data(keys.joined(separator: "\n").utf8))
        let run = try h.run([
            "prefetch", "--disk-cache-path", folder, "--state", h.temp.path("state.sqlite"), "--report", "-",
            "--concurrency", "2", list,
        ])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("disk is full"))
        #expect((try run.report["error"] as? String)?.contains("disk is full") == true)
        let entries = try run.entries
        #expect(entries.contains { ($0["errorMessage"] as? String)?.contains("No space left on device") == true })
        let stored = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(!stored.isEmpty)
        for name in stored {
            #expect(
                FileManager.default.contents(atPath: folder + "/" + name).map([UInt8].init) == body,
                "\(name) is complete")
        }
        let temporary = try FileManager.default.contentsOfDirectory(atPath: mountPoint + "/.imgwarm/cache/tmp")
        #expect(temporary.isEmpty)
    }

    @Test(.enabled(if: canMount, "needs root and tmpfs mounts"))
    func readOnlyCacheIsRefusedBeforeAnyDownload() throws {
        let h = try PrefetchHarness()
        let mountPoint = h.temp.path("ro")
        mkdir(mountPoint, 0o755)
        #expect(Glibc.mount("tmpfs", mountPoint, "tmpfs", UInt(MS_RDONLY), "size=64k") == 0)
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }
        let list = try h.temp.write("l.txt", Data(h.url("/img/photo.jpg").utf8))
        let run = try h.run(["prefetch", "--disk-cache-path", mountPoint + "/cache", "--report", "-", list])
        #expect(run.status == 3)
        #expect(run.stderr.contains("Read-only file system"))
        #expect(h.server.requests.isEmpty)
        #expect((try run.report["error"] as? String)?.contains("Read-only file system") == true)
        #expect(try run.totals["notStarted"] as? Int == 1)
        #expect(try run.entries.map { $0["outcome"] as? String } == ["not-started"])
    }

    /// A folder the user may not write (run as `nobody`): a clear error before any download.
    @Test(
        .enabled(
            if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "needs root and setpriv"))
    func unwritableCacheIsRefusedBeforeAnyDownload() throws {
        let h = try PrefetchHarness()
        chmod(h.temp.path, 0o755)
        mkdir(h.temp.path("locked"), 0o755)
        let list = try h.temp.write("l.txt", Data(h.url("/img/photo.jpg").utf8))
        chmod(list, 0o644)
        let run = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", CLI.binary.path, "prefetch", "--disk-cache-path",
                h.temp.path("locked/cache"), list,
            ],
            environment: CLI.environment(home: "/tmp"))
        #expect(run.status == 3, "\(run.stderrText)")
        #expect(run.stderrText.contains("Permission denied"))
        #expect(h.server.requests.isEmpty)
    }

    /// Hostile list lines: each gets a precise error or the right treatment, never a crash.
    @Test func hostileLines() throws {
        let h = try PrefetchHarness()
        let ipv6 = h.server.listenIPv6()
        var data = Data([0xEF, 0xBB, 0xBF])  // BOM
        func line(_ bytes: [UInt8]) {
            data.append(contentsOf: bytes)
            data.append(0x0A)
        }
        func line(_ text: String) { line(Array(text.utf8)) }
        line(h.url("/img/photo.jpg") + "\r")  // 1 BOM + CRLF: fine
        line(Array(repeating: UInt8(ascii: "a"), count: 1 << 20))  // 2 a 1 MB line
        line([0x00, 0x01, 0xFF, 0xFE, 0x89, 0x50, 0x4E, 0x47])  // 3 binary
        line(Array("http://127.0.0.1/\u{e9}".utf8.dropLast()) + [0xC3])  // 4 invalid UTF-8
        line(Array("http://127.0.0.1/a".utf8) + [0] + Array("b.png".utf8))  // 5 NUL
        line("http://user:topsecret@127.0.0.1:\(h.server.port)/img/gradient.png")  // 6 credentials
        line("http://[::1]:\(h.server.port)/img/anim.gif")  // 7 IPv6 literal
        line("file:///etc/passwd")  // 8
        line("ftp://127.0.0.1/a.png")  // 9
        line("gopher://127.0.0.1/1")  // 10
        line("data:image/png;base64,iVBORw0KGgo=")  // 11
        line("HtTp://127.0.0.1:\(h.server.port)/img/icon.bmp")  // 12 odd-case scheme: valid
        line("FILE:///etc/passwd")  // 13
        line("javascript:alert(1)")  // 14
        let list = h.temp.path("hostile.txt")
        try data.write(to: URL(fileURLWithPath: list))
        let run = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(run.status == 1)
        let expectations: [Int: String] = [
            2: "longer than 65536 bytes", 3: "NUL byte", 4: "not valid UTF-8", 5: "NUL byte", 8: "scheme 'file'",
            9: "scheme 'ftp'",
            10: "scheme 'gopher'", 11: "scheme 'data'", 13: "scheme 'FILE'", 14: "scheme 'javascript'",
        ]
        for (number, reason) in expectations {
            let entry = try run.entry(line: number)
            #expect(entry["outcome"] as? String == "invalid", "line \(number)")
            #expect(
                (entry["errorMessage"] as? String)?.contains(reason) == true,
                "line \(number): \(entry["errorMessage"] ?? "")")
        }
        #expect((try run.entry(line: 2)["url"] as? String ?? "").count <= 201, "the 1 MB line is not echoed whole")
        for number in [1, 6, 12] + (ipv6 ? [7] : []) {
            #expect(try run.entry(line: number)["outcome"] as? String == "downloaded", "line \(number)")
        }
        #expect(!run.result.stdoutText.contains("topsecret"))
        #expect(!run.stderr.contains("topsecret"))
    }
}
