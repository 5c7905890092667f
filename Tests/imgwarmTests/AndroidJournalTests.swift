import Foundation
import ImgwarmKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// glide, coil and coil2 (issue 25): what `prefetch` and `clean` leave in a DiskLruCache folder is
/// read by the readers written from the libraries' sources (`DiskLruReaderModel`, which shares no
/// code with imgwarm's writer) the way the app would: both parse it, every key hits, the app's
/// history stays, and a journal the library would wipe is never touched.
@Suite struct AndroidJournalTests {
    /// One of the three journal formats, as the tests know it from the libraries' sources.
    struct Journal: CustomStringConvertible {
        var format: String
        var appVersion: Int
        var valueCount: Int
        /// The value that holds the bytes (`<key>.<dataIndex>`).
        var dataIndex: Int
        var model: DiskLruReaderModel
        var description: String { format }

        static let glide = Journal(format: "glide", appVersion: 1, valueCount: 1, dataIndex: 0, model: .glide)
        static let coil = Journal(format: "coil", appVersion: 3, valueCount: 2, dataIndex: 1, model: .coil)
        static let coil2 = Journal(format: "coil2", appVersion: 1, valueCount: 2, dataIndex: 1, model: .coil)
        static let all = [glide, coil, coil2]

        var header: String { "libcore.io.DiskLruCache\n1\n\(appVersion)\n\(valueCount)\n\n" }

        /// Both readers (Glide's and Coil's rules, with this format's header) open the folder.
        func open(_ folder: String, sourceLocation: SourceLocation = #_sourceLocation) throws
            -> DiskLruReaderModel.Opened
        {
            // One read of the file for both readers: a run still writing could change it in between.
            guard
                let bytes = ["journal", "journal.bkp"].lazy.compactMap({ AndroidJournalTests.bytes(folder + "/" + $0) })
                    .first
            else { return try model.open(folder: folder, appVersion: appVersion, valueCount: valueCount) }
            let java = try DiskLruReaderModel.glide.read(bytes, appVersion: appVersion, valueCount: valueCount)
            let kotlin = try DiskLruReaderModel.coil.read(bytes, appVersion: appVersion, valueCount: valueCount)
            #expect(java.order == kotlin.order, "both readers keep one LRU order", sourceLocation: sourceLocation)
            #expect(java.entries == kotlin.entries, sourceLocation: sourceLocation)
            return model == .glide ? java : kotlin
        }

        func hits(_ key: String, _ opened: DiskLruReaderModel.Opened, folder: String) -> Bool {
            DiskLruReaderModel.glide.hits(key, in: opened, folder: folder, valueCount: valueCount)
                && DiskLruReaderModel.coil.hits(key, in: opened, folder: folder, valueCount: valueCount)
        }
    }

    static func key(_ url: String) -> String { Digest.sha256Hex(url) }

    static func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map([UInt8].init) }

