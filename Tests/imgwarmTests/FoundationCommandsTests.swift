import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// End-to-end runs of `imgwarm path`, `stats` and `clean`.
@Suite(.startsTheBinary) struct FoundationCommandsTests {
    @Test func pathPrintsOnePathPerKey() throws {
        let temp = try TemporaryFolder()
        let result = try CLI.run(
            ["path", "--cache-dir", temp.path("root"), "https://placehold.co/50x50.jpg", "kTestRectangle"],
            home: temp.path)
        #expect(result.status == 0)
        let folder = temp.path("root") + "/com.hackemist.SDImageCache/default/"
        #expect(
            result.stdoutText == folder + "e9936aba8d7f7fcca7813d72290de957.jpg\n" + folder
                + "58d38dae677b10308b7a7b5856903361\n")
    }

    @Test func pathUsesTheEnvironmentAndNamespace() throws {
        let temp = try TemporaryFolder()
        let viaEnv = try CLI.run(["path", "x.png"], home: temp.path, env: ["IMGWARM_CACHE_DIR": "/srv/c"])
        #expect(viaEnv.stdoutText.hasPrefix("/srv/c/com.hackemist.SDImageCache/default/"))
        let viaHome = try CLI.run(["path", "--namespace", "avatars", "x.png"], home: temp.path)
        #expect(viaHome.stdoutText.hasPrefix(temp.path + "/.cache/com.hackemist.SDImageCache/avatars/"))
        let direct = try CLI.run(["path", "--disk-cache-path", "/data/img", "TestImageKey.jpg"], home: temp.path)
        #expect(direct.stdoutText == "/data/img/f77fd0b2d2c9780cce3b1cf4f047030a.jpg\n")
        let nameOnly = try CLI.run(
            ["path", "--disk-cache-path", "/data/img", "--name-only", "TestImageKey.jpg"], home: temp.path)
        #expect(nameOnly.stdoutText == "f77fd0b2d2c9780cce3b1cf4f047030a.jpg\n")
    }

    /// `-` reads keys from standard input, and many of them in one process.
    @Test func pathReadsManyKeysFromStandardInput() throws {
        let temp = try TemporaryFolder()
        let keys = (0..<20_000).map { "https://cdn.example.com/img/\($0).jpg" }
        let input = Data((keys.joined(separator: "\n") + "\n").utf8)
        let result = try CLI.run(["path", "--name-only", "-"], stdin: input, home: temp.path)
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == keys.count)
        let single = try CLI.run(["path", "--name-only", keys[12_345]], home: temp.path)
        #expect(String(lines[12_345]) + "\n" == single.stdoutText)
        #expect(lines.allSatisfy { $0.hasSuffix(".jpg") && $0.count == 36 })
    }

    @Test func pathStandardInputHandlesCRLFAndInvalidUTF8() throws {
        let temp = try TemporaryFolder()
        var input = Data("kTestRectangle\r\n".utf8)
        input.append(contentsOf: [0xFF, 0xFE, 0x0A])
        input.append(Data("TestImageKey.jpg".utf8))  // no final newline
        let result = try CLI.run(["path", "--name-only", "-"], stdin: input, home: temp.path)
        #expect(result.status == 1)
        #expect(result.stdoutText == "58d38dae677b10308b7a7b5856903361\nf77fd0b2d2c9780cce3b1cf4f047030a.jpg\n")
        #expect(result.stderrText.contains("line 2"))
    }

    @Test func statsJSONDescribesTheFolder() throws {
        let temp = try TemporaryFolder()
        let folder = temp.path("cache")
        let images = try Fixtures.validImages()
        for (name, data) in images { try temp.write("cache/" + name, data) }
        try temp.write("cache/.hidden", Data([1, 2, 3]))
        try temp.write("cache/sub/inside", Data([4]))
        let result = try CLI.run(["stats", "--disk-cache-path", folder, "--json"], home: temp.path)
        #expect(result.status == 0, "\(result.stderrText)")
        let json = try CLI.json(result)
        #expect(json["cacheFolder"] as? String == folder)
        #expect(json["schemaVersion"] as? Int == 1)
        let totals = try #require(json["totals"] as? [String: Any])
        // Every entry counts: 10 images (two JPEGs), .hidden, sub and sub/inside.
        #expect(totals["totalDiskCount"] as? Int == images.count + 3)
        #expect(totals["cacheFiles"] as? Int == images.count)
        let subSize = try FileManager.default.attributesOfItem(atPath: folder + "/sub")[.size] as? Int ?? 0
        let expectedSize = images.values.reduce(0) { $0 + $1.count } + 3 + 1 + subSize
        #expect(totals["totalDiskSize"] as? Int == expectedSize)
        let formats = try #require(json["formats"] as? [String: Int])
        #expect(
            formats == ["jpeg": 2, "png": 1, "gif": 1, "tiff": 1, "webp": 1, "heic": 1, "avif": 1, "bmp": 1, "ico": 1])
        let dates = try #require(json["dates"] as? [String: Any])
        #expect(dates["expireType"] as? String == "access")
        #expect((dates["oldest"] as? String)?.hasSuffix("Z") == true)
    }

    @Test func statsTextOnAMissingFolder() throws {
        let temp = try TemporaryFolder()
        let result = try CLI.run(["stats", "--cache-dir", temp.path("none")], home: temp.path)
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("does not exist yet"))
        #expect(result.stdoutText.contains("Entries:        0"))
    }

    @Test func cleanReportOnStandardOutput() throws {
        let temp = try TemporaryFolder()
        let folder = temp.path("cache")
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        // Cache file names: clean refuses folders of other files (CleanGuardTests).
        let old = ["https://a.com/old1.jpg", "https://a.com/old2.jpg"].map(SDFileName.forKey)
        let fresh = SDFileName.forKey("https://a.com/fresh.jpg")
        for name in old {
            let path = try temp.write("cache/" + name, Data(repeating: 1, count: 100))
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        }
        try temp.write("cache/" + fresh, Data(repeating: 1, count: 100))
        let result = try CLI.run(
            ["clean", "--disk-cache-path", folder, "--max-age", "30d", "--report", "-"], home: temp.path)
        #expect(result.status == 0, "\(result.stderrText)")
        let json = try CLI.json(result)
        #expect(json["command"] as? String == "clean")
        let removed = try #require(json["removed"] as? [[String: Any]])
        #expect(Set(removed.compactMap { $0["name"] as? String }) == Set(old))
        #expect(
            removed.allSatisfy {
                $0["reason"] as? String == "expired" && $0["date"] as? String == "2001-09-09T01:46:40.000Z"
            })
        #expect(removed.allSatisfy { ($0["logicalBytes"] as? Int) == 100 })
        let before = try #require(json["before"] as? [String: Any])
        let after = try #require(json["after"] as? [String: Any])
        #expect(before["entries"] as? Int == 3)
        #expect(after["entries"] as? Int == 1)
        let totals = try #require(json["totals"] as? [String: Any])
        #expect(totals["expired"] as? Int == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [fresh])
        #expect(result.stderrText.contains("deleted 2 files"))
    }

    @Test func cleanReportToAFileAndDryRun() throws {
        let temp = try TemporaryFolder()
        let folder = temp.path("cache")
        for index in 0..<4 {
            try temp.write("cache/" + SDFileName.forKey("f\(index)"), Data(repeating: 1, count: 4096))
        }
        let report = temp.path("report.json")
        let result = try CLI.run(
            ["clean", "--disk-cache-path", folder, "--max-size", "10000", "--dry-run", "--report", report, "--quiet"],
            home: temp.path)
        #expect(result.status == 0)
        #expect(result.stderrText.isEmpty, "--quiet prints nothing: \(result.stderrText)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect((json["removed"] as? [Any])?.count == 3)
        #expect((json["options"] as? [String: Any])?["dryRun"] as? Bool == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 4)
    }

    @Test(arguments: [
        (["clean", "--max-size", "5Q"], "e.g. 500M"),
        (["clean", "--max-age", "yesterday"], "e.g. 7d"),
        (["clean", "--expire-type", "birth"], "access, modification, creation or change"),
        (["clean", "--all", "--max-age", "1d"], "--all"),
        (["path"], "at least one key"),
        (["path", "--namespace", "a/b", "k"], "invalid namespace"),
        (["path", "--namespace", ".imgwarm", "k"], "invalid namespace '.imgwarm': imgwarm keeps its state"),
        (["path", "--namespace", "..", "k"], "invalid namespace"),
        (["path", "--namespace", "", "k"], "invalid namespace"),
        (["clean", "--namespace", ".imgwarm", "--all"], "invalid namespace '.imgwarm'"),
        (["stats", "--disk-cache-path", "/srv/.imgwarm"], "lies inside a folder named .imgwarm"),
        (["clean", "--disk-cache-path", "/srv/.imgwarm/default", "--all"], "lies inside a folder named .imgwarm"),
        (["path", "--cache-dir", "/srv/.imgwarm/x", "k"], "lies inside a folder named .imgwarm"),
        (["path", "--cache-dir", "/a", "--disk-cache-path", "/b", "k"], "--disk-cache-path"),
        (["frobnicate"], "Unexpected argument"),
        // Width × height past Int.max once trapped (SIGILL) instead of being refused.
        (["prefetch", "--max-pixels", "99999999999x99999999999", "-"], "invalid pixel limit"),
        (["prefetch", "--max-decode-memory", "lots", "-"], "--max-decode-memory"),
        // argument-parser's help printed the top-level help and exited 0 for an unknown topic.
        (["help", "nope"], "'imgwarm' has no command 'nope': its commands are prefetch, path"),
        (["help", "blacklist", "nope"], "'imgwarm blacklist' has no command 'nope': its commands are list"),
    ])
    func usageErrorsExitWithTwo(arguments: [String], message: String) throws {
        // (Each help topic that exists still prints its help: `helpTopicsThatExist`.)
        let temp = try TemporaryFolder()
        let result = try CLI.run(arguments, home: temp.path)
        #expect(result.status == 2)
        #expect(result.stderrText.contains(message), "\(result.stderrText)")
        #expect(result.stdout.isEmpty)
    }

    /// `--namespace .imgwarm` would make imgwarm's state folder for the other namespaces a cache
    /// folder (issue 21): refused before anything is created.
    @Test func prefetchRefusesImgwarmsOwnFolderAsACache() throws {
        let temp = try TemporaryFolder()
        let list = try temp.write("list.txt", Data("http://127.0.0.1:9/a.jpg\n".utf8))
        let root = temp.path("root")
        for location in [["--cache-dir", root, "--namespace", ".imgwarm"], ["--disk-cache-path", root + "/.imgwarm"]] {
            let result = try CLI.run(["prefetch"] + location + [list], home: temp.path)
            #expect(result.status == 2, "\(location): \(result.stderrText)")
            #expect(result.stderrText.contains(".imgwarm"))
            #expect(!FileManager.default.fileExists(atPath: root), "nothing created")
        }
    }

    /// A report folder that cannot be made (a file is in the way; a missing one is made, as
    /// `mkdir -p` would) is a usage error before anything is deleted.
    @Test func unwritableReportIsAUsageErrorAndDeletesNothing() throws {
        let temp = try TemporaryFolder()
        try temp.write("cache/a", Data([1]))
        try temp.write("reports", Data([1]))  // a file where the report's folder should be
        let result = try CLI.run(
            [
                "clean", "--disk-cache-path", temp.path("cache"), "--max-age", "0", "--report",
                temp.path("reports/dir/r.json"),
            ], home: temp.path)
        #expect(result.status == 2)
        #expect(result.stderrText.contains("cannot write the report"))
        #expect(FileManager.default.fileExists(atPath: temp.path("cache/a")))
    }

    @Test func helpListsExitCodes() throws {
        let temp = try TemporaryFolder()
        for command in [["--help"], ["clean", "--help"], ["path", "--help"], ["stats", "--help"]] {
            let result = try CLI.run(command, home: temp.path)
            #expect(result.status == 0)
            #expect(result.stdoutText.contains("Exit codes:"), "\(command)")
        }
    }

    /// A TMPDIR that is no folder is the environment's mistake: exit 2 naming it, before any
    /// work, not "cache unusable" (exit 3).
    @Test func aMissingTemporaryFolderIsAUsageError() throws {
        let temp = try TemporaryFolder()
        let list = try temp.write("l.txt", Data("http://127.0.0.1:9/a.jpg\n".utf8))
        let run = try CLI.run(
            ["prefetch", "--disk-cache-path", temp.path("c"), list], home: temp.path, env: ["TMPDIR": "/nonexistent"])
        #expect(run.status == 2, "\(run.stderrText)")
        #expect(run.stderrText.contains("TMPDIR=/nonexistent: no such folder"), "\(run.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: temp.path("c")), "nothing was done")
    }

    /// `imgwarm help` of a command that exists, at any depth, prints that command's help and exits 0.
    @Test(arguments: [["help"], ["help", "prefetch"], ["help", "blacklist", "list"]])
    func helpTopicsThatExist(arguments: [String]) throws {
        let temp = try TemporaryFolder()
        let result = try CLI.run(arguments, home: temp.path)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.hasPrefix("OVERVIEW: "), "\(result.stdoutText.prefix(80))")
        if arguments.count == 3 { #expect(result.stdoutText.contains("List the blacklisted URLs")) }
    }
}
