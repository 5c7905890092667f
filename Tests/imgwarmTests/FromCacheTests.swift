import Foundation
import ImgwarmKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `prefetch --from-cache DIR --from-format FORMAT` (issue 55; docs/usage.md, "Seeding from
/// another cache"): each line's entry in the other library's (or version's) cache is validated
/// and stored with no request; the source is only read (names, bytes and times unchanged); its
/// times carry over where they mean the same; what it lacks or holds damaged is requested, or
/// under `--offline` ends `no-body`.
@Suite struct FromCacheTests {
    /// Every file under `folder`: its bytes' digest and its access and modification times, read
    /// without moving the access time (`O_NOATIME`: the tests' own reads must not change what
    /// they compare).
    static func snapshot(_ folder: String) -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let descriptor = open(path, O_RDONLY | 0o1_000_000)  // O_NOATIME
            var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
            if descriptor >= 0 {
                _ = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                close(descriptor)
            }
            result[name] =
                "\(MD5.digest(bytes).hex) a\(info.st_atim.tv_sec).\(info.st_atim.tv_nsec) m\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        return result
    }

    struct Setup {
        let h: PrefetchHarness
        let urls: [String]
        let list: String
        let source: String
        let target: String

        /// A `format` cache of three images under `source`, made by imgwarm.
        init(_ format: String) throws {
            let harness = try PrefetchHarness()
            h = harness
            urls = ["photo.jpg", "gradient.png", "anim.gif"].enumerated().map { index, image in
                harness.url("/img/\(image)?v=\(index)")
            }
            list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
            source = h.temp.path("old")
            target = h.temp.path("new")
            let seed = try h.run(["prefetch", "--quiet", "--cache-format", format, "--cache-dir", source, list])
            #expect(seed.status == 0, "\(seed.stderr)")
        }

        var requests: Int { h.server.requests.count }

        func run(_ arguments: [String], list: String? = nil) throws -> PrefetchHarness.Run {
            try h.run(["prefetch", "--cache-dir", target, "--report", "-"] + arguments + [list ?? self.list])
        }

        /// The report's outcomes in the lines' order.
        func outcomes(_ run: PrefetchHarness.Run) throws -> [String] {
            try #require(try run.report["entries"] as? [[String: Any]])
                .sorted { ($0["line"] as? Int ?? 0) < ($1["line"] as? Int ?? 0) }
                .compactMap { $0["outcome"] as? String }
        }
    }

    /// The four conversions of the issue: every entry copied with no request (`--offline`), the
    /// target's verify all hits, the source unchanged.
    @Test(arguments: [
        ("kingfisher7", "kingfisher"), ("coil2", "coil"), ("sdwebimage", "kingfisher"), ("glide", "sdwebimage"),
        ("flutter", "nuke"), ("fresco", "pinremoteimage"),
    ])
    func conversionsNeedNoRequest(from: String, to: String) throws {
        let s = try Setup(from)
        let before = Self.snapshot(s.source)
        #expect(!before.isEmpty)
        let requests = s.requests
        let run = try s.run(["--offline", "--cache-format", to, "--from-cache", s.source, "--from-format", from])
        #expect(run.status == 0, "\(from) → \(to): \(run.stderr)")
        #expect(s.requests == requests, "no request")
        #expect(try s.outcomes(run) == ["copied", "copied", "copied"])
        let entries = try #require(try run.report["entries"] as? [[String: Any]])
        #expect(entries.allSatisfy { $0["copiedFrom"] as? String == from })
        #expect((try run.report["totals"] as? [String: Any])?["copied"] as? Int == 3)
        #expect(
            run.stderr.contains("3 of 3 URLs in the cache (0 stored offline, 3 copied from another cache, 0 cached)"),
            "\(run.stderr)")
        let verify = try s.h.run(["verify", "--cache-format", to, "--cache-dir", s.target, s.list])
        #expect(verify.status == 0, "\(verify.result.stdoutText)")
        #expect(Self.snapshot(s.source) == before, "the source is only read: names, bytes and times unchanged")
    }

    /// Kingfisher 7's expiry dates stay Kingfisher 8's; SDWebImage's download time is no expiry:
    /// Kingfisher then stamps its own week.
    @Test func timesCarryOverOnlyWhereTheyMeanTheSame() throws {
        let s = try Setup("kingfisher7")
        let old = s.source + "/" + FormatPrefetchTests.kingfisherFolder
        // Give the source entries an expiry of their own, two days ahead.
        let expiry = Date().timeIntervalSince1970 + 2 * 86400
        for url in s.urls {
            try FormatPrefetchTests.setTimes(
                old + "/" + (try ReaderModel.name(url, format: "kingfisher7")), access: expiry - 86400 * 3,
                modification: expiry.rounded())
        }
        let run = try s.run(["--cache-format", "kingfisher", "--from-cache", s.source, "--from-format", "kingfisher7"])
        #expect(run.status == 0, "\(run.stderr)")
        let new = s.target + "/" + FormatPrefetchTests.kingfisherFolder
        for url in s.urls {
            let times = try #require(ReaderModel.times(new + "/" + (try ReaderModel.name(url, format: "kingfisher"))))
            #expect(times.modification == expiry.rounded(), "the expiry carried over")
        }

        let sd = try Setup("sdwebimage")
        let now = Date().timeIntervalSince1970
        let converted = try sd.run([
            "--cache-format", "kingfisher", "--from-cache", sd.source, "--from-format", "sdwebimage",
        ])
        #expect(converted.status == 0, "\(converted.stderr)")
        for url in sd.urls {
            let path =
                sd.target + "/" + FormatPrefetchTests.kingfisherFolder + "/"
                + (try ReaderModel.name(url, format: "kingfisher"))
            let times = try #require(ReaderModel.times(path))
            #expect(times.modification > now + 6 * 86400 && times.modification < now + 8 * 86400, "Kingfisher's week")
        }
    }

    /// A damaged source entry is refused by validation and not stored: requested instead, or
    /// `no-body` under `--offline`; a line the source lacks likewise.
    @Test func whatTheSourceLacksOrHoldsDamagedIsRequested() throws {
        let s = try Setup("sdwebimage")
        let damaged = s.source + "/com.hackemist.SDImageCache/default/" + SDFileName.forKey(s.urls[0])
        try Data(repeating: 0x41, count: 3000).write(to: URL(fileURLWithPath: damaged))
        let missing = s.h.url("/img/sticker.webp?v=9")
        let list = try s.h.temp.write("more.txt", Data(((s.urls + [missing]).joined(separator: "\n") + "\n").utf8))
        let before = Self.snapshot(s.source)

        let offline = try s.run(
            ["--offline", "--cache-format", "glide", "--from-cache", s.source, "--from-format", "sdwebimage"],
            list: list)
        #expect(offline.status == 1, "\(offline.stderr)")
        #expect(try s.outcomes(offline) == ["no-body", "copied", "copied", "no-body"])
        let glide = s.target + "/image_manager_disk_cache"
        #expect(!FileManager.default.fileExists(atPath: glide + "/\(Digest.sha256Hex(s.urls[0])).0"), "not stored")

        let requests = s.requests
        let online = try s.run(
            ["--cache-format", "glide", "--from-cache", s.source, "--from-format", "sdwebimage"], list: list)
        #expect(online.status == 0, "\(online.stderr)")
        #expect(try s.outcomes(online) == ["downloaded", "cached", "cached", "downloaded"])
        #expect(s.requests == requests + 2, "the damaged entry and the missing one, once each")
        #expect(
            FileManager.default.contents(atPath: glide + "/\(Digest.sha256Hex(s.urls[0])).0").map([UInt8].init)
                == s.h.routes.valid["photo.jpg"])
        #expect(Self.snapshot(s.source) == before)
    }

    /// A source is untrusted: a link in place of an entry is not followed, and an entry its
    /// reader would not return (a Kingfisher file past its expiry date) is not copied.
    @Test func linksAndExpiredEntriesAreNoSource() throws {
        let s = try Setup("kingfisher7")
        let old = s.source + "/" + FormatPrefetchTests.kingfisherFolder
        let linked = old + "/" + (try ReaderModel.name(s.urls[0], format: "kingfisher7"))
        let elsewhere = try s.h.temp.write("elsewhere.jpg", Data(s.h.routes.valid["photo.jpg"]!))
        try FileManager.default.removeItem(atPath: linked)
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: elsewhere)
        let expired = old + "/" + (try ReaderModel.name(s.urls[1], format: "kingfisher7"))
        let past = Date().timeIntervalSince1970 - 3600
        try FormatPrefetchTests.setTimes(expired, access: past, modification: past.rounded())
        let run = try s.run([
            "--offline", "--cache-format", "kingfisher", "--from-cache", s.source, "--from-format", "kingfisher7",
        ])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(try s.outcomes(run) == ["no-body", "no-body", "copied"])
    }

    /// `--offline` with a long list of plain URL lines (what a conversion's list is): every line
    /// is `no-body`, each message naming its setting. Reading the setting's name once grew a
    /// thunk a message, and the process overflowed its stack past some 110,000 lines.
    @Test func aLongOfflineListOfPlainLines() throws {
        let h = try PrefetchHarness()
        let lines = (0..<150_000).map { "https://img.example.invalid/\($0).jpg" }
        let list = try h.temp.write("long.txt", Data((lines.joined(separator: "\n") + "\n").utf8))
        let run = try h.run(
            ["prefetch", "--offline", "--dry-run", "--quiet", "--cache-dir", h.temp.path("c"), list], timeout: 300,
            binary: true)
        #expect(run.status == 1, "\(run.stderr.suffix(300))")
        #expect(
            run.stderr.contains("150000 more failed or invalid lines") || run.stderr.contains("more failed"),
            "\(run.stderr.suffix(300))")
    }

    /// A copy is no request: a URL the target's blacklist holds is copied all the same.
    @Test func aBlacklistedURLIsCopied() throws {
        let s = try Setup("sdwebimage")
        let gone = s.h.url("/nothing-here/photo.jpg")
        let list = try s.h.temp.write("gone.txt", Data((gone + "\n").utf8))
        let failed = try s.run(["--cache-format", "glide"], list: list)
        let failedOutcomes = try s.outcomes(failed)
        #expect(failed.status == 1 && failedOutcomes == ["failed"], "\(failed.stderr)")
        let listed = try s.h.run(["blacklist", "list", "--cache-format", "glide", "--cache-dir", s.target])
        #expect(listed.result.stdoutText.contains("/nothing-here/photo.jpg"), "\(listed.result.stdoutText)")
        // The old cache holds an image under that URL's key.
        let file = s.source + "/com.hackemist.SDImageCache/default/" + SDFileName.forKey(gone)
        try Data(s.h.routes.valid["photo.jpg"]!).write(to: URL(fileURLWithPath: file))
        let requests = s.requests
        let run = try s.run(
            ["--cache-format", "glide", "--from-cache", s.source, "--from-format", "sdwebimage"], list: list)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try s.outcomes(run) == ["copied"])
        #expect(s.requests == requests)
    }

    /// Several target formats from one source: no request; a dry run says what would be copied
    /// and writes nothing.
    @Test func severalTargetsAndTheDryRun() throws {
        let s = try Setup("kingfisher7")
        let requests = s.requests
        let dry = try s.run([
            "--dry-run", "--cache-format", "sdwebimage,glide", "--from-cache", s.source, "--from-format", "kingfisher7",
        ])
        #expect(dry.status == 0, "\(dry.stderr)")
        let dryDocuments = try #require(try dry.report["caches"] as? [[String: Any]])
        for document in dryDocuments {
            let entries = (document["entries"] as? [[String: Any]]) ?? []
            #expect(entries.map { $0["outcome"] as? String } == ["would-copy", "would-copy", "would-copy"])
            #expect((document["totals"] as? [String: Any])?["wouldCopy"] as? Int == 3)
        }
        #expect(!FileManager.default.fileExists(atPath: s.target), "a dry run writes nothing")

        let run = try s.run([
            "--cache-format", "sdwebimage,glide", "--from-cache", s.source, "--from-format", "kingfisher7",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(s.requests == requests)
        let verify = try s.h.run(["verify", "--cache-format", "sdwebimage,glide", "--cache-dir", s.target, s.list])
        #expect(verify.status == 0, "\(verify.result.stdoutText)")
    }

    @Test func usageErrors() throws {
        let s = try Setup("sdwebimage")
        let cases: [([String], String)] = [
            (["--from-cache", s.source], "--from-cache needs --from-format"),
            (["--from-format", "sdwebimage"], "give --from-cache DIR"),
            (["--from-cache", s.source, "--from-format", "okhttp"], "it cannot be seeded from"),
            (
                ["--from-cache", s.h.temp.path("nothing"), "--from-format", "glide"],
                "there is no glide cache folder at"
            ),
            (
                ["--cache-dir", s.source, "--from-cache", s.source, "--from-format", "sdwebimage"],
                "the folder this run fills"
            ),
        ]
        for (arguments, words) in cases {
            let run = try s.h.run(["prefetch", "--cache-dir", s.target] + arguments + [s.list])
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(words), "\(arguments): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: s.target))
    }
}
