import Foundation
import ImgwarmKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A cache folder is untrusted input (issue 38, SPEC §13, docs/hardening.md): a journal's keys and a
/// database's rows never make imgwarm open, write or remove anything outside the folder, and what
/// stands at imgwarm's own temporary names is removed, never followed.
@Suite struct UntrustedCacheTests {
    typealias Journal = AndroidJournalTests.Journal

    /// A folder beside the cache with files the runs must leave as they are.
    struct Outside {
        let folder: String

        init(_ h: PrefetchHarness, names: [String]) throws {
            folder = h.temp.path("outside")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for name in names { try Data("precious \(name)\n".utf8).write(to: URL(fileURLWithPath: path(name))) }
        }

        func path(_ name: String) -> String { folder + "/" + name }

        /// Every name with its bytes and modification time.
        func snapshot() -> [String: String] { AndroidJournalTests.snapshot(folder) }
    }

    static func names(_ folder: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    static func journalArguments(_ command: String, _ journal: Journal, _ folder: String) -> [String] {
        [command, "--cache-format", journal.format, "--disk-cache-path", folder]
    }

    // MARK: imgwarm's own temporary name

    /// A link planted at `journal.tmp` (pointing at a file outside the folder) is removed, not
    /// written through: a hits-only run's `READ` lines and clean's `REMOVE` lines land in a new
    /// regular `journal`, and the outside file keeps its bytes.
    @Test(arguments: Journal.all) func aLinkAtTheTemporaryJournalIsRemovedNotWrittenThrough(_ journal: Journal) throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/\(journal.format)")
        let url = h.url("/img/photo.jpg")
        let list = try h.temp.write("list.txt", Data((url + "\n").utf8))
        let prefetch = Self.journalArguments("prefetch", journal, folder) + ["--report", "-", list]
        #expect(try h.run(prefetch).status == 0)
        let outside = try Outside(h, names: ["victim"])
        let before = outside.snapshot()

        try FileManager.default.createSymbolicLink(
            atPath: folder + "/journal.tmp", withDestinationPath: outside.path("victim"))
        let hit = try h.run(prefetch)
        #expect(hit.status == 0, "\(hit.stderr)")
        #expect(try hit.totals["cached"] as? Int == 1)
        #expect(outside.snapshot() == before, "the file the link named is unchanged")
        #expect(Self.isRegularFile(folder + "/journal"))
        #expect(!Self.names(folder).contains("journal.tmp"))
        let key = AndroidJournalTests.key(url)
        let text = String(decoding: AndroidJournalTests.bytes(folder + "/journal") ?? [], as: UTF8.self)
        #expect(text.hasSuffix("READ \(key)\n"), "\(text)")

        try FileManager.default.createSymbolicLink(
            atPath: folder + "/journal.tmp", withDestinationPath: outside.path("victim"))
        let clean = try h.run(Self.journalArguments("clean", journal, folder) + ["--all"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(outside.snapshot() == before)
        #expect(Self.isRegularFile(folder + "/journal"))
        let cleaned = String(decoding: AndroidJournalTests.bytes(folder + "/journal") ?? [], as: UTF8.self)
        #expect(cleaned.hasSuffix("REMOVE \(key)\n"), "\(cleaned)")
        #expect(Self.names(folder) == ["journal"])
    }

    // MARK: Names from the journal

    /// `CLEAN ../../outside/victim2 …` (the reproduction): `clean --all` and a trimming clean
    /// remove the entry's line, never the file it names, and count it as skipped; the folder's own
    /// entry goes as usual.
    @Test(arguments: [Journal.glide, Journal.coil], [false, true])
    func aJournalKeyThatClimbsOutIsSkippedByClean(_ journal: Journal, trim: Bool) throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/\(journal.format)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let climbing = "../../outside/victim2"
        let outside = try Outside(h, names: (0..<journal.valueCount).map { "victim2.\($0)" })
        let before = outside.snapshot()
        let own = String(repeating: "a", count: 64)
        for index in 0..<journal.valueCount {
            try Data(repeating: 1, count: 7).write(to: URL(fileURLWithPath: "\(folder)/\(own).\(index)"))
        }
        let lengths = Array(repeating: "7", count: journal.valueCount).joined(separator: " ")
        let text = journal.header + "CLEAN \(climbing) \(lengths)\nCLEAN \(own) \(lengths)\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/journal"))

        // verify reports the entry with why, and opens nothing outside.
        let verify = try h.run(Self.journalArguments("verify", journal, folder) + ["--json"])
        #expect(verify.status == 1, "\(verify.stderr)")
        let entries = try verify.report["entries"] as? [[String: Any]] ?? []
        let reported = entries.first { $0["fileName"] as? String == "\(climbing).\(journal.dataIndex)" }
        #expect(reported?["reason"] as? String == "not-indexed", "\(entries)")
        #expect((reported?["message"] as? String)?.contains("not a file of the cache folder") == true)
        #expect(outside.snapshot() == before)

