import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// The daily re-warm of one list (issue 39): every run's hits add `READ` lines, and the journal
/// stays within what the library's own compaction rule lets it hold (Glide: fewer than 2,000
/// redundant lines or fewer than the entries; Coil: fewer than 2,000), read by the readers
/// written from the libraries' sources (`DiskLruReaderModel`).
@Suite struct JournalCompactionTests {
    /// Redundant lines as both libraries count them at open: operation lines less entries.
    static func redundant(_ opened: DiskLruReaderModel.Opened) -> Int { opened.lineCount - opened.entries.count }

    /// 30 prefetches of the same 100 URLs: after each, every key hits, the journal has one line an
    /// entry plus fewer redundant ones than the rule allows, and it was compacted at least once
    /// (3,000 `READ` lines were appended in all).
    @Test(arguments: [AndroidJournalTests.Journal.glide, AndroidJournalTests.Journal.coil])
    func thirtyRewarmsStayWithinTheRule(_ journal: AndroidJournalTests.Journal) throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/\(journal.format)")
        let urls = (0..<100).map { h.url("/img/photo.jpg?n=\($0)") }
        let list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        var compacted = false
        var previousLines = 0
        for day in 1...30 {
            let run = try h.run(["prefetch", "--cache-format", journal.format, "--disk-cache-path", folder, list])
            #expect(run.status == 0, "day \(day): \(run.stderr)")
            let opened = try journal.open(folder)
            #expect(opened.entries.count == urls.count, "day \(day)")
            #expect(urls.allSatisfy { journal.hits(AndroidJournalTests.key($0), opened, folder: folder) }, "day \(day)")
            let redundant = Self.redundant(opened)
            // Both rules hold a journal of 100 entries below 2,000 redundant lines.
            #expect(redundant < 2000, "day \(day): \(opened.lineCount) lines for \(opened.entries.count) entries")
            if opened.lineCount < previousLines { compacted = true }
            previousLines = opened.lineCount
        }
        #expect(compacted, "3,000 READ lines made the journal compact at least once")
    }

    /// The journal imgwarm keeps after a rewrite is the one reading the rewritten bytes gives
    /// (it is not read again): the same entries in the same LRU order, lines and length, for a
    /// journal with every kind of line.
    @Test func aRewrittenJournalIsTheOneItsBytesRead() throws {
        let header = DiskLruJournal.Header(appVersion: 1, valueCount: 2)
        let keys = (0..<6).map { String(repeating: String($0), count: 64) }
        let text =
            "CLEAN \(keys[0]) 1 2\nCLEAN \(keys[1]) 3 4\nDIRTY \(keys[2])\nREAD \(keys[3])\n"
            + "CLEAN \(keys[4]) 5 6\nDIRTY \(keys[4])\nREAD \(keys[0])\nCLEAN \(keys[5]) 7 8\nREMOVE \(keys[5])\n"
            + "READ \(keys[1])\nDIRTY \(keys[1])\nCLEAN \(keys[1]) 9 10\n"
        var journal = try DiskLruJournal.parse(header.bytes + Array(text.utf8), header: header, dialect: .kotlinSplit)
        let bytes = journal.rebuilt(header: header)
        let reread = try DiskLruJournal.parse(bytes, header: header, dialect: .kotlinSplit)
        journal.becomeRebuilt(length: bytes.count)
        func shape(_ j: DiskLruJournal) -> [String] {
            j.entries.sorted { $0.value.recency < $1.value.recency }.map {
                "\($0.key) \($0.value.readable) \($0.value.dirty) \($0.value.lengths)"
            }
        }
        #expect(shape(journal) == shape(reread))
        #expect(journal.lineCount == reread.lineCount && journal.linesRead == reread.linesRead)
        #expect(journal.completeLength == reread.completeLength && journal.completeLength == bytes.count)
        #expect(journal.redundantLines == 0)
        #expect(journal.rebuilt(header: header) == bytes)
    }
}
