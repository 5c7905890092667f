import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// What a cron job or a CI job relies on with nobody watching: `--quiet`, progress for logs,
/// the clean guard, read-only commands that create nothing, and options that take negative or
/// ambiguous values.
@Suite(.startsTheBinary) struct QuietAndProgressTests {
    /// Under `--quiet` each failed or invalid line still gets its line, up to 50, then one line
    /// with the count of the rest and where the report is; nothing else. Quiet is loud on change:
    /// the next run skips the URLs this one blacklisted and prints nothing of them (cron mailed the
    /// same dead URL every hour before); without --quiet it still lists them.
    @Test func quietPrintsTheFirstFiftyProblemsThenTheirCount() throws {
        let h = try PrefetchHarness()
        let lines = (0..<57).map { h.url("/status/404?n=\($0)") } + ["not a url", h.url("/img/photo.jpg")]
        let report = h.temp.path("report.json")
        let list = try h.temp.write("many.txt", Data((lines.joined(separator: "\n") + "\n").utf8))
        let run = try h.run(["prefetch", "--disk-cache-path", h.folder, "--quiet", "--report", report, list])
        #expect(run.status == 1)
        let printed = run.stderr.split(separator: "\n")
        #expect(printed.count == 51, "\(run.stderr)")
        #expect(printed.prefix(50).allSatisfy { $0.hasPrefix("imgwarm: " + list + ":") }, "\(printed)")
        #expect(
            printed.last?.contains("and 8 more failed or invalid lines") == true, "\(printed.last ?? "")")
        #expect(printed.last?.contains(report) == true)
        #expect(!run.stderr.contains("imgwarm prefetch:"), "no summary under --quiet")

        // The second run, quiet: the 57 URLs are skipped as blacklisted and not printed; the
        // invalid line is; the exit code still says some URLs are not in the cache.
        let again = try h.run(["prefetch", "--disk-cache-path", h.folder, "--quiet", "--report", report, list])
        #expect(again.status == 1)
        let second = again.stderr.split(separator: "\n")
        #expect(second.count == 1, "\(again.stderr)")
        #expect(second.first?.contains("\(list):58: ") == true, "\(again.stderr)")
        let secondReport = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
        #expect(((secondReport as? [String: Any])?["totals"] as? [String: Any])?["blacklisted"] as? Int == 57)

        // Without --quiet they are listed, and the first says how to request them again.
        let loud = try h.run(["prefetch", "--disk-cache-path", h.folder, list])
        let blacklisted = loud.stderr.split(separator: "\n").filter { $0.contains(": blacklisted: ") }
        #expect(blacklisted.count == 57, "\(loud.stderr)")
        #expect(blacklisted.first?.contains("--retry-failed") == true, "the first says how to request them again")
        #expect(blacklisted.dropFirst().allSatisfy { !$0.contains("--retry-failed") }, "and only the first")
    }

    /// A list with no URL warns, even quietly: a cron line pointing at an emptied file is a bug.
    @Test func listsWithoutURLsWarnEvenQuietly() throws {
        let h = try PrefetchHarness()
        let run = try h.prefetch(["# nothing yet", ""], options: ["--quiet"])
        #expect(run.status == 0)
        #expect(run.stderr.contains("warning: the lists hold no URL"), "\(run.stderr)")
    }

    /// `--progress log` prints a timestamped plain line every `--progress-interval`; `bar` draws
    /// a bar and a percentage; `--quiet` with either is a contradiction.
    @Test func progressModes() throws {
        let h = try PrefetchHarness()
        var run = 0
        var slow: [String] {
            run += 1
            return [h.url("/slow-headers/photo.jpg?delay=1.2&run=\(run)")]
        }
        let log = try h.prefetch(slow, options: ["--progress", "log", "--progress-interval", "0.3"])
        #expect(log.status == 0)
        let logLines = log.stderr.split(separator: "\n").filter { $0.contains("imgwarm: 0/1 (0%)") }
        #expect(logLines.count >= 2, "\(log.stderr)")
        #expect(logLines.allSatisfy { $0.first?.isNumber == true && $0.contains("T") && $0.contains("Z imgwarm:") })
        #expect(!log.stderr.contains("\r"))

        let bar = try h.prefetch(slow, options: ["--progress", "bar"])
        #expect(bar.stderr.contains("\r\u{1B}[K[....................]   0% 0/1"), "\(bar.stderr)")

        let none = try h.prefetch(slow, options: ["--progress", "none"])
        #expect(!none.stderr.contains("0/1"))

        let contradiction = try h.prefetch(slow, options: ["--quiet", "--progress", "log"])
        #expect(contradiction.status == 2)
        #expect(contradiction.stderr.contains("--quiet"))
    }

    /// The dry-run summary counts blacklisted lines too.
    @Test func dryRunSummaryCountsBlacklistedLines() throws {
        let h = try PrefetchHarness()
        let lines = [h.url("/status/404"), h.url("/img/photo.jpg")]
        _ = try h.prefetch(lines)
        let dry = try h.prefetch(lines + [h.url("/img/anim.gif")], options: ["--dry-run"])
        #expect(dry.stderr.contains("1 would be fetched, 1 cached, 1 blacklisted"), "\(dry.stderr)")
    }
}