        let extra = trim ? ["--max-size", "1", "--quiet"] : ["--all"]
        let clean = try h.run(Self.journalArguments("clean", journal, folder) + extra + ["--report", "-"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(outside.snapshot() == before, "nothing outside the folder changed")
        let totals = try #require(try clean.report["totals"] as? [String: Any])
        #expect(totals["skipped"] as? Int == 1)
        #expect(totals["failed"] as? Int == 0)
        #expect(totals[trim ? "trimmed" : "cleared"] as? Int == journal.valueCount, "\(totals)")
        #expect(clean.stderr.contains("'\(climbing).\(journal.dataIndex)'"), "\(clean.stderr)")
        #expect(Self.names(folder) == ["journal"])
        let written = String(decoding: AndroidJournalTests.bytes(folder + "/journal") ?? [], as: UTF8.self)
        #expect(written.contains("REMOVE \(climbing)\n") && written.hasSuffix("REMOVE \(own)\n"), "\(written)")
    }

    /// A flutter row whose `relativePath` climbs out of the folder (at a file outside, at the app's
    /// own database): prefetch replaces the row without unlinking what it named, verify finds the
    /// key not indexed, and clean skips it.
    @Test(arguments: ["../../outside/victim", "../libCachedImageData.db"])
    func aFlutterRowThatClimbsOutIsReplacedNotUnlinked(_ relativePath: String) throws {
        let s = try FlutterCacheTests.Setup()
        let outside = try Outside(s.h, names: ["victim"])
        let before = outside.snapshot()
        let url = s.h.url("/img/photo.jpg")
        let list = try s.list([url])
        #expect(try s.h.run(["prefetch"] + s.options + [list]).status == 0)
        _ = try FlutterReaderModel.sqlite3(s.database, "UPDATE cacheObject SET relativePath = '\(relativePath)'")

        let verify = try s.h.run(["verify"] + s.options + ["--json", list])
        #expect(verify.status == 1, "\(verify.stderr)")
        let checks = try verify.report["entries"] as? [[String: Any]] ?? []
        #expect(checks.first?["reason"] as? String == "not-indexed", "\(checks)")
        let folderVerify = try s.h.run(["verify"] + s.options + ["--json"])
        #expect(folderVerify.status == 1, "\(folderVerify.stderr)")
        let reported = (try folderVerify.report["entries"] as? [[String: Any]] ?? []).first {
            $0["fileName"] as? String == relativePath
        }
        #expect(
            reported?["reason"] as? String == "not-indexed",
            "\(String(decoding: folderVerify.result.stdout, as: UTF8.self))")
        #expect(try s.h.run(["stats"] + s.options + ["--json"]).status == 0)

        let run = try s.h.run(["prefetch"] + s.options + ["--report", "-", list])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(outside.snapshot() == before)
        #expect(Self.isRegularFile(s.database))
        let row = try #require(try s.model.rows().first { $0.key == url })
        #expect(FlutterCacheTests.isUUIDName(row.relativePath), "\(row.relativePath)")
        #expect(Self.isRegularFile(s.folder + "/" + row.relativePath))

        _ = try FlutterReaderModel.sqlite3(s.database, "UPDATE cacheObject SET relativePath = '\(relativePath)'")
        let clean = try s.h.run(["clean"] + s.options + ["--all", "--report", "-"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(try (clean.report["totals"] as? [String: Any])?["skipped"] as? Int == 1)
        #expect(outside.snapshot() == before)
        #expect(Self.isRegularFile(s.database))
        #expect(try s.model.rows().isEmpty)
    }

    // MARK: Smaller

    /// Kingfisher's `clean --all` removes only names of its entry shape: a link of another name
    /// (the guard looks only at regular files) stays, and what any link names is untouched.
    @Test func kingfisherClearsOnlyItsEntryNames() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/kingfisher")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let outside = try Outside(h, names: ["victim"])
        let before = outside.snapshot()
        let entry = String(repeating: "a", count: 64)
        let linkedEntry = String(repeating: "b", count: 64)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder + "/" + entry))
        for name in ["notes-link", linkedEntry] {
            try FileManager.default.createSymbolicLink(
                atPath: folder + "/" + name, withDestinationPath: outside.path("victim"))
        }
        let clean = try h.run(["clean", "--cache-format", "kingfisher", "--disk-cache-path", folder, "--all"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(Self.names(folder) == ["notes-link"])
        #expect(outside.snapshot() == before)
    }

    /// `stats` refuses `/` and the home folder, named directly or through a link, as clean does:
    /// it would walk all of it.
    @Test func statsRefusesTheRootAndTheHomeFolder() throws {
        let h = try PrefetchHarness()
        let linkToRoot = h.temp.path("link-to-root")
        try FileManager.default.createSymbolicLink(atPath: linkToRoot, withDestinationPath: "/")
        let linkToHome = h.temp.path("sub/link-to-home")
        try FileManager.default.createDirectory(atPath: h.temp.path("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linkToHome, withDestinationPath: h.temp.path)
        for folder in ["/", linkToRoot, h.temp.path, linkToHome] {
            let run = try h.run(["stats", "--disk-cache-path", folder], timeout: 30)
            #expect(run.status == 2, "\(folder): \(run.stderr)")
            #expect(run.stderr.contains("refusing to read \(folder)"), "\(run.stderr)")
        }
        #expect(try h.run(["stats", "--disk-cache-path", h.temp.path("sub")]).status == 0)
    }
}
