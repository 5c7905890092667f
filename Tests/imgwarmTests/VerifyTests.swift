import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `imgwarm verify` against folders that `imgwarm prefetch` made from a loopback server, then
/// damaged in each way the library's reader cares about (docs/usage.md, "imgwarm verify").
@Suite struct VerifyTests {
    static let formats = ["sdwebimage", "kingfisher", "kingfisher7", "nuke"]
    static let images = ["gradient.png", "photo.jpg", "progressive.jpg", "anim.gif", "sticker.webp", "icon.bmp"]

    /// A folder of `format` filled by prefetch, its list and each image's file.
    final class Seeded {
        let harness: PrefetchHarness
        let format: String
        let folder: String
        let list: String
        let urls: [String]

        init(format: String, images: [String] = VerifyTests.images) throws {
            let harness = try PrefetchHarness()
            self.harness = harness
            self.format = format
            folder = harness.temp.path("caches/\(format)-cache")
            urls = images.map { harness.url("/img/" + $0) }
            list = try harness.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
            let prefetch = try harness.run(
                ["prefetch", "--cache-format", format, "--disk-cache-path", folder, "--quiet", list])
            #expect(prefetch.status == 0, "\(prefetch.stderr)")
        }

        /// The path of the file of `url`'s key, as the format names it.
        func file(_ url: String) throws -> String {
            let format = try #require(CacheFormats.named(self.format) as? any KeyNamedFormat)
            return folder + "/" + format.fileName(forKey: url)
        }

        func file(image: String) throws -> String { try file(harness.url("/img/" + image)) }

        /// `imgwarm verify --cache-format F --disk-cache-path FOLDER` with `arguments` (the list by default).
        func verify(_ arguments: [String]? = nil) throws -> PrefetchHarness.Run {
            try harness.run(["verify", "--cache-format", format, "--disk-cache-path", folder] + (arguments ?? [list]))
        }
    }

    static func schema() throws -> JSONSchema {
        try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/verify-report.schema.json"))
    }

    /// The entry of `url` in a `--json` document.
    static func entry(_ run: PrefetchHarness.Run, url: String) throws -> [String: Any] {
        try #require(try run.entries.first { $0["url"] as? String == url })
    }

