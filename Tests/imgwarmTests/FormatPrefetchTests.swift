import Foundation
import ImgwarmKit
import SQLite
import TestSupport
import Testing

/// How each library's reader would take what imgwarm leaves in its folder, written from the
/// libraries' source and docs/cache-formats.md and sharing no code with the writer:
///
/// * Kingfisher 8.11.0 `DiskStorage.Backend.value(forKey:)`: the file at the key's name is read
///   unless `FileMeta.expired`, i.e. unless its modification time (the estimated expiration
///   date) is at or before now. Kingfisher ≤ 7 is the same with MD5 names.
/// * Nuke 13.2.0 `DataCache.cachedData(for:)`: the file at the key's SHA-1 name is read if it
///   exists; the read sets its access date.
///
/// The names come from `/usr/bin/openssl dgst`, not from `Digest` or `MD5`: openssl is a
/// dependency the tests already use (TLSTests), it is another program than the one under test
/// (its own hex output, its own reading of the key's bytes), and its digests are the FIPS ones
/// (`DigestTests` checks ours against the published vectors).
enum ReaderModel {
    enum Read: Equatable {
        case hit
        case expired
        case missing
    }

    /// The lower-case hex `openssl dgst -<algorithm>` prints for the key's UTF-8 bytes.
    static func digest(_ key: String, _ algorithm: String) throws -> String {
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/openssl"), ["dgst", "-" + algorithm, "-r"], stdin: Data(key.utf8))
        let hex = String(result.stdoutText.prefix { $0 != " " })
        guard result.status == 0, !hex.isEmpty else { throw CocoaError(.fileReadUnknown) }
        return hex
    }

    /// The entry name of `key` for a hashed format.
    static func name(_ key: String, format: String) throws -> String {
        switch format {
        case "kingfisher": return try digest(key, "sha256")
        case "kingfisher7": return try digest(key, "md5")
        case "nuke": return try digest(key, "sha1")
        default: throw CocoaError(.featureUnsupported)
        }
    }

    struct Times {
        var access: Double
        var modification: Double
        /// True when the modification time is a whole second (Kingfisher rounds it up).
        var wholeModification: Bool
    }

    static func times(_ path: String) -> Times? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let access = Double(info.st_atim.tv_sec) + Double(info.st_atim.tv_nsec) / 1e9
        let modification = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        return Times(access: access, modification: modification, wholeModification: info.st_mtim.tv_nsec == 0)
    }

    static func kingfisher(folder: String, key: String, format: String = "kingfisher", now: Double) throws -> Read {
        guard let times = times(folder + "/" + (try name(key, format: format))) else { return .missing }
        return times.modification > now ? .hit : .expired
    }

    static func nuke(folder: String, key: String) throws -> Read {
        FileManager.default.fileExists(atPath: folder + "/" + (try name(key, format: "nuke"))) ? .hit : .missing
    }
}

/// Prefetch, clean, stats and path for each cache format, with the real binary and the loopback
/// server (docs/cache-formats.md).
@Suite struct FormatPrefetchTests {
    static let week = 7.0 * 86400
    static let kingfisherFolder = "com.onevcat.Kingfisher.ImageCache.default"
    static let nukeFolder = "com.github.kean.Nuke.DataCache"

    /// A caches root in the harness's temporary folder.
    struct Root {
        let h: PrefetchHarness
        var path: String { h.temp.path("caches") }

        func folder(_ name: String) -> String { path + "/" + name }

        func prefetch(_ keys: [String], _ options: [String], list: String = "list.txt") throws -> PrefetchHarness.Run {
            let file = try h.temp.write(list, Data((keys.joined(separator: "\n") + "\n").utf8))
            return try h.run(["prefetch", "--cache-dir", path, "--report", "-"] + options + [file])
        }

        func run(_ arguments: [String]) throws -> PrefetchHarness.Run {
            try h.run(arguments + ["--cache-dir", path])
        }
    }

