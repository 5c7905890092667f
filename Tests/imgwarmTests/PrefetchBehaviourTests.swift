import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

@Suite struct PrefetchBehaviourTests {
    /// Comments, blank lines, CRLF endings and a BOM are handled; invalid lines are reported with
    /// their line number and reason, and the rest of the list goes on.
    @Test func plainListWithInvalidLines() throws {
        let h = try PrefetchHarness()
        let good = h.url("/img/photo.jpg")
        var text = "\u{FEFF}# images\r\n\r\n\(good)\r\n"
        text += "ftp://example.com/a.png\n"
        text += "not a url\n"
        text += "/relative/path.png\n"
        text += "http:///no-host.png\n"
        text += "HTTP://127.0.0.1:\(h.server.port)/img/gradient.png\n"
        text += "http://example.com/%zz.png\n"
        text += "http://example.com:99999/a.png\n"
        let list = try h.temp.write("list.txt", Data(text.utf8))
        let run = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(run.status == 1)
        let reasons: [Int: String] = [
            4: "scheme 'ftp'", 5: "character ' ' at column 4", 6: "no scheme", 7: "no host",
            9: "malformed percent-escape '%zz'",
            10: "port 99999",
        ]
        for (line, reason) in reasons {
            let entry = try run.entry(line: line)
            #expect(entry["outcome"] as? String == "invalid", "line \(line)")
            #expect(
                (entry["errorMessage"] as? String)?.contains(reason) == true,
                "line \(line): \(entry["errorMessage"] ?? "")")
            #expect(run.stderr.contains("list.txt:\(line): invalid"), "line \(line) printed")
        }
        // Upper-case scheme is a valid, distinct key.
        let upper = "HTTP://127.0.0.1:\(h.server.port)/img/gradient.png"
        #expect(try run.entry(line: 8)["outcome"] as? String == "downloaded")
        #expect(try run.entry(line: 3)["outcome"] as? String == "downloaded")
        #expect(try run.totals["invalid"] as? Int == 6)
        #expect(try run.totals["lines"] as? Int == 8)
        h.expectCache(exactly: [good: h.routes.valid["photo.jpg"]!, upper: h.routes.valid["gradient.png"]!])
    }

    @Test func jsonLinesWithPrioritiesAndWrongTypes() throws {
        let h = try PrefetchHarness()
        let lines = [
            "# a comment",
            #"{"url": "\#(h.url("/img/photo.jpg"))", "priority": "low"}"#,
            #"{"url": "\#(h.url("/img/gradient.png"))", "priority": "high", "note": "extra members are ignored"}"#,
            #"{"url": 42}"#,
            #"{}"#,
            #"{"url": "\#(h.url("/img/anim.gif"))", "priority": "urgent"}"#,
            #"["not", "an", "object"]"#,
            #"{"url": "\#(h.url("/img/anim.gif"))""#,
            #"{"url": "ftp://x/y.png"}"#,
        ]
        let run = try h.prefetch(lines, options: ["--concurrency", "1"], listName: "list.jsonl")
        #expect(run.status == 1)
        let expected: [Int: String] = [
            4: "\"url\" must be a string, not a number", 5: "no \"url\"", 6: "\"priority\" must be",
            7: "a JSON object is expected, not an array",
            8: "not valid JSON at column", 9: "scheme 'ftp'",
        ]
        for (line, reason) in expected {
            let message = try run.entry(line: line)["errorMessage"] as? String ?? ""
            #expect(message.contains(reason), "line \(line): \(message)")
        }
        #expect(try run.entry(line: 3)["priority"] as? String == "high")
        // One transfer at a time: the high-priority line is requested first.
        #expect(h.server.requests.map(\.path) == ["/img/gradient.png", "/img/photo.jpg"])
    }

    @Test func standardInputIsAList() throws {
        let h = try PrefetchHarness()
        let key = h.url("/img/sticker.webp")
        let run = try h.run(
            ["prefetch", "--disk-cache-path", h.folder, "--report", "-", "-"], stdin: Data("\(key)\n".utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try (run.report["inputs"] as? [[String: Any]])?.first?["path"] as? String == "-")
        h.expectCache(exactly: [key: h.routes.valid["sticker.webp"]!])
    }

    /// A key that appears twice is fetched once and reported twice.
    @Test func duplicatesAreFetchedOnce() throws {
        let h = try PrefetchHarness()
        let key = h.url("/img/photo.jpg")
        let run = try h.prefetch([key, h.url("/img/icon.bmp"), key, "  \(key)  "])
        #expect(run.status == 0)
        #expect(h.server.requestCount("/img/photo.jpg") == 1)
        #expect(try run.entry(line: 3)["outcome"] as? String == "duplicate")
        #expect(try run.entry(line: 4)["outcome"] as? String == "duplicate")
        #expect(try run.totals["duplicates"] as? Int == 2)
        #expect(try run.totals["finishedCount"] as? Int == 4)
    }

    /// Higher priority first; FIFO within a priority, or LIFO with --order lifo.
    @Test(arguments: [("fifo", ["a", "b", "c"]), ("lifo", ["c", "b", "a"])])
    func priorityAndOrder(order: String, expected: [String]) throws {
        let h = try PrefetchHarness()
        let normal = ["a", "b", "c"].map { h.url("/img/photo.jpg?n=\($0)") }
        let high = try h.temp.write(
            "high.txt", Data((h.url("/img/gradient.png?n=h1") + "\n" + h.url("/img/gradient.png?n=h2") + "\n").utf8))
        let low = try h.temp.write("low.txt", Data((h.url("/img/icon.bmp?n=low") + "\n").utf8))
        let run = try h.prefetch(
            normal, options: ["--concurrency", "1", "--order", order, "--high", high, "--low", low])
        #expect(run.status == 0, "\(run.stderr)")
        let highOrder = order == "fifo" ? ["h1", "h2"] : ["h2", "h1"]
        #expect(h.server.requests.map { $0.query["n"] ?? "" } == highOrder + expected + ["low"])
    }

    /// A second run is all hits: no request, and each file's access time is set to now.
    @Test func cachedFilesAreHitsAndTouched() throws {
        let h = try PrefetchHarness()
        let keys = ["photo.jpg", "gradient.png"].map { h.url("/img/\($0)") }
        #expect(try h.prefetch(keys).status == 0)
        let path = h.folder + "/" + SDFileName.forKey(keys[0])
        var old = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &old, 0) == 0)
        h.server.clearLog()
        let second = try h.prefetch(keys)
        #expect(second.status == 0)
        #expect(h.server.requests.isEmpty)
        #expect(try second.entries.allSatisfy { $0["outcome"] as? String == "cached" && $0["attempts"] as? Int == 0 })
        var info = stat()
        stat(path, &info)
        #expect(info.st_atim.tv_sec > 1_000_000_000, "access time was set")
        #expect(info.st_mtim.tv_sec == 1_000_000_000, "modification time untouched")
    }

    /// --dry-run classifies without any request and without creating anything.
    @Test func dryRun() throws {
        let h = try PrefetchHarness()
        let cached = h.url("/img/photo.jpg")
        #expect(try h.prefetch([cached]).status == 0)
        h.server.clearLog()
        let run = try h.prefetch([cached, h.url("/img/anim.gif"), "gopher://x/y"], options: ["--dry-run"])
        #expect(run.status == 1, "the invalid line makes it 1")
        #expect(h.server.requests.isEmpty)
        #expect(try run.entry(line: 1)["outcome"] as? String == "cached")
        #expect(try run.entry(line: 2)["outcome"] as? String == "would-fetch")
        #expect(try run.entry(line: 3)["outcome"] as? String == "invalid")
        #expect(try run.report["dryRun"] as? Bool == true)
        h.expectCache(exactly: [cached: h.routes.valid["photo.jpg"]!])

        let fresh = try h.run([
            "prefetch", "--disk-cache-path", h.temp.path("never-created"), "--dry-run",
            try h.temp.write("one.txt", Data(cached.utf8)),
        ])
        #expect(fresh.status == 0)
        #expect(!FileManager.default.fileExists(atPath: h.temp.path("never-created")))
    }

    @Test func requestHeaders() throws {
        let h = try PrefetchHarness()
        _ = try h.prefetch([h.url("/img/photo.jpg?a")])
        let first = try #require(h.server.requests.first)
        #expect(first.header("user-agent") == "imgwarm/\(ImgwarmVersion.current)")
        #expect(first.header("accept") == "image/*,*/*;q=0.8")
        #expect(first.header("accept-encoding")?.contains("gzip") == true)
        h.server.clearLog()
        _ = try h.prefetch(
            [h.url("/img/photo.jpg?b")],
            options: ["--user-agent", "AppWarmer/2", "-H", "Accept: image/webp", "-H", "X-Extra: 1"])
        let second = try #require(h.server.requests.first)
        #expect(second.header("user-agent") == "AppWarmer/2")
        #expect(second.header("accept") == "image/webp")
        #expect(second.header("x-extra") == "1")
    }

    /// Proxies come from the usual environment variables.
    @Test func proxyFromTheEnvironment() throws {
        let h = try PrefetchHarness()
        let key = "http://images.example.invalid/img/photo.jpg"
        let run = try h.prefetch([key], env: ["http_proxy": h.server.baseURL])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(h.server.requests.first?.viaProxy == true)
        h.expectCache(exactly: [key: h.routes.valid["photo.jpg"]!])
    }

    /// `--proxy` sends every request through the proxy, whatever the environment says; `--proxy ''`
    /// and `--noproxy` bypass one the environment sets (curl's spelling of both).
    @Test func proxyFromTheCommandLine() throws {
        let h = try PrefetchHarness()
        let key = "http://images.example.invalid/img/photo.jpg"
        let run = try h.prefetch(
            [key], options: ["--proxy", h.server.baseURL], env: ["http_proxy": "http://127.0.0.1:9"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(h.server.requests.first?.viaProxy == true)
        h.expectCache(exactly: [key: h.routes.valid["photo.jpg"]!])
        // A proxy in the environment that would fail every request is bypassed both ways.
        for options in [["--proxy", ""], ["--noproxy", "127.0.0.1"]] {
            let direct = h.url("/img/gradient.png?\(options[0])")
            let bypassed = try h.prefetch([direct], options: options, env: ["http_proxy": "http://127.0.0.1:9"])
            #expect(bypassed.status == 0, "\(options): \(bypassed.stderr)")
            #expect(h.server.requests.last?.viaProxy == false)
        }
        // A scheme libcurl does not speak to proxies is a usage error, and the password is not printed.
        let bad = try h.prefetch([key], options: ["--proxy", "ftp://user:s3cret@proxy:21"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("invalid --proxy: the scheme 'ftp'"), "\(bad.stderr)")
        #expect(!bad.stderr.contains("s3cret"), "\(bad.stderr)")
    }

    /// A URL blacklisted for 403 is requested again once the configuration changes (a header
    /// added: the fix a user makes), and skipped while it does not; a 404 stays skipped (issue 23).
    @Test func fixingTheConfigurationLiftsClientDependentEntries() throws {
        let h = try PrefetchHarness()
        let forbidden = h.url("/status/403")
        let missing = h.url("/status/404")
        _ = try h.prefetch([forbidden, missing])
        let same = try h.prefetch([forbidden, missing])
        #expect(try same.entry(line: 1)["outcome"] as? String == "blacklisted")
        #expect(try same.entry(line: 2)["outcome"] as? String == "blacklisted")
        let fixed = try h.prefetch([forbidden, missing], options: ["-H", "Authorization: Bearer t0ken"])
        #expect(try fixed.entry(line: 1)["outcome"] as? String == "failed", "requested again")
        #expect(try fixed.entry(line: 2)["outcome"] as? String == "blacklisted")
        #expect(h.server.requests.filter { $0.path == "/status/403" }.count == 2)
        #expect(h.server.requests.filter { $0.path == "/status/404" }.count == 1)
        // The token is not in the state database: only a fingerprint of the configuration.
        let database = try Data(
            contentsOf: URL(
                fileURLWithPath: h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/state.sqlite")))
        #expect(database.range(of: Data("t0ken".utf8)) == nil)
    }

    /// A URL another prefetch blacklists while this one runs is skipped when this one reaches it:
    /// an empty blacklist is looked at again (at most once a second), not only at the start.
    @Test func aBlacklistFilledByAnotherProcessIsConsulted() throws {
        let h = try PrefetchHarness()
        let shared = h.url("/status/404?shared")
        let list = try h.temp.write(
            "long.txt", Data((h.url("/slow-headers/photo.jpg?delay=3") + "\n" + shared + "\n").utf8))
        let long = try BackgroundProcess(
            CLI.binary, ["prefetch", "--disk-cache-path", h.folder, "-c", "1", "--report", "-", list],
            environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
        #expect(eventually { h.server.requests.count >= 1 }, "the long run is under way")
        let other = try h.prefetch([shared])
        #expect(try other.entry(line: 1)["errorClass"] as? String == "http-status")
        let end = long.wait(timeout: 30)
        #expect(end.status == 1, "\(long.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(long.stdout.utf8)) as? [String: Any])
        let entries = try #require(report["entries"] as? [[String: Any]])
        #expect(entries.first { $0["line"] as? Int == 2 }?["outcome"] as? String == "blacklisted", "\(entries)")
        #expect(h.server.requests.filter { $0.target == "/status/404?shared" }.count == 1)
    }

    @Test func exitCodes() throws {
        let h = try PrefetchHarness()
        let missing = try h.run(["prefetch", "--disk-cache-path", h.folder, h.temp.path("no-such-list.txt")])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("cannot read"))
        #expect(!FileManager.default.fileExists(atPath: h.folder), "nothing was done")

        let file = try h.temp.write("plain-file", Data([1]))
        let list = try h.temp.write("l.txt", Data(h.url("/img/photo.jpg").utf8))
        let unusable = try h.run(["prefetch", "--disk-cache-path", file + "/cache", list])
        #expect(unusable.status == 3, "\(unusable.stderr)")
        #expect(h.server.requests.isEmpty, "no download before the cache is known usable")

        let badReport = try h.run([
            // A missing folder is made (as mkdir -p); one under a file cannot be.
            "prefetch", "--disk-cache-path", h.folder, "--report", file + "/nope/r.json", list,
        ])
        #expect(badReport.status == 2)
        #expect(h.server.requests.isEmpty)

        #expect(try h.run(["prefetch", "--concurrency", "0", list]).status == 2)
        #expect(try h.run(["prefetch", "--max-pixels", "lots", list]).stderr.contains("100M"))
        #expect(try h.run(["prefetch", "--header", "NoColon", list]).status == 2)
    }

    /// Quiet means quiet; the progress line appears only on a terminal or with --progress bar.
    @Test func consoleOutput() throws {
        let h = try PrefetchHarness()
        let lines = [h.url("/img/photo.jpg"), h.url("/status/404")]
        let quiet = try h.prefetch(lines, options: ["--quiet"])
        #expect(quiet.status == 1)
        // Cron hears of the failed URL, and of nothing else.
        let quietLines = quiet.stderr.split(separator: "\n")
        #expect(quietLines.count == 1, "\(quiet.stderr)")
        #expect(quietLines.first?.contains("list.txt:2") == true && quietLines.first?.contains("HTTP 404") == true)
        let quietSuccess = try h.prefetch([h.url("/img/photo.jpg")], options: ["--quiet"])
        #expect(quietSuccess.status == 0)
        #expect(quietSuccess.stderr.isEmpty, "\(quietSuccess.stderr)")
        let normal = try h.prefetch(lines + [h.url("/img/anim.gif")])
        #expect(!normal.stderr.contains("\r"), "no progress line when standard error is a pipe")
        #expect(normal.stderr.contains("list.txt:2"))
        #expect(normal.stderr.contains("imgwarm prefetch: 2 of 3 URLs in the cache"))
        let progress = try h.prefetch([h.url("/slow-headers/photo.jpg?delay=0.5")], options: ["--progress", "bar"])
        #expect(progress.stderr.contains("\r\u{1B}[K[....................]   0% 0/1"), "\(progress.stderr)")
    }

    /// Real reports validate against the JSON Schemas in docs/.
    @Test func reportsMatchTheirSchemas() throws {
        let h = try PrefetchHarness()
        let lines = [h.url("/img/photo.jpg"), h.url("/status/404"), "nope", h.url("/img/photo.jpg"), h.url("/html")]
        let run = try h.prefetch(lines)
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        #expect(schema.validate(try run.report) == [])
        let again = try h.prefetch(lines, options: ["--dry-run"])
        #expect(schema.validate(try again.report) == [])

        // The validator is not a rubber stamp.
        var broken = try run.report
        broken["totals"] = ["lines": "many"]
        #expect(!schema.validate(broken).isEmpty)

        let clean = try h.run(["clean", "--disk-cache-path", h.folder, "--max-age", "0", "--report", "-"])
        let cleanSchema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/clean-report.schema.json"))
        #expect(cleanSchema.validate(try clean.report) == [])
        #expect(try (clean.report["removed"] as? [Any])?.count == 1)

        let stats = try h.run(["stats", "--disk-cache-path", h.folder, "--json"])
        let statsSchema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/stats.schema.json"))
        #expect(statsSchema.validate(try stats.report) == [])
    }
}