@Suite struct CleanGuardTests {
    func cacheFile(_ temp: TemporaryFolder, _ folder: String, _ key: String) throws -> String {
        let name = SDFileName.forKey(key)
        try temp.write(folder + "/" + name, Data(repeating: 1, count: 100))
        return name
    }

    func names(_ path: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
    }

    /// A folder with files that are not cache files is refused before anything is deleted, dry
    /// runs included; `--force` overrides; hidden files and subfolders do not count.
    @Test func foreignFilesStopCleanUnlessForced() throws {
        let temp = try TemporaryFolder()
        let folder = temp.path("cache")
        let cached = try cacheFile(temp, "cache", "https://a.com/x.jpg")
        try temp.write("cache/.DS_Store", Data([0]))
        try temp.write("cache/sub/notes.txt", Data([0]))
        for name in ["passwd", "hosts", "fstab", "motd", "issue"] { try temp.write("cache/" + name, Data([0])) }
        let before = names(folder)
        for arguments in [["--max-age", "0"], ["--max-age", "0", "--dry-run"], ["--all"]] {
            let run = try CLI.run(["clean", "--disk-cache-path", folder] + arguments, home: temp.path)
            #expect(run.status == 2, "\(arguments): \(run.stderrText)")
            #expect(run.stderrText.contains("does not look like an image disk cache"))
            #expect(run.stderrText.contains("and 2 more") && run.stderrText.contains("--force"), "\(run.stderrText)")
            #expect(names(folder) == before, "nothing deleted")
        }
        let forced = try CLI.run(["clean", "--disk-cache-path", folder, "--max-age", "0", "--force"], home: temp.path)
        #expect(forced.status == 0, "\(forced.stderrText)")
        #expect(names(folder) == [".DS_Store", "sub"], "cache and foreign files gone, hidden entries and folders kept")
        #expect(!names(folder).contains(cached))

        // Only hidden entries and folders besides cache files: no refusal.
        let kept = try cacheFile(temp, "cache", "https://a.com/y.png")
        let plain = try CLI.run(["clean", "--disk-cache-path", folder, "--max-age", "0"], home: temp.path)
        #expect(plain.status == 0, "\(plain.stderrText)")
        #expect(!names(folder).contains(kept))
    }

    /// `/`, the home folder and a caches root are refused, `--force` or not, also through a link.
    @Test func protectedFoldersAreRefusedEvenWithForce() throws {
        let temp = try TemporaryFolder()
        let home = temp.path
        try temp.write(".cache/" + SDFileName.forKey("k"), Data([1]))
        try FileManager.default.createSymbolicLink(atPath: temp.path("link-to-home"), withDestinationPath: home)
        let cases: [([String], String)] = [
            (["--disk-cache-path", "/"], "the root folder"),
            (["--disk-cache-path", home], "the home folder"),
            (["--disk-cache-path", temp.path("link-to-home")], "the home folder"),
            (["--disk-cache-path", home + "/.cache"], "a caches root"),
            (["--disk-cache-path", temp.path("elsewhere"), "--max-age", "0"], ""),
        ]
        for (arguments, what) in cases {
            let run = try CLI.run(["clean", "--max-age", "0", "--force", "--dry-run"] + arguments, home: home)
            if what.isEmpty {
                #expect(run.status == 0, "\(run.stderrText)")
            } else {
                #expect(run.status == 2, "\(arguments)")
                #expect(run.stderrText.contains(what), "\(run.stderrText)")
            }
        }
        let caches = try CLI.run(
            ["clean", "--disk-cache-path", temp.path("roots"), "--max-age", "0"], home: home,
            env: ["XDG_CACHE_HOME": temp.path("roots")])
        #expect(caches.status == 2 && caches.stderrText.contains("a caches root"), "\(caches.stderrText)")
        #expect(FileManager.default.fileExists(atPath: temp.path(".cache/" + SDFileName.forKey("k"))))
    }

