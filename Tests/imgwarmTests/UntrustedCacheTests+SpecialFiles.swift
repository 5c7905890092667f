import Foundation
import ImgwarmKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Only regular files are read as journals and databases: a FIFO at an index name ends every
/// command at once with exit 3 and a message naming the file (before, each of them waited on the
/// FIFO for ever); a FIFO at imgwarm's own temporary name is removed.
extension UntrustedCacheTests {
    /// Every command that reads an index, with what it needs to run on `options`'s folder.
    static func commands(_ h: PrefetchHarness, _ options: [String], url: String) throws -> [[String]] {
        let list = try h.temp.write("list-\(UUID().uuidString).txt", Data((url + "\n").utf8))
        return [
            ["prefetch"] + options + [list],
            ["prefetch"] + options + ["--dry-run", list],
            ["verify"] + options + [list],
            ["verify"] + options,
            ["stats"] + options,
            ["clean"] + options + ["--all"],
        ]
    }

    static func makeFIFO(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        #expect(mkfifo(path, 0o644) == 0, "mkfifo \(path)")
    }

    @Test(arguments: Journal.all, ["journal", "journal.bkp"])
    func aFIFOAtTheJournalEndsEveryCommand(_ journal: Journal, name: String) throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/\(journal.format)")
        try Self.makeFIFO(folder + "/" + name)
        for arguments in try Self.commands(
            h, ["--cache-format", journal.format, "--disk-cache-path", folder], url: h.url("/img/photo.jpg"))
        {
            // Before issue 38 each of these waited on the FIFO until the harness killed it.
            let run = try h.run(arguments, timeout: 30)
            #expect(run.status == 3, "\(arguments[0]): \(run.stderr)")
            #expect(
                run.stderr.contains(folder + "/" + name) && run.stderr.contains("a FIFO"), "\(arguments): \(run.stderr)"
            )
        }
        #expect(Self.names(folder) == [name], "nothing was written")
    }

    @Test func aFIFOAtTheFlutterDatabaseEndsEveryCommand() throws {
        let s = try FlutterCacheTests.Setup()
        try FileManager.default.createDirectory(atPath: s.folder, withIntermediateDirectories: true)
        try Self.makeFIFO(s.database)
        for arguments in try Self.commands(s.h, s.options, url: s.h.url("/img/photo.jpg")) {
            let run = try s.h.run(arguments, timeout: 30)
            #expect(run.status == 3, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains(s.database) && run.stderr.contains("a FIFO"), "\(arguments): \(run.stderr)")
        }
        #expect(Self.names(s.folder).isEmpty)
    }

    /// A symbolic link at the journal or the database (here to a valid one outside the folder) is
    /// not followed: every command says so and stops with exit 3.
    @Test func aLinkAtAnIndexIsNotFollowed() throws {
        let s = try FlutterCacheTests.Setup()
        let url = s.h.url("/img/photo.jpg")
        let glide = s.h.temp.path("caches/glide")
        let glideOptions = ["--cache-format", "glide", "--disk-cache-path", glide]
        #expect(try s.h.run(["prefetch"] + glideOptions + [try s.list([url])]).status == 0)
        #expect(try s.h.run(["prefetch"] + s.options + [try s.list([url])]).status == 0)
        for (index, options) in [(glide + "/journal", glideOptions), (s.database, s.options)] {
            let aside = s.h.temp.path("aside-\((index as NSString).lastPathComponent)")
            try FileManager.default.moveItem(atPath: index, toPath: aside)
            try FileManager.default.createSymbolicLink(atPath: index, withDestinationPath: aside)
            for arguments in try Self.commands(s.h, options, url: url) {
                let run = try s.h.run(arguments, timeout: 30)
                #expect(run.status == 3, "\(arguments[0]): \(run.stderr)")
                #expect(
                    run.stderr.contains(index) && run.stderr.contains("a symbolic link"), "\(arguments): \(run.stderr)")
            }
        }
    }

    /// A FIFO at `journal.tmp` is not read by anyone; a run that writes the journal removes it.
    @Test(arguments: Journal.all) func aFIFOAtTheTemporaryJournalIsRemoved(_ journal: Journal) throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/\(journal.format)")
        try Self.makeFIFO(folder + "/journal.tmp")
        let options = ["--cache-format", journal.format, "--disk-cache-path", folder]
        for arguments in try Self.commands(h, options, url: h.url("/img/photo.jpg")) {
            let run = try h.run(arguments, timeout: 30)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        #expect(Self.isRegularFile(folder + "/journal"))
        #expect(!Self.names(folder).contains("journal.tmp"))
    }

    // MARK: A bounded fuzz of journal and database contents

    /// A hostile name: climbing, absolute, nested, with a NUL, empty, dots, very long.
    static func hostileName(_ g: inout SplitMix64) -> String {
        let pieces = [
            "../outside/victim", "../../outside/victim", "/tmp", "..", ".", "", "a/b", "x\u{0}../../outside/victim",
            "../outside", String(repeating: "../", count: 40) + "etc/hostname", "journal",
            String(repeating: "k", count: 300), "victim", "ok-name",
        ]
        var name = pieces.randomElement(using: &g)!
        if Bool.random(using: &g) { name += pieces.randomElement(using: &g)! }
        return name
    }

    /// Random journals (keys with `/`, `..`, NUL, long lines and valid entries mixed) and random
    /// flutter rows: after prefetch, verify, stats and clean nothing outside the folder changed.
    @Test(arguments: 1...6) func fuzzedIndexesNeverReachOutside(seed: UInt64) throws {
        var g = SplitMix64(state: seed)
        let s = try FlutterCacheTests.Setup()
        let h = s.h
        let outside = try Outside(h, names: ["victim", "victim.0", "victim.1"])
        let before = outside.snapshot()
        let url = h.url("/img/photo.jpg")

        // Beside flutter's folder: `../../outside` reaches the outside folder from both.
        let journal = Journal.all[Int(seed) % Journal.all.count]
        let folder = h.temp.path("caches/\(journal.format)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var text = journal.header
        for _ in 0..<Int.random(in: 5...30, using: &g) {
            let key = Self.hostileName(&g)
            let lengths = (0..<journal.valueCount).map { _ in String(Int.random(in: 0...9, using: &g)) }
            switch Int.random(in: 0...19, using: &g) {
            case 0...2: text += "READ \(key)\n"
            case 3...4: text += "DIRTY \(key)\n"
            case 5...6: text += "REMOVE \(key)\n"
            // A long line: the library would not read a length this long (exit 3, nothing touched).
            case 7: text += "CLEAN \(key) " + String(repeating: "9", count: Int.random(in: 1...5000, using: &g)) + "\n"
            default: text += "CLEAN \(key) \(lengths.joined(separator: " "))\n"
            }
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/journal"))
        let options = ["--cache-format", journal.format, "--disk-cache-path", folder]
        for arguments in try Self.commands(h, options, url: url) + [["clean"] + options + ["--max-size", "1"]] {
            let run = try h.run(arguments, timeout: 60)
            #expect([0, 1, 3].contains(run.status), "seed \(seed) \(arguments): \(run.stderr)")
            #expect(outside.snapshot() == before, "seed \(seed) \(arguments): \(text.debugDescription)")
        }

        #expect(try s.h.run(["prefetch"] + s.options + [try s.list([url])]).status == 0)
        var sql = ""
        for index in 0..<Int.random(in: 3...12, using: &g) {
            let path = Self.hostileName(&g).replacingOccurrences(of: "\u{0}", with: "").replacingOccurrences(
                of: "'", with: "")
            let key = index == 0 ? url : "k\(index)"
            sql +=
                "INSERT OR REPLACE INTO cacheObject (url, key, relativePath, validTill, touched, length) "
                + "VALUES ('\(key)', '\(key)', '\(path)', \(Int.random(in: 0...2, using: &g) == 0 ? 1000 : 9_999_999_999_999), 0, 5);\n"
        }
        _ = try FlutterReaderModel.sqlite3(s.database, sql)
        for arguments in try Self.commands(s.h, s.options, url: url) {
            let run = try s.h.run(arguments, timeout: 60)
            #expect([0, 1].contains(run.status), "seed \(seed) \(arguments): \(run.stderr)")
            #expect(outside.snapshot() == before, "seed \(seed) \(arguments): \(sql)")
        }
        #expect(Self.isRegularFile(s.database))
    }
}