    static func setTimes(_ path: String, access: Double, modification: Double) throws {
        func spec(_ time: Double) -> timespec {
            let seconds = time.rounded(.down)
            return timespec(tv_sec: Int(seconds), tv_nsec: Int((time - seconds) * 1e9))
        }
        var times = [spec(access), spec(modification)]
        guard utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0 else { throw POSIXError(.EIO) }
    }

    static func schema(_ name: String) throws -> JSONSchema {
        try JSONSchema(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/\(name).schema.json"))
    }

    func keys(_ h: PrefetchHarness) -> [String] {
        [h.url("/img/photo.jpg"), h.url("/img/gradient.png?w=300&h=200"), h.url("/img/anim.gif")]
    }

    func body(_ h: PrefetchHarness, _ key: String) -> [UInt8]? {
        let file = URL(string: key)!.lastPathComponent
        return h.routes.valid[file]
    }

    @Test(arguments: ["kingfisher", "kingfisher7"]) func kingfisherStoresModelHitsExpiringInAWeek(format: String)
        throws
    {
        let h = try PrefetchHarness()
        let root = Root(h: h)
        let keys = keys(h)
        let before = Date().timeIntervalSince1970
        let run = try root.prefetch(keys, ["--cache-format", format])
        let after = Date().timeIntervalSince1970
        #expect(run.status == 0, "\(run.stderr)")
        let folder = root.folder(FormatPrefetchTests.kingfisherFolder)
        let names = try keys.map { try ReaderModel.name($0, format: format) }
        #expect(Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []) == Set(names))
        let report = try run.report
        #expect(report["cacheFormat"] as? String == format)
        #expect((report["options"] as? [String: Any])?["expiresInSeconds"] as? Int == 604800)
        #expect(try FormatPrefetchTests.schema("prefetch-report").validate(report) == [])
        let now = Date().timeIntervalSince1970
        for (index, key) in keys.enumerated() {
            #expect(try ReaderModel.kingfisher(folder: folder, key: key, format: format, now: now) == .hit)
            let entry = try run.entry(line: index + 1)
            #expect(entry["fileName"] as? String == names[index] && entry["outcome"] as? String == "downloaded")
            let stored = FileManager.default.contents(atPath: folder + "/" + names[index]).map([UInt8].init)
            #expect(stored != nil && stored == body(h, key), "the bytes as served")
            let times = try #require(ReaderModel.times(folder + "/" + names[index]))
            #expect(times.wholeModification, "rounded up to a whole second")
            #expect(times.modification >= (before + FormatPrefetchTests.week).rounded(.up))
            #expect(times.modification <= (after + FormatPrefetchTests.week).rounded(.up))
        }
        // The state database of the folder, beside it in the caches root, names the same files.
        let state = root.path + "/.imgwarm/" + FormatPrefetchTests.kingfisherFolder + "/state.sqlite"
        let rows = try SQLiteDatabase(path: state, readOnly: true, create: false).prepare(
            "SELECT file_name FROM entries")
        var stateNames: Set<String> = []
        while try rows.step() { stateNames.insert(rows.text(0) ?? "") }
        #expect(stateNames == Set(names))
    }

    @Test func expiresInIsTheStampedDuration() throws {
        let h = try PrefetchHarness()
        let root = Root(h: h)
        let key = h.url("/img/photo.jpg")
        let before = Date().timeIntervalSince1970
        let run = try root.prefetch([key], ["--cache-format", "kingfisher", "--expires-in", "1h"])
        let after = Date().timeIntervalSince1970
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try (run.report["options"] as? [String: Any])?["expiresInSeconds"] as? Int == 3600)
        let path =
            root.folder(FormatPrefetchTests.kingfisherFolder) + "/" + (try ReaderModel.name(key, format: "kingfisher"))
        let times = try #require(ReaderModel.times(path))
        #expect(times.modification >= (before + 3600).rounded(.up) && times.modification <= (after + 3600).rounded(.up))

        for format in ["sdwebimage", "nuke"] {
            let refused = try root.prefetch([key], ["--cache-format", format, "--expires-in", "1h"])
            #expect(refused.status == 2, "\(format): \(refused.stderr)")
            #expect(refused.stderr.contains("--expires-in"))
        }
    }