    /// A cache folder given as a symbolic link is followed by clean and stats, as by prefetch;
    /// links inside it never are.
    @Test func aLinkedCacheFolderIsFollowed() throws {
        let temp = try TemporaryFolder()
        let name = try cacheFile(temp, "real", "https://a.com/z.gif")
        try temp.write("outside/" + SDFileName.forKey("target"), Data([2]))
        try FileManager.default.createSymbolicLink(
            atPath: temp.path("real/" + SDFileName.forKey("link")),
            withDestinationPath: temp.path("outside/" + SDFileName.forKey("target")))
        try FileManager.default.createSymbolicLink(atPath: temp.path("linked"), withDestinationPath: temp.path("real"))
        let stats = try CLI.run(["stats", "--disk-cache-path", temp.path("linked"), "--json"], home: temp.path)
        #expect(stats.status == 0, "\(stats.stderrText)")
        #expect(((try CLI.json(stats))["totals"] as? [String: Any])?["cacheFiles"] as? Int == 1)
        let clean = try CLI.run(["clean", "--disk-cache-path", temp.path("linked"), "--all"], home: temp.path)
        #expect(clean.status == 0, "\(clean.stderrText)")
        #expect(!names(temp.path("real")).contains(name))
        #expect(names(temp.path("outside")) == [SDFileName.forKey("target")], "the link's target is never touched")
    }
}

