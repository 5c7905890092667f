import Foundation
import ImgwarmKit
import SQLite
import TestSupport
import Testing

/// Every documented default holds when its flag is left out: each row runs a command without
/// the option and checks what happens (or, where only the value is visible, what the report
/// says was in force). The "documented" column is what the README, docs/usage.md and `--help` promise.
@Suite(.startsTheBinary) struct DefaultsTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var command: String
        var option: String
        var documented: String
        var check: @Sendable (PrefetchHarness) throws -> Void

        var testDescription: String { "\(command) \(option) defaults to \(documented)" }
    }

    static let day = 86400.0

    /// The value of `name` in the report options of a plain prefetch with no option given.
    static func reportOption(_ h: PrefetchHarness, _ name: String) throws -> Any? {
        let run = try h.prefetch([h.url("/img/photo.jpg")])
        #expect(run.status == 0, "\(run.stderr)")
        return try (run.report["options"] as? [String: Any])?[name]
    }

    static func option(_ name: String, _ documented: String, equals expected: Double) -> Row {
        Row(command: "prefetch", option: name, documented: documented) { h in
            let value = try reportOption(h, optionKey(name))
            #expect((value as? NSNumber)?.doubleValue == expected, "\(name): \(String(describing: value))")
        }
    }

    static func option(_ name: String, _ documented: String, equals expected: String) -> Row {
        Row(command: "prefetch", option: name, documented: documented) { h in
            let value = try reportOption(h, optionKey(name))
            #expect(value as? String == expected, "\(name): \(String(describing: value))")
        }
    }

    static func optionKey(_ flag: String) -> String {
        [
            "--concurrency": "concurrency", "--max-per-host": "maxPerHost", "--order": "order",
            "--timeout": "timeoutSeconds",
            "--max-time": "maxTimeSeconds",
            "--max-bytes": "maxBytes", "--max-pixels": "maxPixels", "--max-redirects": "maxRedirects",
            "--validate": "validate",
            "--retries": "retries", "--retry-delay": "retryDelaySeconds", "--max-retry-wait": "maxRetryWaitSeconds",
            "--blacklist-ttl": "blacklistTTLSeconds", "--lock-timeout": "lockTimeoutSeconds",
        ][flag]!
    }

    /// Files in `folder` named like cache files, with access and modification times `days` ago.
    static func file(
        _ folder: String, _ key: String, accessedDaysAgo: Double, modifiedDaysAgo: Double, size: Int = 4096
    ) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let name = SDFileName.forKey(key)
        let path = folder + "/" + name
        try Data(repeating: 7, count: size).write(to: URL(fileURLWithPath: path))
        let now = Date().timeIntervalSince1970
        func time(_ days: Double) -> timespec { timespec(tv_sec: Int(now - days * day), tv_nsec: 0) }
        var times = [time(accessedDaysAgo), time(modifiedDaysAgo)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        return name
    }

    static func names(_ folder: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    }

    static let rows: [Row] = [
        option("--concurrency", "auto", equals: "auto"),
        option("--max-per-host", "128", equals: 128),
        Row(command: "prefetch", option: "--limit-rate", documented: "none") { h in
            let value = try reportOption(h, "limitRate")
            #expect(value is NSNull, "\(String(describing: value))")
        },
        Row(command: "prefetch", option: "--max-rate-per-host", documented: "none") { h in
            let value = try reportOption(h, "maxRatePerHost")
            #expect(value is NSNull, "\(String(describing: value))")
        },
        option("--order", "fifo", equals: "fifo"),
        option("--timeout", "15", equals: 15.0),
        option("--max-time", "300", equals: 300.0),
        option("--max-bytes", "50MiB", equals: Double(50 << 20)),
        option("--max-pixels", "100M", equals: 100_000_000),
        option("--max-redirects", "10", equals: 10),
        option("--validate", "header", equals: "header"),
        option("--retries", "2", equals: 2),
        option("--retry-delay", "1", equals: 1.0),
        option("--max-retry-wait", "30", equals: 30.0),
        option("--blacklist-ttl", "7d", equals: 7 * day),
        option("--lock-timeout", "30", equals: 30.0),
        Row(command: "prefetch", option: "--user-agent", documented: "imgwarm/<version>") { h in
            _ = try h.prefetch([h.url("/img/photo.jpg")])
            #expect(h.server.requests.first?.header("User-Agent") == "imgwarm/\(ImgwarmVersion.current)")
            #expect(h.server.requests.first?.header("Accept") == "image/*,*/*;q=0.8")
        },
        Row(command: "prefetch", option: "--priority", documented: "normal") { h in
            let run = try h.prefetch([h.url("/img/photo.jpg")])
            #expect(try run.entry(line: 1)["priority"] as? String == "normal")
        },
        Row(command: "prefetch", option: "--format", documented: "auto (.jsonl is JSON Lines)") { h in
            let run = try h.prefetch(
                [#"{"url": "\#(h.url("/img/photo.jpg"))", "priority": "high"}"#], listName: "list.jsonl")
            #expect(try run.entry(line: 1)["priority"] as? String == "high", "\(run.stderr)")
        },
        Row(command: "prefetch", option: "--files-root", documented: "the list's folder") { h in
            // The list is in the temporary folder: a file beside it is read, one above it refused.
            _ = try h.temp.write("beside.jpg", try Fixtures.data("images/valid/photo.jpg"))
            let lines = [
                #"{"url": "\#(h.url("/img/a.jpg"))", "file": "beside.jpg"}"#,
                #"{"url": "\#(h.url("/img/b.jpg"))", "file": "../beside.jpg"}"#,
            ]
            let run = try h.prefetch(lines, listName: "list.jsonl")
            #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded", "\(run.stderr)")
            #expect(try run.entry(line: 2)["outcome"] as? String == "invalid")
        },
        Row(command: "prefetch", option: "--offline", documented: "off (entries are downloaded)") { h in
            // A capture's entry without a recorded body is downloaded, not no-body.
            let capture = try HARRunTests.har([HARRunTests.entry(h.url("/img/photo.jpg"), mimeType: "image/jpeg")])
            let list = try h.temp.write("capture.har", capture)
            let run = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", list])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded")
            #expect(h.server.requestCount("/img/photo.jpg") == 1)
            #expect(try (run.report["options"] as? [String: Any])?["offline"] as? Bool == false)
        },
        Row(command: "prefetch", option: "--cache-dir/--namespace", documented: "~/.cache, default") { h in
            let list = try h.temp.write("plain.txt", Data((h.url("/img/photo.jpg") + "\n").utf8))
            let run = try h.run(["prefetch", list])
            #expect(run.status == 0, "\(run.stderr)")
            let folder = h.temp.path(".cache/com.hackemist.SDImageCache/default")
            #expect(names(folder) == [SDFileName.forKey(h.url("/img/photo.jpg"))])
            #expect(
                FileManager.default.fileExists(
                    atPath: h.temp.path(".cache/com.hackemist.SDImageCache/.imgwarm/default/state.sqlite")))
        },
        Row(
            command: "prefetch", option: "--blacklist-ttl",
            documented: "7d (an entry 8 days old is tried again, 6 days old is not)"
        ) { h in
            let url = h.url("/status/404")
            _ = try h.prefetch([url])
            let state = h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/state.sqlite")
            func age(_ days: Double) throws {
                let db = try SQLiteDatabase(path: state)
                try db.execute("UPDATE blacklist SET failed_at = \(Date().timeIntervalSince1970 - days * day)")
            }
            try age(6)
            _ = try h.prefetch([url])
            #expect(h.server.requestCount("/status/404") == 1, "6 days old: still skipped")
            try age(8)
            _ = try h.prefetch([url])
            #expect(h.server.requestCount("/status/404") == 2, "8 days old: expired, requested again")
        },
        Row(
            command: "prefetch", option: "--progress",
            documented: "auto (nothing when standard error is not a terminal)"
        ) { h in
            let run = try h.prefetch([h.url("/slow-headers/photo.jpg?delay=0.4")])
            #expect(!run.stderr.contains("\r") && !run.stderr.contains("%"), "\(run.stderr)")
        },
        Row(
            command: "clean", option: "--max-age", documented: "7d (clean --max-size 500M alone expires week-old files)"
        ) { h in
            let old = try file(h.folder, "old", accessedDaysAgo: 8, modifiedDaysAgo: 8)
            let young = try file(h.folder, "young", accessedDaysAgo: 6, modifiedDaysAgo: 6)
            let run = try h.run(["clean", "--disk-cache-path", h.folder, "--max-size", "500M"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(names(h.folder) == [young])
            #expect(!names(h.folder).contains(old))
        },
        Row(command: "clean", option: "--expire-type", documented: "access") { h in
            let readLately = try file(h.folder, "read lately", accessedDaysAgo: 1, modifiedDaysAgo: 30)
            _ = try file(h.folder, "not read", accessedDaysAgo: 30, modifiedDaysAgo: 1)
            let run = try h.run(["clean", "--disk-cache-path", h.folder])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(names(h.folder) == [readLately])
        },
        Row(command: "clean", option: "--max-size", documented: "none") { h in
            let kept = try (0..<4).map {
                try file(h.folder, "big\($0)", accessedDaysAgo: 1, modifiedDaysAgo: 1, size: 1 << 20)
            }
            let run = try h.run(["clean", "--disk-cache-path", h.folder, "--report", "-"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(names(h.folder) == Set(kept))
            #expect(try (run.report["options"] as? [String: Any])?["maxSizeBytes"] as? Int == 0)
        },
        Row(command: "clean --cache-format nuke", option: "--max-size", documented: "150MiB (Nuke's sizeLimit)") { h in
            let list = try h.temp.write("plain.txt", Data((h.url("/img/photo.jpg") + "\n").utf8))
            let root = h.temp.path("caches")
            #expect(try h.run(["prefetch", "--cache-format", "nuke", "--cache-dir", root, list]).status == 0)
            let run = try h.run(["clean", "--cache-format", "nuke", "--cache-dir", root, "--report", "-"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try (run.report["options"] as? [String: Any])?["maxSizeBytes"] as? Int == 150 << 20)
            #expect(names(root + "/com.github.kean.Nuke.DataCache").count == 1)
        },
        Row(command: "prefetch --cache-format kingfisher", option: "--expires-in", documented: "7d") { h in
            let list = try h.temp.write("plain.txt", Data((h.url("/img/photo.jpg") + "\n").utf8))
            let root = h.temp.path("caches")
            let before = Date().timeIntervalSince1970
            let run = try h.run([
                "prefetch", "--cache-format", "kingfisher", "--cache-dir", root, "--report", "-", list,
            ])
            let after = Date().timeIntervalSince1970
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try (run.report["options"] as? [String: Any])?["expiresInSeconds"] as? Int == 7 * 86400)
            let folder = root + "/com.onevcat.Kingfisher.ImageCache.default"
            let name = try #require(names(folder).first)
            let modified = try #require(
                try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.modificationDate] as? Date)
            #expect(modified.timeIntervalSince1970 >= (before + 7 * day).rounded(.up))
            #expect(modified.timeIntervalSince1970 <= (after + 7 * day).rounded(.up))
        },
        Row(command: "stats", option: "--cache-format", documented: "sdwebimage") { h in
            let run = try h.run(["stats", "--disk-cache-path", h.folder, "--json"])
            #expect(try run.report["cacheFormat"] as? String == "sdwebimage")
        },
        Row(command: "clean", option: "--all", documented: "--all alone empties the folder") { h in
            _ = try file(h.folder, "a", accessedDaysAgo: 0, modifiedDaysAgo: 0)
            _ = try file(h.folder, "b", accessedDaysAgo: 0, modifiedDaysAgo: 0)
            let run = try h.run(["clean", "--disk-cache-path", h.folder, "--all"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(names(h.folder).isEmpty)
        },
        Row(command: "stats", option: "--expire-type", documented: "access") { h in
            _ = try file(h.folder, "a", accessedDaysAgo: 2, modifiedDaysAgo: 9)
            let run = try h.run(["stats", "--disk-cache-path", h.folder, "--json"])
            let dates = try #require(try run.report["dates"] as? [String: Any])
            #expect(dates["expireType"] as? String == "access")
            let oldest = try #require(dates["oldest"] as? String)
            let twoDaysAgo = Date(timeIntervalSinceNow: -2 * day)
            #expect(oldest.hasPrefix(ISO8601DateFormatter().string(from: twoDaysAgo).prefix(10)), "\(oldest)")
        },
        Row(command: "path", option: "--cache-dir/--namespace", documented: "~/.cache, default") { h in
            let run = try h.run(["path", "k"])
            #expect(
                run.result.stdoutText == h.temp.path(".cache/com.hackemist.SDImageCache/default") + "/"
                    + SDFileName.forKey("k") + "\n")
        },
        Row(command: "blacklist list", option: "--state", documented: "<parent>/.imgwarm/<folder>/state.sqlite") { h in
            let list = try h.temp.write("plain.txt", Data((h.url("/status/404") + "\n").utf8))
            _ = try h.run(["prefetch", list])
            let run = try h.run(["blacklist", "list"])
            #expect(run.status == 0)
            #expect(run.result.stdoutText.contains("/status/404"), "\(run.result.stdoutText)")
        },
    ]

    @Test(arguments: rows)
    func defaultHoldsWhenTheOptionIsLeftOut(row: Row) throws {
        let h = try PrefetchHarness()
        try row.check(h)
    }

    /// Each format's `clean --max-size` default, which `clean --help` prints from its rules, is the
    /// limit in force when the option is left out (its report's options).
    @Test(arguments: CacheFormats.all.filter { $0.cleanRules.defaultMaxSize > 0 }.map(\.name))
    func cleanMaxSizeDefaultsToTheLibrarys(format name: String) throws {
        let h = try PrefetchHarness()
        let format = try #require(CacheFormats.named(name))
        let folder = h.temp.path("caches/cache")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let run = try h.run(["clean", "--cache-format", name, "--disk-cache-path", folder, "--report", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        let limit = try (run.report["options"] as? [String: Any])?["maxSizeBytes"] as? UInt64
        #expect(limit == format.cleanRules.defaultMaxSize, "\(name)")
        #expect(
            [40 << 20, 50 << 20, 150 << 20, 250 << 20].contains(limit ?? 0), "\(name): \(String(describing: limit))")
    }

    /// `--help` prints each default once, in the option's own words (argument-parser's
    /// "(default: …)" suffix would repeat it).
    @Test(arguments: [
        ["prefetch"], ["clean"], ["stats"], ["path"], ["blacklist", "list"], ["blacklist", "remove"],
        ["blacklist", "clear"],
    ])
    func helpPrintsEachDefaultOnce(command: [String]) throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run(command + ["--help"], home: temp.path).stdoutText
        #expect(!help.contains("(default: "), "\(help)")
        // One entry per option: its first line starts with "  -", continuation lines are indented.
        var entries: [String] = []
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  -") {
                entries.append(String(line))
            } else if line.hasPrefix("      "), !entries.isEmpty {
                entries[entries.count - 1] += " " + line
            }
        }
        #expect(!entries.isEmpty)
        for entry in entries {
            #expect(entry.components(separatedBy: "(default").count <= 2, "\(entry)")
        }
    }
}