    @Test func aSecondPrefetchRestampsHitsAndFetchesExpiredOnesAgain() throws {
        let h = try PrefetchHarness()
        let root = Root(h: h)
        let fresh = h.url("/img/photo.jpg")
        let stale = h.url("/img/gradient.png")
        #expect(try root.prefetch([fresh, stale], ["--cache-format", "kingfisher"]).status == 0)
        let folder = root.folder(FormatPrefetchTests.kingfisherFolder)
        let freshPath = folder + "/" + (try ReaderModel.name(fresh, format: "kingfisher"))
        let stalePath = folder + "/" + (try ReaderModel.name(stale, format: "kingfisher"))
        let now = Date().timeIntervalSince1970.rounded(.down)
        // A hit about to expire, and an entry that expired yesterday.
        try FormatPrefetchTests.setTimes(freshPath, access: now, modification: now + 60)
        try FormatPrefetchTests.setTimes(stalePath, access: now, modification: now - 86400)
        #expect(try ReaderModel.kingfisher(folder: folder, key: stale, now: now) == .expired)
        #expect(h.server.requestCount("/img/gradient.png") == 1 && h.server.requestCount("/img/photo.jpg") == 1)

        let before = Date().timeIntervalSince1970
        let again = try root.prefetch([fresh, stale], ["--cache-format", "kingfisher"])
        let after = Date().timeIntervalSince1970
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try again.entry(line: 1)["outcome"] as? String == "cached")
        #expect(try again.entry(line: 2)["outcome"] as? String == "downloaded")
        #expect(h.server.requestCount("/img/photo.jpg") == 1, "a hit is not fetched")
        #expect(h.server.requestCount("/img/gradient.png") == 2, "an expired entry is fetched again")
        for path in [freshPath, stalePath] {
            let times = try #require(ReaderModel.times(path))
            #expect(times.modification >= (before + FormatPrefetchTests.week).rounded(.up), "\(path)")
            #expect(times.modification <= (after + FormatPrefetchTests.week).rounded(.up), "\(path)")
        }
        let later = Date().timeIntervalSince1970
        #expect(try ReaderModel.kingfisher(folder: folder, key: stale, now: later) == .hit)
        #expect(try ReaderModel.kingfisher(folder: folder, key: fresh, now: later) == .hit)
    }

    @Test func nukeStoresModelHitsAndAHitSetsTheAccessDate() throws {
        let h = try PrefetchHarness()
        let root = Root(h: h)
        let keys = keys(h)
        let run = try root.prefetch(keys, ["--cache-format", "nuke"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.report["cacheFormat"] as? String == "nuke")
        #expect(try (run.report["options"] as? [String: Any])?["expiresInSeconds"] is NSNull)
        #expect(try FormatPrefetchTests.schema("prefetch-report").validate(run.report) == [])
        let folder = root.folder(FormatPrefetchTests.nukeFolder)
        let names = try keys.map { try ReaderModel.name($0, format: "nuke") }
        #expect(Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []) == Set(names))
        for (index, key) in keys.enumerated() {
            #expect(try ReaderModel.nuke(folder: folder, key: key) == .hit)
            #expect(try run.entry(line: index + 1)["fileName"] as? String == names[index])
            #expect(FileManager.default.contents(atPath: folder + "/" + names[index]).map([UInt8].init) == body(h, key))
        }

        let path = folder + "/" + names[0]
        let yesterday = Date().timeIntervalSince1970.rounded(.down) - 86400
        try FormatPrefetchTests.setTimes(path, access: yesterday, modification: yesterday - 60)
        let before = Date().timeIntervalSince1970.rounded(.down)
        let again = try root.prefetch([keys[0]], ["--cache-format", "nuke"])
        #expect(again.status == 0)
        #expect(try again.entry(line: 1)["outcome"] as? String == "cached")
        let times = try #require(ReaderModel.times(path))
        #expect(times.access >= before, "the hit set the access date")
        #expect(times.modification == yesterday - 60, "and nothing else")
        #expect(h.server.requestCount("/img/photo.jpg") == 1)
    }

    /// Nuke sweeps by itself at launch: a run that leaves the folder above its limit says so (the
    /// default 150 MiB is far above these few images); formats whose library never trims on its own
    /// refuse prefetch's --max-size.
    @Test func aNukeCacheAboveItsLimitIsReported() throws {
        let h = try PrefetchHarness()
        let root = Root(h: h)
        let warned = try root.prefetch(keys(h), ["--cache-format", "nuke", "--max-size", "1K"])
        #expect(warned.status == 0, "\(warned.stderr)")
        #expect(warned.stderr.contains("above Nuke 12/13 DataCache's limit of 1.00 KiB"), "\(warned.stderr)")
        #expect(warned.stderr.contains("will remove its least recently used entries on its own"))
        let quiet = try root.prefetch([h.url("/img/sticker.webp")], ["--cache-format", "nuke"])
        #expect(quiet.status == 0)
        #expect(!quiet.stderr.contains("least recently used"), "\(quiet.stderr)")
        for format in ["sdwebimage", "kingfisher"] {
            let refused = try root.prefetch(keys(h), ["--cache-format", format, "--max-size", "1K"])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("--max-size on prefetch applies to"), "\(refused.stderr)")
        }
    }

    @Test func theDefaultIsSDWebImageByteForByte() throws {
        let h = try PrefetchHarness()
        let keys = keys(h)
        let plain = try h.temp.write("list.txt", Data((keys.joined(separator: "\n") + "\n").utf8))
        let rootA = h.temp.path("a")
        let rootB = h.temp.path("b")
        let a = try h.run(["prefetch", "--cache-dir", rootA, "--report", "-", plain])
        let b = try h.run(["prefetch", "--cache-format", "sdwebimage", "--cache-dir", rootB, "--report", "-", plain])
        #expect(a.status == 0 && b.status == 0)
        #expect(try a.report["cacheFormat"] as? String == "sdwebimage")
        let folderA = rootA + "/com.hackemist.SDImageCache/default"
        let folderB = rootB + "/com.hackemist.SDImageCache/default"
        let extensions = [".jpg", ".png", ".gif"]
        var expected: Set<String> = []
        for (key, ext) in zip(keys, extensions) { expected.insert(try ReaderModel.digest(key, "md5") + ext) }
        for folder in [folderA, folderB] {
            #expect(Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []) == expected)
        }
        for name in expected {
            let bytesA = FileManager.default.contents(atPath: folderA + "/" + name)
            #expect(bytesA != nil && bytesA == FileManager.default.contents(atPath: folderB + "/" + name))
        }
        let rootEntries = Set((try? FileManager.default.contentsOfDirectory(atPath: rootA)) ?? [])
        #expect(rootEntries == ["com.hackemist.SDImageCache"], "nothing of another format's")
    }

    @Test func pathPrintsEachFormatsFile() throws {
        let h = try PrefetchHarness()
        let root = Root(h: h)
        let key = "https://example.com/image.png"
        let cases = [
            ("kingfisher", FormatPrefetchTests.kingfisherFolder), ("kingfisher7", FormatPrefetchTests.kingfisherFolder),
            ("nuke", FormatPrefetchTests.nukeFolder),
        ]
        for (format, folder) in cases {
            let run = try root.run(["path", "--cache-format", format, key])
            #expect(run.status == 0, "\(run.stderr)")
            let expected = root.folder(folder) + "/" + (try ReaderModel.name(key, format: format)) + "\n"
            #expect(run.result.stdoutText == expected, "\(format)")
        }
        let namespaced = try root.run([
            "path", "--cache-format", "kingfisher", "--namespace", "avatars", "--name-only", key,
        ])
        #expect(namespaced.result.stdoutText == (try ReaderModel.name(key, format: "kingfisher")) + "\n")
        let namespacedFolder = try root.run(["path", "--cache-format", "kingfisher", "--namespace", "avatars", key])
        #expect(namespacedFolder.result.stdoutText.hasPrefix(root.folder("com.onevcat.Kingfisher.ImageCache.avatars/")))
        let refused = try root.run(["path", "--cache-format", "nuke", "--namespace", "avatars", key])
        #expect(refused.status == 2 && refused.stderr.contains("--namespace"), "\(refused.stderr)")
    }

    @Test func kingfisherCleanRemovesTheExpiredFileAndItsStateRow() throws {
        let h = try PrefetchHarness()
        let root = Root(h: h)
        let keys = keys(h)
        #expect(try root.prefetch(keys, ["--cache-format", "kingfisher"]).status == 0)
        let folder = root.folder(FormatPrefetchTests.kingfisherFolder)
        let names = try keys.map { try ReaderModel.name($0, format: "kingfisher") }
        let now = Date().timeIntervalSince1970.rounded(.down)
        try FormatPrefetchTests.setTimes(folder + "/" + names[1], access: now, modification: now - 86400)
        let expired = try keys.filter { try ReaderModel.kingfisher(folder: folder, key: $0, now: now) == .expired }
        #expect(expired == [keys[1]])

        let clean = try root.run(["clean", "--cache-format", "kingfisher", "--report", "-"])
        #expect(clean.status == 0, "\(clean.stderr)")
        let report = try clean.report
        #expect(try FormatPrefetchTests.schema("clean-report").validate(report) == [])
        #expect(report["cacheFormat"] as? String == "kingfisher")
        let removed = report["removed"] as? [[String: Any]] ?? []
        #expect(removed.map { $0["name"] as? String } == [names[1]])
        #expect(removed.first?["reason"] as? String == "expired")
        let options = report["options"] as? [String: Any] ?? [:]
        #expect(options["expireType"] as? String == "creation" && options["maxAgeSeconds"] is NSNull)
        #expect(Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []) == [names[0], names[2]])

        let state = root.path + "/.imgwarm/" + FormatPrefetchTests.kingfisherFolder + "/state.sqlite"
        let rows = try SQLiteDatabase(path: state, readOnly: true, create: false).prepare(
            "SELECT file_name FROM entries")
        var stateNames: Set<String> = []
        while try rows.step() { stateNames.insert(rows.text(0) ?? "") }
        #expect(stateNames == [names[0], names[2]], "the removed file's row went with it")
    }

    @Test func cleanGuardAndOptionsPerFormat() throws {
        let h = try PrefetchHarness()
        let root = Root(h: h)
        #expect(try root.prefetch([h.url("/img/photo.jpg")], ["--cache-format", "kingfisher"]).status == 0)
        let folder = root.folder(FormatPrefetchTests.kingfisherFolder)
        let dry = try root.run(["clean", "--cache-format", "kingfisher", "--dry-run"])
        #expect(dry.status == 0, "a folder of 64-hex names is cleanable: \(dry.stderr)")

        let sdName = (try ReaderModel.digest("https://example.com/a.jpg", "md5")) + ".jpg"
        try Data([0xFF, 0xD8]).write(to: URL(fileURLWithPath: folder + "/" + sdName))
        for extra in [["--dry-run"], []] {
            let refused = try root.run(["clean", "--cache-format", "kingfisher"] + extra)
            #expect(refused.status == 2, "\(refused.stderr)")
            #expect(refused.stderr.contains(sdName) && refused.stderr.contains("64 hex digits, no extension"))
        }
        #expect(FileManager.default.fileExists(atPath: folder + "/" + sdName))

        for format in ["kingfisher", "kingfisher7", "nuke"] {
            for option in [["--max-age", "1d"], ["--expire-type", "modification"]] {
                let run = try root.run(["clean", "--cache-format", format] + option)
                #expect(run.status == 2, "\(format) \(option): \(run.stderr)")
                #expect(run.stderr.contains(option[0]))
            }
        }
    }

    @Test func nukeCleanDefaultsTo150MiB() throws {
        let h = try PrefetchHarness()
        let root = Root(h: h)
        let keys = keys(h)
        #expect(try root.prefetch(keys, ["--cache-format", "nuke"]).status == 0)
        let folder = root.folder(FormatPrefetchTests.nukeFolder)
        // Read long ago, far smaller than the limit: a sweep with no limit given trims nothing.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            try FormatPrefetchTests.setTimes(folder + "/" + name, access: 86400, modification: 86400)
        }
        let clean = try root.run(["clean", "--cache-format", "nuke", "--report", "-"])
        #expect(clean.status == 0, "\(clean.stderr)")
        let report = try clean.report
        #expect(try FormatPrefetchTests.schema("clean-report").validate(report) == [])
        #expect(report["cacheFormat"] as? String == "nuke")
        #expect((report["options"] as? [String: Any])?["maxSizeBytes"] as? Int == 150 * 1024 * 1024)
        #expect((report["removed"] as? [Any])?.isEmpty == true)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).count == 3)
        // A limit below the folder's allocated size sweeps it.
        let swept = try root.run(["clean", "--cache-format", "nuke", "--max-size", "1", "--report", "-"])
        #expect(swept.status == 0)
        #expect(try (swept.report["removed"] as? [Any])?.count == 3)
    }

    @Test func statsCountsTheFormatsEntries() throws {
        let h = try PrefetchHarness()
        let root = Root(h: h)
        let keys = keys(h)
        #expect(try root.prefetch(keys, ["--cache-format", "kingfisher"]).status == 0)
        let folder = root.folder(FormatPrefetchTests.kingfisherFolder)
        let now = Date().timeIntervalSince1970.rounded(.down)
        try FormatPrefetchTests.setTimes(
            folder + "/" + (try ReaderModel.name(keys[2], format: "kingfisher")), access: now, modification: now - 60)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))

        let json = try root.run(["stats", "--cache-format", "kingfisher", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try json.report
        #expect(try FormatPrefetchTests.schema("stats").validate(report) == [])
        #expect(report["cacheFormat"] as? String == "kingfisher")
        let entries = report["cacheEntries"] as? [String: Any] ?? [:]
        #expect(entries["entries"] as? Int == 3 && entries["foreignFiles"] as? Int == 1)
        #expect(entries["expired"] as? Int == 1)

        let text = try root.run(["stats", "--cache-format", "kingfisher"])
        #expect(
            text.result.stdoutText.contains(
                "Format entries: 3 kingfisher (64 hex digits, no extension), 1 expired; 1 foreign file"),
            "\(text.result.stdoutText)")

        #expect(try root.prefetch(keys, ["--cache-format", "nuke"]).status == 0)
        let nuke = try root.run(["stats", "--cache-format", "nuke", "--json"])
        let nukeReport = try nuke.report
        #expect(try FormatPrefetchTests.schema("stats").validate(nukeReport) == [])
        let nukeEntries = nukeReport["cacheEntries"] as? [String: Any] ?? [:]
        #expect(nukeEntries["entries"] as? Int == 3 && nukeEntries["expired"] is NSNull)
    }

    /// The schemas list exactly the formats there are.
    @Test func schemasNameEveryFormat() throws {
        for name in ["prefetch-report", "clean-report", "stats"] {
            let data = try Data(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/\(name).schema.json"))
            let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let (schema, format) = JSONSchema.oneCacheDocument(root)
            #expect(format?["enum"] as? [String] == CacheFormats.names, "\(name)")
            #expect((schema["required"] as? [String])?.contains("cacheFormat") == true, "\(name)")
        }
    }
}