@Suite struct ReadOnlyCommandTests {
    /// Read-only commands on a missing cache create no folder, database or lock, and say the
    /// cache is missing.
    @Test func readOnlyCommandsCreateNothing() throws {
        let temp = try TemporaryFolder()
        let list = try temp.write("list.txt", Data("http://127.0.0.1:9/a.jpg\n".utf8))
        let commands: [[String]] = [
            ["blacklist", "list"], ["blacklist", "list", "--json"], ["stats"], ["stats", "--json"], ["path", "k"],
            ["clean", "--dry-run"], ["clean", "--dry-run", "--max-size", "1M"], ["prefetch", "--dry-run", list],
            ["blacklist", "remove", "http://a.com/x.jpg"], ["blacklist", "clear"],
        ]
        for command in commands {
            let run = try CLI.run(command, home: temp.path)
            #expect(run.status == 0 || (command[1] == "remove" && run.status == 1), "\(command): \(run.stderrText)")
            let created = (try? FileManager.default.contentsOfDirectory(atPath: temp.path)) ?? []
            #expect(created.sorted() == ["list.txt"], "\(command) created \(created)")
        }
        let list2 = try CLI.run(["blacklist", "list"], home: temp.path)
        #expect(
            list2.stderrText.contains("no cache at") && list2.stderrText.contains("nothing is blacklisted"),
            "\(list2.stderrText)")
        let stats = try CLI.run(["stats"], home: temp.path)
        #expect(stats.stdoutText.contains("does not exist yet"))
        // prefetch --dry-run said nothing of it (issue 23); it warns, under --quiet too.
        let dryRun = try CLI.run(["prefetch", "--dry-run", "--quiet", list], home: temp.path)
        #expect(dryRun.status == 0)
        #expect(
            dryRun.stderrText.contains("does not exist yet: every URL would be fetched"), "\(dryRun.stderrText)")
    }

    /// A mistyped folder in a quiet cron line is still heard of.
    @Test func cleanOfAMissingFolderWarnsEvenQuietly() throws {
        let temp = try TemporaryFolder()
        let run = try CLI.run(["clean", "--disk-cache-path", temp.path("no-such-cache"), "--quiet"], home: temp.path)
        #expect(run.status == 0)
        #expect(run.stderrText.contains("no-such-cache does not exist: nothing to clean"), "\(run.stderrText)")
    }

    /// `stats` of a damaged database warns and says the state is unusable, instead of "0 tracked
    /// keys"; counts agree with their nouns (issue 23).
    @Test func statsSaysWhatItCannotRead() throws {
        let temp = try TemporaryFolder()
        let folder = temp.path("caches/com.hackemist.SDImageCache/default")
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "/tmp")
        let state = temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try Data(repeating: 0x55, count: 8192).write(to: URL(fileURLWithPath: state + "/state.sqlite"))
        let run = try CLI.run(["stats", "--disk-cache-path", folder], home: temp.path)
        #expect(run.status == 0)
        #expect(run.stderrText.contains("warning: cannot use the state database"), "\(run.stderrText)")
        #expect(run.stdoutText.contains("State:          unusable, see the warning"), "\(run.stdoutText)")
        #expect(!run.stdoutText.contains("0 tracked keys"))
        #expect(run.stdoutText.contains("1 folder, 1 symbolic link"), "\(run.stdoutText)")
    }

    /// A damaged database is reported by `blacklist list`, never moved aside by it.
    @Test func blacklistListLeavesADamagedDatabaseAlone() throws {
        let h = try PrefetchHarness()
        _ = try h.prefetch([h.url("/status/404")])
        let state = h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/state.sqlite")
        try Data(repeating: 0x55, count: 8192).write(to: URL(fileURLWithPath: state))
        let run = try h.run(["blacklist", "list", "--disk-cache-path", h.folder])
        #expect(run.status == 3)
        #expect(run.stderr.contains("damaged"), "\(run.stderr)")
        let folder =
            (try? FileManager.default.contentsOfDirectory(
                atPath: h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default"))) ?? []
        #expect(!folder.contains { $0.contains("corrupt") }, "\(folder)")
    }

    /// The state database holds URLs, and URLs can hold passwords: only its owner may read it.
    @Test func stateDatabaseIsPrivate() throws {
        let h = try PrefetchHarness()
        let url = "http://user:hunter2@127.0.0.1:\(h.server.port)/status/403"
        _ = try h.prefetch([url])
        let folder = h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("state.sqlite") {
            var info = stat()
            #expect(stat(folder + "/" + name, &info) == 0)
            #expect(info.st_mode & 0o077 == 0, "\(name) mode \(String(info.st_mode & 0o777, radix: 8))")
        }
    }
}

@Suite struct OptionValueTests {
    /// Negative values are values, not options; ranges and units are checked with a hint.
    @Test func negativeAndAmbiguousValues() throws {
        let h = try PrefetchHarness()
        let name = SDFileName.forKey("k")
        try h.temp.write("caches/com.hackemist.SDImageCache/default/" + name, Data([1]))
        let never = try h.run(["clean", "--disk-cache-path", h.folder, "--max-age", "-1", "--report", "-"])
        #expect(never.status == 0, "\(never.stderr)")
        #expect(try (never.report["options"] as? [String: Any])?["maxAgeSeconds"] is NSNull)
        #expect(FileManager.default.fileExists(atPath: h.folder + "/" + name))

        let list = try h.temp.write("l.txt", Data((h.url("/img/photo.jpg") + "\n").utf8))
        let concurrency = try h.run(["prefetch", "--disk-cache-path", h.folder, "--concurrency", "-3", list])
        #expect(concurrency.status == 2)
        #expect(concurrency.stderr.contains("between 1 and 1024"), "\(concurrency.stderr)")
        let ttl = try h.run(["prefetch", "--disk-cache-path", h.folder, "--blacklist-ttl", "-1", "--report", "-", list])
        #expect(ttl.status == 0, "\(ttl.stderr)")
        #expect(try (ttl.report["options"] as? [String: Any])?["blacklistTTLSeconds"] is NSNull)

        let month = try h.run(["clean", "--disk-cache-path", h.folder, "--max-age", "1M"])
        #expect(month.status == 2)
        #expect(month.stderr.contains("months are not a unit"), "\(month.stderr)")
        #expect(FileManager.default.fileExists(atPath: h.folder + "/" + name))
    }
}