    @Test(arguments: formats)
    func prefetchedFolderVerifiesThenEachDamageIsAMiss(format: String) throws {
        let seeded = try Seeded(format: format)
        let clean = try seeded.verify()
        #expect(clean.status == 0, "\(clean.result.stdoutText)\(clean.stderr)")
        #expect(clean.result.stdoutText.contains("6 keys: 6 hit, 0 missing"), "\(clean.result.stdoutText)")

        // Damage five of the six files, each in its own way; the sixth stays a hit. New bytes
        // keep the file's times (a rewrite would make a Kingfisher file expired, another miss).
        let manager = FileManager.default
        try manager.removeItem(atPath: try seeded.file(image: "gradient.png"))
        try VerifyTests.replaceKeepingTimes(try seeded.file(image: "photo.jpg"), with: Data())
        let garbage = Data("<!doctype html><p>not an image</p>".utf8)
        try VerifyTests.replaceKeepingTimes(try seeded.file(image: "progressive.jpg"), with: garbage)
        let gif = try seeded.file(image: "anim.gif")
        let gifBytes = try Data(contentsOf: URL(fileURLWithPath: gif))
        try VerifyTests.replaceKeepingTimes(gif, with: gifBytes.prefix(gifBytes.count / 2))
        let webp = try seeded.file(image: "sticker.webp")
        try manager.removeItem(atPath: webp)
        try manager.createDirectory(atPath: webp, withIntermediateDirectories: false)

        let text = try seeded.verify()
        #expect(text.status == 1)
        let out = text.result.stdoutText
        #expect(out.contains("6 keys: 1 hit, 5 missing"), "\(out)")
        for (image, words) in [
            ("gradient.png", "no file"), ("photo.jpg", "the file is empty"),
            ("progressive.jpg", "the bytes are not an image"), ("anim.gif", "the bytes are not an image"),
            ("sticker.webp", "a folder stands where the file should be"),
        ] {
            let name = (try seeded.file(image: image) as NSString).lastPathComponent
            let line = out.split(separator: "\n").first { $0.contains(name) }
            #expect(line?.contains(seeded.harness.url("/img/" + image)) == true, "\(image): \(out)")
            #expect(line?.contains("miss: \(name): \(words)") == true, "\(image): \(out)")
        }
        #expect(!out.contains((try seeded.file(image: "icon.bmp") as NSString).lastPathComponent))

        let json = try seeded.verify(["--json", seeded.list])
        #expect(json.status == 1)
        #expect(try VerifyTests.schema().validate(try json.report) == [])
        let reasons = try Dictionary(
            uniqueKeysWithValues: VerifyTests.images.map { image in
                (image, try VerifyTests.entry(json, url: seeded.harness.url("/img/" + image))["reason"] as? String)
            })
        #expect(
            reasons == [
                "gradient.png": "absent", "photo.jpg": "empty", "progressive.jpg": "not-an-image",
                "anim.gif": "not-an-image", "sticker.webp": "folder", "icon.bmp": nil,
            ])
        let hit = try VerifyTests.entry(json, url: seeded.harness.url("/img/icon.bmp"))
        #expect(hit["verdict"] as? String == "hit")
        #expect(hit["imageFormat"] as? String == "bmp")
        #expect(try json.report["cacheFormat"] as? String == format)
        #expect(try json.totals["misses"] as? Int == 5)
        #expect(try json.report["allHit"] as? Bool == false)
    }

    /// The issue's done-when: prefetch then verify a Kingfisher cache exits 0; after
    /// `touch -d yesterday` on one file it exits 1 naming it.
    @Test(arguments: ["kingfisher", "kingfisher7"])
    func kingfisherFileTouchedToYesterdayIsExpired(format: String) throws {
        let seeded = try Seeded(format: format, images: ["gradient.png", "photo.jpg"])
        #expect(try seeded.verify().status == 0)
        let file = try seeded.file(image: "photo.jpg")
        let touch = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/touch"), ["-d", "yesterday", file], timeout: 30)
        #expect(touch.status == 0)
        let run = try seeded.verify()
        #expect(run.status == 1)
        let name = (file as NSString).lastPathComponent
        #expect(run.result.stdoutText.contains("miss: \(name): expired"), "\(run.result.stdoutText)")
        #expect(run.result.stdoutText.contains("2 keys: 1 hit, 1 missing (1 expired)"))
    }

    @Test func cacheFolderReplacedByAFileExitsThree() throws {
        let seeded = try Seeded(format: "sdwebimage", images: ["gradient.png"])
        try FileManager.default.removeItem(atPath: seeded.folder)
        try Data("x".utf8).write(to: URL(fileURLWithPath: seeded.folder))
        let run = try seeded.verify()
        #expect(run.status == 3)
        // One error, as every command says it (docs/usage.md); no line per key.
        #expect(run.stderr == "imgwarm: \(seeded.folder) is not a folder\n", "\(run.stderr)")
        #expect(run.result.stdoutText.isEmpty, "\(run.result.stdoutText)")
        let json = try seeded.verify(["--json", seeded.list])
        #expect(json.status == 3)
        let folder = try #require(try json.report["folder"] as? [String: Any])
        #expect(folder["verdict"] as? String == "unusable")
    }

    @Test func missingFolderExitsOneSayingSo() throws {
        let seeded = try Seeded(format: "nuke", images: ["gradient.png"])
        try FileManager.default.removeItem(atPath: seeded.folder)
        let run = try seeded.verify()
        #expect(run.status == 1)
        #expect(run.result.stdoutText.contains("the cache folder does not exist"), "\(run.result.stdoutText)")
        #expect(run.result.stdoutText.contains("1 key: 0 hit, 1 missing (1 absent)"))
        #expect(!FileManager.default.fileExists(atPath: seeded.folder), "verify created the folder")
        let quiet = try seeded.verify(["--quiet", seeded.list])
        #expect(quiet.status == 1)
        #expect(quiet.stderr.contains("the cache folder does not exist"), "\(quiet.stderr)")
    }

    @Test(arguments: formats)
    func withoutListsEveryEntryIsJudgedAndForeignFilesIgnored(format: String) throws {
        let seeded = try Seeded(format: format, images: ["gradient.png", "photo.jpg"])
        try Data().write(to: URL(fileURLWithPath: try seeded.file(image: "photo.jpg")))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: seeded.folder + "/notes.txt"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: seeded.folder + "/.DS_Store"))

        let text = try seeded.verify([])
        #expect(text.status == 1)
        let out = text.result.stdoutText
        #expect(out.contains("2 entries: 1 hit, 1 missing (1 empty), 2 ignored"), "\(out)")
        let emptied = (try seeded.file(image: "photo.jpg") as NSString).lastPathComponent
        #expect(out.contains("\(emptied): miss: \(emptied): the file is empty") == false)
        #expect(out.contains("miss: \(emptied): the file is empty"), "\(out)")
        #expect(out.contains("notes.txt: ignored: not a \(format) entry name"), "\(out)")
        #expect(!out.contains(".DS_Store"), "hidden entries are listed only with --verbose")

        let json = try seeded.verify(["--json"])
        #expect(json.status == 1)
        #expect(try VerifyTests.schema().validate(try json.report) == [])
        #expect(try json.report["source"] as? String == "folder")
        let entries = try json.entries
        #expect(
            Set(entries.compactMap { $0["fileName"] as? String }) == [
                (try seeded.file(image: "gradient.png") as NSString).lastPathComponent, emptied,
            ])
        #expect(entries.allSatisfy { $0["key"] is NSNull && $0["list"] is NSNull })
        let ignored = try #require(try json.report["ignored"] as? [[String: Any]])
        let reasons = Dictionary(
            uniqueKeysWithValues: ignored.map { ($0["name"] as? String ?? "", $0["reason"] as? String ?? "") })
        #expect(reasons == ["notes.txt": "not-an-entry-name", ".DS_Store": "hidden"])
    }

    /// The JSON document: the schema, and the fields of keys, invalid lines and duplicates.
    @Test func jsonReportFollowsTheSchema() throws {
        let seeded = try Seeded(format: "sdwebimage", images: ["gradient.png"])
        let url = seeded.harness.url("/img/gradient.png")
        let lines = [
            #"{"url": "\#(url)?token=1"}"#, #"{"url": "\#(url)?token=2"}"#, #"{"url": "\#(url)", "key": "by-hand"}"#,
            #"{"link": "nowhere"}"#,
        ]
        let list = try seeded.harness.temp.write("feed.jsonl", Data((lines.joined(separator: "\n") + "\n").utf8))
        let run = try seeded.verify(["--key-filter", "strip-query", "--json", list])
        #expect(run.status == 1)
        let report = try run.report
        #expect(try VerifyTests.schema().validate(report) == [])
        #expect(report["command"] as? String == "verify")
        #expect(report["cacheFolder"] as? String == seeded.folder)
        #expect(report["inputs"] as? [String] == [list])
        let entries = try run.entries
        #expect(entries.count == 2)
        let first = try #require(entries.first)
        #expect(first["list"] as? String == list)
        #expect(first["line"] as? Int == 1)
        #expect(first["url"] as? String == url + "?token=1")
        #expect(first["key"] as? String == url)
        #expect(first["fileName"] as? String == SDFileName.forKey(url))
        #expect(first["verdict"] as? String == "hit")
        #expect(first["imageFormat"] as? String == "png")
        #expect((first["bytes"] as? Int ?? 0) > 0)
        let second = try #require(entries.last)
        #expect(second["key"] as? String == "by-hand")
        #expect(second["reason"] as? String == "absent")
        let invalid = try #require(report["invalid"] as? [[String: Any]])
        #expect(invalid.count == 1)
        #expect(invalid.first?["line"] as? Int == 4)
        let totals = try run.totals
        #expect(totals["keys"] as? Int == 2)
        #expect(totals["hits"] as? Int == 1)
        #expect(totals["duplicates"] as? Int == 1)
        #expect(totals["invalid"] as? Int == 1)
        #expect(totals["missesByReason"] as? [String: Int] == ["absent": 1])

        // --report FILE writes the same document beside the text.
        let path = seeded.harness.temp.path("verify.json")
        let text = try seeded.verify(["--key-filter", "strip-query", "--report", path, list])
        #expect(text.status == 1)
        #expect(text.result.stdoutText.contains("2 keys: 1 hit, 1 missing"))
        let written = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(try VerifyTests.schema().validate(written) == [])
    }

    /// verify reads only: no file's access or modification time moves, and nothing is created.
    @Test(arguments: formats)
    func verifyChangesNoTimes(format: String) throws {
        let seeded = try Seeded(format: format, images: ["gradient.png", "photo.jpg", "icon.bmp"])
        var before: [String: (Int, Int)] = [:]
        for image in ["gradient.png", "photo.jpg", "icon.bmp"] {
            // An access time long past (what the reads would move), the modification time kept
            // (Kingfisher's expiry date).
            let file = try seeded.file(image: image)
            var info = stat()
            #expect(lstat(file, &info) == 0)
            var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), info.st_mtim]
            #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
            before[file] = try VerifyTests.times(file)
        }
        let parent = (seeded.folder as NSString).deletingLastPathComponent
        let listing = try FileManager.default.subpathsOfDirectory(atPath: parent)
        #expect(try seeded.verify().status == 0)
        #expect(try seeded.verify(["--json", "--verbose", seeded.list]).status == 0)
        #expect(try seeded.verify([]).status == 0)
        for (file, times) in before {
            let after = try VerifyTests.times(file)
            #expect(after.0 == times.0 && after.1 == times.1, "\(file)")
        }
        #expect(try FileManager.default.subpathsOfDirectory(atPath: parent) == listing)
    }

    /// Writes `data` over the file at `path`, then puts its access and modification times back.
    static func replaceKeepingTimes(_ path: String, with data: Data) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        try data.write(to: URL(fileURLWithPath: path))
        var times = [info.st_atim, info.st_mtim]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// The access and modification times of `path`, in nanoseconds.
    static func times(_ path: String) throws -> (Int, Int) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return (
            info.st_atim.tv_sec * 1_000_000_000 + info.st_atim.tv_nsec,
            info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
        )
    }

    /// No `--cache-format` is SDWebImage's, in the default folder under the caches root.
    @Test func defaultFormatIsSDWebImage() throws {
        let harness = try PrefetchHarness()
        let url = harness.url("/img/gradient.png")
        let list = try harness.temp.write("list.txt", Data((url + "\n").utf8))
        let root = harness.temp.path("caches")
        #expect(try harness.run(["prefetch", "--cache-dir", root, "--quiet", list]).status == 0)
        let run = try harness.run(["verify", "--cache-dir", root, "--json", list])
        #expect(run.status == 0)
        #expect(try run.report["cacheFormat"] as? String == "sdwebimage")
        #expect(try run.report["cacheFolder"] as? String == root + "/com.hackemist.SDImageCache/default")
        #expect(try run.report["allHit"] as? Bool == true)
        let kingfisher = try harness.run(["verify", "--cache-dir", root, "--cache-format", "kingfisher", list])
        #expect(kingfisher.status == 1, "another format's folder does not exist")
    }

    /// Several formats (`SeveralDocuments`): one document holding each format's, in the order
    /// given, each as a verify of that format alone writes it; the exit status is the worst.
    @Test func severalFormatsWriteOneDocumentOfEachFormats() throws {
        let harness = try PrefetchHarness()
        let list = try harness.temp.write("list.txt", Data((harness.url("/img/gradient.png") + "\n").utf8))
        let root = harness.temp.path("caches")
        #expect(try harness.run(["prefetch", "--cache-dir", root, "--quiet", list]).status == 0)
        let several = try harness.run([
            "verify", "--cache-dir", root, "--cache-format", "kingfisher,sdwebimage", "--json", list,
        ])
        #expect(several.status == 1, "kingfisher's folder does not exist")
        #expect(try Set(several.report.keys) == ["schemaVersion", "tool", "command", "caches"])
        #expect(try several.report["command"] as? String == "verify")
        let caches = try #require(try several.report["caches"] as? [[String: Any]])
        #expect(caches.map { $0["cacheFormat"] as? String } == ["kingfisher", "sdwebimage"])
        #expect(caches.map { $0["allHit"] as? Bool } == [false, true])
        let alone = try harness.run(["verify", "--cache-dir", root, "--json", list])
        let one = try #require(try JSONSerialization.jsonObject(with: alone.result.stdout) as? NSDictionary)
        var last = caches[1]
        last["checkedAt"] = one["checkedAt"]
        #expect(NSDictionary(dictionary: last) == one)
        #expect(several.result.stdout.last == UInt8(ascii: "\n") && alone.result.stdout.last == UInt8(ascii: "\n"))
    }

    @Test func helpTellsTheCaveatsAndExitCodes() throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run(["verify", "--help"], home: temp.path)
        #expect(help.status == 0)
        let text = help.stdoutText.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(
            of: "  +", with: " ", options: .regularExpression)
        #expect(text.contains("Kingfisher lists its folder once, when the app starts"), "\(text)")
        // imgwarm runs on Linux: the help checks a container brought back, never runs on the Mac.
        #expect(text.contains("a container brought back to Linux (imgwarm pull"), "\(text)")
        #expect(!text.contains("on the Mac that runs"))
        #expect(text.contains("Exit codes"))
        #expect(text.contains("3 the library cannot use the folder"))
        #expect(text.contains("--cache-format"))
        #expect(text.contains("--key-filter"))
        #expect(text.contains("--json"))
    }

    @Test func usageErrorsExitTwo() throws {
        let seeded = try Seeded(format: "sdwebimage", images: ["gradient.png"])
        #expect(try seeded.verify(["--json", "--report", "-", seeded.list]).status == 2)
        #expect(try seeded.verify(["--quiet", "--verbose", seeded.list]).status == 2)
        let missing = try seeded.verify([seeded.harness.temp.path("no-such-list.txt")])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("cannot read"), "\(missing.stderr)")
        #expect(try seeded.verify(["--cache-format", "volley", seeded.list]).status == 2)
    }

    /// Nothing to check is said, under --quiet too; it is not a miss.
    @Test func nothingToCheckWarns() throws {
        let seeded = try Seeded(format: "kingfisher", images: ["gradient.png"])
        try FileManager.default.removeItem(atPath: try seeded.file(image: "gradient.png"))
        let empty = try seeded.verify(["--quiet"])
        #expect(empty.status == 0)
        #expect(empty.stderr.contains("holds no kingfisher entry"), "\(empty.stderr)")
        let comments = try seeded.harness.temp.write("comments.txt", Data("# nothing\n".utf8))
        let none = try seeded.verify(["--quiet", comments])
        #expect(none.status == 0)
        #expect(none.stderr.contains("the lists hold no URL"), "\(none.stderr)")
    }
}
