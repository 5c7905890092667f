import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `--cache-format` with several formats (docs/usage.md, "Several formats"): `verify` and `stats`
/// print, for each format in the given order, what a one-format run prints, and exit with the
/// worst; their JSON is one document of the one-format documents; the commands that work on one
/// cache refuse several.
@Suite struct SeveralFormatsTests {
    /// A caches root with the list prefetched into `formats`, one run each.
    static func seeded(_ formats: [String], urls: Int = 3) throws -> (h: PrefetchHarness, root: String, list: String) {
        let h = try PrefetchHarness()
        let images = ["photo.jpg", "gradient.png", "anim.gif", "sticker.webp"]
        let lines = (0..<urls).map { h.url("/img/\(images[$0 % images.count])?n=\($0)") }
        let list = try h.temp.write("list.txt", Data((lines.joined(separator: "\n") + "\n").utf8))
        let root = h.temp.path("caches")
        for format in formats {
            let run = try h.run(["prefetch", "--quiet", "--cache-format", format, "--cache-dir", root, list])
            #expect(run.status == 0, "\(format): \(run.stderr)")
        }
        return (h, root, list)
    }

    static func object(_ run: PrefetchHarness.Run) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: run.result.stdout) as? [String: Any])
    }

    /// The document as sorted-key JSON text, for comparing two documents.
    static func canonical(_ document: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]), as: UTF8.self)
    }

    static func schema(_ name: String) throws -> JSONSchema {
        try JSONSchema(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/" + name))
    }

    /// Each format's lines and summary, in the given order, are the one-format run's; every key
    /// hits, so 0; and a format whose folder is missing makes it 1.
    @Test func verifyPrintsEachFormatAsItsOwnRun() throws {
        let (h, root, list) = try Self.seeded(["sdwebimage", "glide", "flutter"])
        let singles = try ["glide", "sdwebimage", "flutter"].map { format in
            try h.run(["verify", "--verbose", "--cache-format", format, "--cache-dir", root, list])
        }
        #expect(singles.allSatisfy { $0.status == 0 })
        let several = try h.run([
            "verify", "--verbose", "--cache-format", "glide,sdwebimage", "--cache-format", "flutter,glide",
            "--cache-dir", root, list,
        ])
        #expect(several.status == 0, "\(several.stderr)")
        // Each key's line names its format; the rest is the one-format run's text.
        let tagged = zip(["glide", "sdwebimage", "flutter"], singles).map { format, run in
            run.result.stdoutText.replacingOccurrences(of: ": hit: ", with: ": hit in \(format): ")
        }
        #expect(several.result.stdoutText == tagged.joined())
        #expect(several.result.stdoutText.components(separatedBy: ": hit in glide: ").count == 4)
        #expect(several.result.stdoutText.components(separatedBy: "3 keys: 3 hit, 0 missing").count == 4)

        // kingfisher was never seeded: its folder is absent, every key misses (exit 1, the worst).
        let withAbsent = try h.run(["verify", "--cache-format", "sdwebimage,kingfisher", "--cache-dir", root, list])
        #expect(withAbsent.status == 1)
        #expect(withAbsent.result.stdoutText.contains("3 keys: 3 hit, 0 missing; SDWebImage"))
        #expect(withAbsent.result.stdoutText.contains("3 keys: 0 hit, 3 missing (3 absent)"))
        #expect(withAbsent.result.stdoutText.components(separatedBy: ": miss in kingfisher: ").count == 4)
        #expect(!withAbsent.result.stdoutText.contains(": miss: "))

        // A file where nuke's folder should be: the library cannot use it (3), worse than 1, in
        // any order of the formats.
        try h.temp.write("caches/com.github.kean.Nuke.DataCache", Data("not a folder".utf8))
        for formats in ["kingfisher,nuke,sdwebimage", "nuke,kingfisher"] {
            let unusable = try h.run(["verify", "--cache-format", formats, "--cache-dir", root, list])
            #expect(unusable.status == 3, "\(formats): \(unusable.stderr)")
        }
    }

    /// `--json` with several: one document whose `caches` are the one-format documents.
    @Test func verifyJSONHoldsEachFormatsDocument() throws {
        let (h, root, list) = try Self.seeded(["sdwebimage", "glide"])
        let run = try h.run(["verify", "--json", "--cache-format", "sdwebimage,glide", "--cache-dir", root, list])
        #expect(run.status == 0, "\(run.stderr)")
        let document = try Self.object(run)
        #expect(try Self.schema("several-caches.schema.json").validate(document) == [])
        #expect(document["command"] as? String == "verify")
        let caches = try #require(document["caches"] as? [[String: Any]])
        #expect(caches.map { $0["cacheFormat"] as? String } == ["sdwebimage", "glide"])
        let single = try Self.schema("verify-report.schema.json")
        for (cache, format) in zip(caches, ["sdwebimage", "glide"]) {
            #expect(single.validate(cache) == [], "\(format)")
            var alone = try Self.object(
                try h.run(["verify", "--json", "--cache-format", format, "--cache-dir", root, list]))
            var cache = cache
            alone["checkedAt"] = nil
            cache["checkedAt"] = nil
            #expect(try Self.canonical(cache) == Self.canonical(alone), "\(format)")
        }
        // --report FILE writes the same document, and the text goes on.
        let report = h.temp.path("verify.json")
        let toFile = try h.run([
            "verify", "--report", report, "--cache-format", "sdwebimage,glide", "--cache-dir", root, list,
        ])
        #expect(toFile.status == 0)
        let written = try #require(
            try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
        )
        #expect((written["caches"] as? [Any])?.count == 2)
        #expect(toFile.result.stdoutText.components(separatedBy: "3 keys: 3 hit").count == 3)
    }

    /// stats: a block a format, each the one-format run's; `--json`: one document of the documents.
    @Test func statsPrintsEachFormatAsItsOwnRun() throws {
        let (h, root, _) = try Self.seeded(["sdwebimage", "glide"])
        let singles = try ["sdwebimage", "glide"].map { format in
            try h.run(["stats", "--cache-format", format, "--cache-dir", root])
        }
        let several = try h.run(["stats", "--cache-format", "sdwebimage,glide", "--cache-dir", root])
        #expect(several.status == 0, "\(several.stderr)")
        #expect(several.result.stdoutText == singles.map(\.result.stdoutText).joined(separator: "\n"))

        let json = try h.run([
            "stats", "--json", "--cache-format", "sdwebimage", "--cache-format", "glide", "--cache-dir", root,
        ])
        let document = try Self.object(json)
        #expect(try Self.schema("several-caches.schema.json").validate(document) == [])
        let caches = try #require(document["caches"] as? [[String: Any]])
        let single = try Self.schema("stats.schema.json")
        for (cache, format) in zip(caches, ["sdwebimage", "glide"]) {
            #expect(single.validate(cache) == [], "\(format)")
            let alone = try Self.object(try h.run(["stats", "--json", "--cache-format", format, "--cache-dir", root]))
            #expect(try Self.canonical(cache) == Self.canonical(alone), "\(format)")
        }
        #expect(caches.count == 2)
    }

    /// The usage errors of several formats: each names what to do, and nothing is read.
    @Test(arguments: [
        (["verify", "--cache-format", "sdwebimage,glide", "-"], "standard input (-) can be read once"),
        (
            ["verify", "--cache-format", "glide,sdwebimage", "--disk-cache-path", "/tmp/x", "l"],
            "names one format's folder"
        ),
        (["stats", "--cache-format", "glide,coil", "--namespace", "a"], "--namespace does not apply to glide, coil"),
        (["stats", "--cache-format", "coil2,fresco"], "coil2 and fresco keep their caches in one folder"),
        (
            ["stats", "--cache-format", "kingfisher,kingfisher7"],
            "kingfisher and kingfisher7 keep their caches in one folder"
        ),
        (["stats", "--cache-format", "glide,sdwebimage", "--state", "/tmp/s.sqlite"], "--state names one database"),
        (
            ["stats", "--cache-format", "glide,nuke", "--database", "/tmp/d.db"],
            "--database does not apply to glide, nuke"
        ),
        (["stats", "--cache-format", "glide,"], "has an empty name"),
        (["stats", "--cache-format", "glide,gilde"], "unknown cache format 'gilde'"),
    ])
    func severalFormatsUsageErrors(arguments: [String], words: String) throws {
        let h = try PrefetchHarness()
        let run = try h.run(arguments + (arguments.contains("--cache-dir") ? [] : ["--cache-dir", h.temp.path("c")]))
        #expect(run.status == 2)
        #expect(run.stderr.contains(words), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.temp.path("c")))
    }

    /// `--namespace` and `--database` go to the formats that take them, the others keep theirs.
    @Test func namespaceAndDatabaseGoToTheFormatsThatTakeThem() throws {
        let h = try PrefetchHarness()
        let root = h.temp.path("c")
        let run = try h.run([
            "stats", "--json", "--cache-format", "sdwebimage,glide,flutter", "--namespace", "avatars",
            "--database", h.temp.path("app/libCachedImageData.db"), "--cache-dir", root,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let caches = try #require(try Self.object(run)["caches"] as? [[String: Any]])
        #expect(
            caches.map { $0["cacheFolder"] as? String } == [
                root + "/com.hackemist.SDImageCache/avatars", root + "/image_manager_disk_cache",
                root + "/libCachedImageData",
            ])
    }

    /// The commands that work on one cache refuse several formats, saying which take several.
    @Test(arguments: [
        ["path", "https://a.com/x.jpg"], ["keys", "detect", "list.txt"], ["merge", "m1"],
        ["blacklist", "list"], ["push", "--package", "com.example.app"],
    ])
    func oneCacheCommandsRefuseSeveral(arguments: [String]) throws {
        let h = try PrefetchHarness()
        let command = arguments.prefix { !$0.hasPrefix("-") && !$0.contains(".") && $0 != "m1" }
        let rest = Array(arguments.dropFirst(command.count))
        let run = try h.run(
            Array(command) + ["--cache-format", "glide,okhttp", "--cache-dir", h.temp.path("c")] + rest)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(
            run.stderr.contains("--cache-format gives glide, okhttp: this command works on one cache"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.temp.path("c")))
    }
}