    /// Every name in the folder with its bytes and modification time: "byte-for-byte unchanged".
    static func snapshot(_ folder: String) -> [String: String] {
        var result: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let path = folder + "/" + name
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            let date = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            result[name] = "\(bytes(path) ?? []) \(date)"
        }
        return result
    }

    func prefetch(_ h: PrefetchHarness, _ journal: Journal, _ folder: String, _ urls: [String], _ extra: [String] = [])
        throws -> PrefetchHarness.Run
    {
        let list = try h.temp.write("list-\(UUID().uuidString).txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        return try h.run(
            ["prefetch", "--cache-format", journal.format, "--disk-cache-path", folder, "--report", "-"] + extra + [
                list
            ])
    }

    /// The issue's done-when: a prefetch of real images leaves a journal both readers parse, every
    /// key hits with the image's bytes (Coil: an empty `.0`, the "written manually" case), and the
    /// journal is only `journal` (no `.tmp`, no `.bkp`). A second run finds every key cached and adds
    /// one `READ` line per hit after the unchanged journal.
    @Test(arguments: Journal.all) func prefetchLeavesAJournalBothReadersParse(_ journal: Journal) throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/\(journal.format)")
        let names = ["photo.jpg", "gradient.png", "anim.gif"]
        let urls = names.map { h.url("/img/\($0)") }
        let run = try prefetch(h, journal, folder, urls)
        #expect(run.status == 0, "\(run.stderr)")
        let opened = try journal.open(folder)
        #expect(Set(opened.order) == Set(urls.map(Self.key)))
        for (name, url) in zip(names, urls) {
            let key = Self.key(url)
            #expect(journal.hits(key, opened, folder: folder), "\(url)")
            #expect(Self.bytes("\(folder)/\(key).\(journal.dataIndex)") == h.routes.valid[name])
            if journal.valueCount == 2 { #expect(Self.bytes("\(folder)/\(key).0") == []) }
            #expect(opened.entries[key]?.lengths.last == Int64(h.routes.valid[name]!.count))
        }
        let contents = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        #expect(contents.contains("journal") && !contents.contains("journal.tmp") && !contents.contains("journal.bkp"))
        #expect(
            String(decoding: Self.bytes(folder + "/journal")!.prefix(journal.header.utf8.count), as: UTF8.self)
                == journal.header)

        let before = Self.bytes(folder + "/journal")!
        let again = try prefetch(h, journal, folder, urls)
        #expect(again.status == 0)
        #expect(try again.totals["cached"] as? Int == 3)
        let after = Self.bytes(folder + "/journal")!
        #expect(Array(after.prefix(before.count)) == before, "the journal is appended to, never rewritten")
        let added = String(decoding: after.dropFirst(before.count), as: UTF8.self)
        #expect(Set(added.split(separator: "\n").map(String.init)) == Set(urls.map { "READ " + Self.key($0) }))
        let reopened = try journal.open(folder)
        #expect(urls.allSatisfy { journal.hits(Self.key($0), reopened, folder: folder) })
    }

    /// An app's journal with every kind of line (a read, a removal, an edit that finished, one that
    /// did not, a CRLF line) keeps its bytes and its meaning: the new entries come after it, most
    /// recently used, and the app's entries keep their order and lengths.
    @Test(arguments: Journal.all) func theAppsHistoryIsKept(_ journal: Journal) throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/\(journal.format)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let keys = (1...4).map { String(repeating: String($0), count: 64) }
        func lengths(_ n: Int) -> String { journal.valueCount == 2 ? "0 \(n)" : "\(n)" }
        for key in keys {
            for index in 0..<journal.valueCount {
                try Data(repeating: 7, count: index == journal.dataIndex ? 3 : 0).write(
                    to: URL(fileURLWithPath: "\(folder)/\(key).\(index)"))
            }
        }
        let history =
            journal.header
            + "DIRTY \(keys[0])\nCLEAN \(keys[0]) \(lengths(3))\nDIRTY \(keys[1])\nCLEAN \(keys[1]) \(lengths(3))\r\n"
            + "READ \(keys[0])\nDIRTY \(keys[2])\nCLEAN \(keys[2]) \(lengths(3))\nREMOVE \(keys[1])\nDIRTY \(keys[3])\n"
        try Data(history.utf8).write(to: URL(fileURLWithPath: folder + "/journal"))
        let appView = try journal.open(folder)
        #expect(appView.order == [keys[0], keys[2]])

        let url = h.url("/img/photo.jpg")
        let run = try prefetch(h, journal, folder, [url])
        #expect(run.status == 0, "\(run.stderr)")
        let written = Self.bytes(folder + "/journal")!
        #expect(Array(written.prefix(history.utf8.count)) == Array(history.utf8))
        let opened = try journal.open(folder)
        #expect(opened.order == [keys[0], keys[2], Self.key(url)])
        #expect(opened.entries[keys[0]] == appView.entries[keys[0]])
        #expect(journal.hits(keys[2], opened, folder: folder) && journal.hits(Self.key(url), opened, folder: folder))
    }

    /// Journals the libraries would delete the folder for: prefetch (a dry run too) and clean exit 3 and leave the
    /// folder byte for byte as it was, and the readers written from the sources agree they are corrupt.
    @Test func aJournalTheLibraryWouldWipeIsNeverTouched() throws {
        let key = String(repeating: "a", count: 64)
        let cases: [(Journal, String)] = [
            (.glide, "libcore.io.DiskLruCache\n1\n2\n1\n\nCLEAN \(key) 3\n"),  // another app version
            (.coil2, Journal.coil.header + "CLEAN \(key) 0 3\n"),  // Coil 3's header in a Coil 2 folder
            (.coil, Journal.coil.header + "CLEAN \(key) 0 3 \n"),  // Kotlin keeps the trailing field
            (.glide, Journal.glide.header + "UPDATE \(key)\n"),
            (.glide, Journal.glide.header + "CLEAN \(key) 3 4\n"),
            (.coil, Journal.coil.header + "CLEAN \(key) 3\n"),
            (.glide, Journal.glide.header + "CLEAN \(key) three\n"),
            (.glide, Journal.glide.header + "READ\n"),
            (.glide, "libcore.io.DiskLruCache\n1\n1\n"),  // the header ends early
            (.coil, ""),
        ]
        let h = try PrefetchHarness()
        for (number, (journal, text)) in cases.enumerated() {
            let folder = h.temp.path("corrupt-\(number)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/journal"))
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: "\(folder)/\(key).\(journal.dataIndex)"))
            #expect(throws: (any Error).self, "case \(number)") {
                try journal.model.read(Array(text.utf8), appVersion: journal.appVersion, valueCount: journal.valueCount)
            }
            let before = Self.snapshot(folder)
            let run = try prefetch(h, journal, folder, [h.url("/img/photo.jpg")])
            #expect(run.status == 3, "case \(number): \(run.stderr)")
            #expect(run.stderr.contains("would delete the whole cache folder"), "case \(number): \(run.stderr)")
            let dry = try prefetch(h, journal, folder, [h.url("/img/photo.jpg")], ["--dry-run"])
            #expect(dry.status == 3, "case \(number): \(dry.stderr)")
            let clean = try h.run(
                ["clean", "--cache-format", journal.format, "--disk-cache-path", folder, "--max-size", "1"])
            #expect(clean.status == 3, "case \(number): \(clean.stderr)")
            #expect(Self.snapshot(folder) == before, "case \(number)")
        }
    }

    /// An unterminated last line is ignored, as both libraries ignore it (and rewrite without it);
    /// a lone `journal.bkp` is the journal (the libraries rename it into place) and is gone after.
    @Test func anUnterminatedLineAndABackupJournal() throws {
        let h = try PrefetchHarness()
        let journal = Journal.glide
        let key = String(repeating: "b", count: 64)
        let url = h.url("/img/gradient.png")

        let cut = h.temp.path("cut")
        try FileManager.default.createDirectory(atPath: cut, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: "\(cut)/\(key).0"))
        try Data((journal.header + "CLEAN \(key) 3\nCLEAN \(String(repeating: "c", count: 64)) 1").utf8).write(
            to: URL(fileURLWithPath: cut + "/journal"))
        #expect(try journal.open(cut).hadUnterminatedLine)
        #expect(try prefetch(h, journal, cut, [url]).status == 0)
        let opened = try journal.open(cut)
        #expect(!opened.hadUnterminatedLine)
        #expect(opened.order == [key, Self.key(url)])

        let backup = h.temp.path("backup")
        try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: "\(backup)/\(key).0"))
        try Data((journal.header + "CLEAN \(key) 3\n").utf8).write(to: URL(fileURLWithPath: backup + "/journal.bkp"))
        #expect(try prefetch(h, journal, backup, [url]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: backup + "/journal.bkp"))
        let restored = try journal.open(backup)
        #expect(restored.order == [key, Self.key(url)])
    }

    /// `clean --max-size` removes the least recently used entries first, by journal order (a hit
    /// made an old entry recent again), until the lengths add up to at most the limit, with one
    /// `REMOVE` line each; a dry run changes nothing.
    @Test(arguments: [Journal.glide, Journal.coil]) func cleanTrimsLeastRecentlyUsedFirst(_ journal: Journal) throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/\(journal.format)")
        let names = ["photo.jpg", "gradient.png", "anim.gif"]
        let urls = names.map { h.url("/img/\($0)") }
        for url in urls { #expect(try prefetch(h, journal, folder, [url]).status == 0) }
        #expect(try prefetch(h, journal, folder, [urls[0]]).status == 0)  // a hit: the first is recent again
        let opened = try journal.open(folder)
        #expect(opened.order == [urls[1], urls[2], urls[0]].map(Self.key))
        let sizes = names.map { h.routes.valid[$0]!.count }
        let limit = sizes[0] + sizes[2]
        let arguments = [
            "clean", "--cache-format", journal.format, "--disk-cache-path", folder, "--max-size", "\(limit)",
        ]

        let before = Self.snapshot(folder)
        let dry = try h.run(arguments + ["--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(Self.snapshot(folder) == before)

        let clean = try h.run(arguments)
        #expect(clean.status == 0, "\(clean.stderr)")
        let trimmed = try journal.open(folder)
        #expect(trimmed.order == [urls[2], urls[0]].map(Self.key))
        #expect(
            String(decoding: Self.bytes(folder + "/journal")!, as: UTF8.self).hasSuffix("REMOVE \(Self.key(urls[1]))\n")
        )
        for index in 0..<journal.valueCount {
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/\(Self.key(urls[1])).\(index)"))
        }
        #expect(
            journal.hits(Self.key(urls[0]), trimmed, folder: folder)
                && journal.hits(Self.key(urls[2]), trimmed, folder: folder))
    }

    /// A run that leaves the cache above the library's limit says the app will trim it.
    @Test func aCacheAboveTheLimitIsReported() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/glide")
        let run = try prefetch(h, .glide, folder, [h.url("/img/photo.jpg")], ["--max-size", "1K"])
        #expect(run.status == 0)
        #expect(run.stderr.contains("will remove its least recently used entries"), "\(run.stderr)")
        let quiet = try prefetch(h, .glide, h.temp.path("cache/glide2"), [h.url("/img/photo.jpg")])
        #expect(!quiet.stderr.contains("least recently used"))
    }

    /// Two prefetches into one folder at once, each with its own list: every key of both ends in
    /// the journal and hits (the journal lock and re-reading before each write lose nothing).
    @Test func twoProcessesLoseNothing() throws {
        let h = try PrefetchHarness()
        let journal = Journal.coil
        let folder = h.temp.path("cache/shared")
        let lists = (0..<2).map { run in (0..<40).map { h.url("/img/sticker.webp?run=\(run)&n=\($0)") } }
        var processes: [BackgroundProcess] = []
        for (number, urls) in lists.enumerated() {
            let list = try h.temp.write("list\(number).txt", Data((urls.joined(separator: "\n") + "\n").utf8))
            processes.append(
                try BackgroundProcess(
                    CLI.binary,
                    ["prefetch", "--cache-format", journal.format, "--disk-cache-path", folder, "--quiet", list],
                    environment: CLI.environment(home: h.temp.path), folder: h.temp.url))
        }
        for process in processes {
            let end = process.wait(timeout: 120)
            #expect(end.status == 0 && !end.timedOut, "\(process.stderr)")
        }
        let opened = try journal.open(folder)
        let keys = lists.flatMap { $0 }.map(Self.key)
        #expect(Set(opened.order) == Set(keys))
        #expect(keys.allSatisfy { journal.hits($0, opened, folder: folder) })
    }

    /// kill -9 in the middle of a run: the journal still parses, and every `CLEAN` line it holds
    /// names complete files (the lengths it gives, the image's bytes). With 2,100 redundant lines
    /// already there, the run's first batch compacts the journal (Glide's rule) and the next ones
    /// append to it: the same holds.
    @Test(arguments: [0, 2100]) func killedMidRunTheJournalStillHolds(redundant: Int) throws {
        let h = try PrefetchHarness()
        let journal = Journal.glide
        let folder = h.temp.path("cache/killed")
        let photo = h.routes.valid["photo.jpg"]!
        var seeded = 0
        if redundant > 0 {
            let seed = Self.key("seed")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(photo).write(to: URL(fileURLWithPath: "\(folder)/\(seed).0"))
            let text =
                journal.header + "CLEAN \(seed) \(photo.count)\n"
                + String(repeating: "READ \(seed)\n", count: redundant)
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/journal"))
            seeded = 1
        }
        let urls = (0..<30).map { h.url("/slow-headers/photo.jpg?delay=0.2&n=\($0)") }
        let list = try h.temp.write("slow.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let process = try BackgroundProcess(
            CLI.binary,
            [
                "prefetch", "--cache-format", journal.format, "--disk-cache-path", folder, "--concurrency", "1",
                "--quiet", list,
            ],
            environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
        // Some lines are in the journal (a batch was written), and the run goes on.
        #expect(eventually(timeout: 60) { ((try? journal.open(folder))?.order.count ?? 0) >= 2 + seeded })
        process.signal(SIGKILL)
        _ = process.wait(timeout: 30)
        let opened = try journal.open(folder)
        #expect(opened.order.count >= 2 + seeded && opened.order.count < urls.count + seeded)
        if redundant > 0 { #expect(opened.lineCount < redundant, "the first batch compacted the journal") }
        for key in opened.order {
            #expect(Self.bytes("\(folder)/\(key).0") == photo, "\(key)")
            #expect(opened.entries[key]?.lengths == [Int64(photo.count)])
        }
        // The next run finishes the list on top of what is there.
        let finish = try prefetch(h, journal, folder, urls)
        #expect(finish.status == 0, "\(finish.stderr)")
        let done = try journal.open(folder)
        #expect(urls.allSatisfy { journal.hits(Self.key($0), done, folder: folder) })
    }

    /// The names: Glide's and Coil's file for a key is the SHA-256 of its UTF-8 bytes (checked
    /// against `sha256sum`), then `.0` (Glide) or `.1` (Coil); `path` prints it.
    @Test func namesAndPath() throws {
        let h = try PrefetchHarness()
        let digest = "494a30704d4f32ac0b81739d18a66d3638d440cbc6f5669f6af66f840edee5ab"
        for (format, folder, suffix) in [
            ("glide", "image_manager_disk_cache", ".0"), ("coil", "coil3_disk_cache", ".1"),
            ("coil2", "image_cache", ".1"),
        ] {
            let run = try h.run(["path", "--cache-format", format, "--cache-dir", "/c", "https://example.com/a.png"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(String(decoding: run.result.stdout, as: UTF8.self).hasPrefix("/c/\(folder)/\(digest)\(suffix)"))
        }
    }
}

/// `imgwarm verify` on the journal formats: what prefetch wrote verifies (exit 0), from lists and
/// from the folder; a missing file of an entry, a file the journal does not list and a journal
/// the library would wipe are what the library would make of them.
extension AndroidJournalTests {
    @Test(arguments: Journal.all) func verifyReadsTheJournal(_ journal: Journal) throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/\(journal.format)")
        let urls = ["photo.jpg", "gradient.png"].map { h.url("/img/\($0)") }
        #expect(try prefetch(h, journal, folder, urls).status == 0)
        let list = try h.temp.write("verify.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let verify = ["verify", "--cache-format", journal.format, "--disk-cache-path", folder]
        let fromList = try h.run(verify + [list])
        #expect(fromList.status == 0, "\(fromList.stderr)")
        let whole = try h.run(verify + ["--json"])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(
            (try whole.report["ignored"] as? [Any])?.isEmpty == true, "the journal and Coil's .0 are parts of entries")
        #expect((try whole.report["totals"] as? [String: Any])?["hits"] as? Int == 2)

        // The first entry loses a file; a copy of the second under a name the journal lacks.
        let first = Self.key(urls[0])
        try FileManager.default.removeItem(atPath: "\(folder)/\(first).0")
        let stray = String(repeating: "e", count: 64)
        for index in 0..<journal.valueCount {
            try FileManager.default.copyItem(
                atPath: "\(folder)/\(Self.key(urls[1])).\(index)", toPath: "\(folder)/\(stray).\(index)")
        }
        let damaged = try h.run(verify + ["--json"])
        #expect(damaged.status == 1, "\(damaged.stderr)")
        let reasons = (try damaged.report["totals"] as? [String: Any])?["missesByReason"] as? [String: Int]
        #expect(reasons == ["absent": 1, "not-indexed": 1], "\(damaged.stderr)")
        #expect(try h.run(verify + [list]).status == 1)

        let handle = try #require(FileHandle(forWritingAtPath: folder + "/journal"))
        handle.seekToEndOfFile()
        handle.write(Data("CLEAN \(first)\n".utf8))
        handle.closeFile()
        let wiped = try h.run(verify + [list])
        #expect(wiped.status == 3)
        #expect(wiped.stderr.contains("would delete the folder"), "\(wiped.stderr)")
    }
}

extension AndroidJournalTests {
    /// A clean that trims while a prefetch stores into the same folder: whatever order the lock
    /// gives them, the journal parses with both rules and every entry it serves has its files.
    @Test func cleanDuringAPrefetch() throws {
        let h = try PrefetchHarness()
        let journal = Journal.coil
        let folder = h.temp.path("cache/busy")
        let urls = (0..<30).map { h.url("/slow-headers/photo.jpg?delay=0.05&n=\($0)") }
        let list = try h.temp.write("busy.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let process = try BackgroundProcess(
            CLI.binary,
            [
                "prefetch", "--cache-format", journal.format, "--disk-cache-path", folder, "--concurrency", "2",
                "--quiet", list,
            ],
            environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
        #expect(eventually(timeout: 60) { ((try? journal.open(folder))?.order.count ?? 0) >= 1 })
        for _ in 0..<3 {
            let clean = try h.run([
                "clean", "--cache-format", journal.format, "--disk-cache-path", folder, "--max-size", "40K",
            ])
            #expect(clean.status == 0, "\(clean.stderr)")
            let opened = try journal.open(folder)
            #expect(opened.order.allSatisfy { journal.hits($0, opened, folder: folder) })
        }
        let end = process.wait(timeout: 120)
        #expect(end.status == 0 && !end.timedOut, "\(process.stderr)")
        let opened = try journal.open(folder)
        #expect(opened.order.allSatisfy { journal.hits($0, opened, folder: folder) })
        #expect(opened.order.count >= 1)
    }
}
