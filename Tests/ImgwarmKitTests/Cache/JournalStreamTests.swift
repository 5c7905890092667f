import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// A DiskLruCache journal is read as a stream and written by appending (issues 38 and 39,
/// docs/cache-formats-android.md, "Reading a journal as a stream" and "Appending and compacting"):
/// only one line's bytes are ever held, a line over `DiskLruJournal.lineLimit` is refused without
/// being held, a flush adds only its own lines, and the journal is rewritten exactly when the
/// library's own rule says so.
@Suite struct JournalStreamTests {
    typealias Random = SplitMix64

    static let glideHeader = GlideFormat.layout.header
    static func key(_ n: Int) -> String { Digest.sha256Hex("https://app.example/\(n).png") }

    /// A journal index of a new folder holding `text` as its journal.
    static func index(_ temp: TemporaryFolder, _ text: [UInt8], layout: JournalIndex.Layout = GlideFormat.layout)
        throws -> JournalIndex
    {
        let location = CacheLocation(folder: temp.path("cache"))
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: location.privateFolder, withIntermediateDirectories: true)
        try Data(text).write(to: URL(fileURLWithPath: location.folder + "/journal"))
        return JournalIndex(location: location, layout: layout)
    }

    static func journalBytes(_ index: JournalIndex) -> [UInt8] {
        FileManager.default.contents(atPath: index.folderPath + "/journal").map([UInt8].init) ?? []
    }

    static func inode(_ index: JournalIndex) throws -> UInt64 {
        try FileSystem.status(ofPath: index.folderPath + "/journal", followingLinks: false).inode
    }

    /// Whatever the bytes and wherever the chunks end (a byte at a time, inside a `\r\n`…), the
    /// stream reader reads the journal the whole-bytes parse reads, or refuses it at the same line.
    @Test func chunksOfAnySizeReadTheSameJournal() {
        var random = Random(state: PropertyTests.seed &+ 38)
        for (header, dialect) in [
            (Self.glideHeader, DiskLruJournal.Dialect.javaSplit),
            (DiskLruJournal.Header(appVersion: 3, valueCount: 2), .kotlinSplit),
        ] {
            for iteration in 0..<JournalPropertyTests.iterations {
                let bytes = JournalPropertyTests.randomJournal(
                    &random, header: String(decoding: header.bytes, as: UTF8.self), valueCount: header.valueCount)
                let whole = Result { () throws(DiskLruJournal.Corruption) in
                    try DiskLruJournal.parse(bytes, header: header, dialect: dialect)
                }
                var reader = DiskLruJournal.Reader(header: header, dialect: dialect)
                let streamed = Result { () throws(DiskLruJournal.Corruption) in
                    var start = 0
                    while start < bytes.count {
                        let end = min(bytes.count, start + 1 + random.below(9))
                        try reader.feed(bytes[start..<end])
                        start = end
                    }
                    return try reader.finish()
                }
                #expect(whole == streamed, "iteration \(iteration): \(String(decoding: bytes, as: UTF8.self))")
                if case .success = streamed { #expect(reader.length == bytes.count) }
            }
        }
    }

    /// A 7 MB journal (200 entries, 100,000 `READ` lines) is read in chunks: the most bytes of a
    /// line held at once is one line's, and the entries are all there.
    @Test func aLongJournalIsReadHoldingOneLine() throws {
        let temp = try TemporaryFolder()
        var text = Self.glideHeader.bytes
        for n in 0..<200 { text += Array("CLEAN \(Self.key(n)) \(n + 1)\n".utf8) }
        for n in 0..<100_000 { text += Array("READ \(Self.key(n % 200))\n".utf8) }
        #expect(text.count > 7_000_000)
        let index = try Self.index(temp, text)
        try index.load()
        #expect(index.listedNames.count == 200)
        #expect(index.accountedBytes == UInt64((1...200).reduce(0, +)))
        #expect(index.mostBufferedLine > 0, "a line crossed a chunk's end")
        #expect(index.mostBufferedLine <= "READ \(Self.key(0))".utf8.count)
    }

    /// A 5 MB line ended by `\n` gets imgwarm's verdict (the journal is unreadable: nothing is
    /// written to it) without being held: at most `lineLimit` bytes of it are kept. The same line
    /// as the unterminated last one is left out, as the library leaves such a line out.
    @Test func anOverLongLineIsRefusedWithoutBeingHeld() throws {
        let temp = try TemporaryFolder()
        let long = Array("READ ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 5 << 20)
        let before = Self.glideHeader.bytes + Array("CLEAN \(Self.key(1)) 7\n".utf8)
        let refused = before + long + Array("\nREAD \(Self.key(1))\n".utf8)
        let index = try Self.index(temp, refused)
        #expect {
            try index.load()
        } throws: { error in
            guard case .notUsed(_, let reason) = error as? CacheIndexError else { return false }
            return reason
                == "line 7: a line longer than \(DiskLruJournal.lineLimit) bytes, which Glide never writes (its keys are 64 hex digits)"
        }
        #expect(index.mostBufferedLine <= DiskLruJournal.lineLimit)
        let untouched = Self.journalBytes(index) == refused
        #expect(untouched, "nothing written")

        let other = try TemporaryFolder()
        let unterminated = try Self.index(other, before + long)
        try unterminated.load()
        #expect(unterminated.listedNames == ["\(Self.key(1)).0"])
        #expect(unterminated.mostBufferedLine <= DiskLruJournal.lineLimit)

        // A line of exactly the limit is read (a `READ` of a key no file can have).
        let third = try TemporaryFolder()
        let atLimit = Array("READ ".utf8) + [UInt8](repeating: 0x62, count: DiskLruJournal.lineLimit - 5)
        let accepted = try Self.index(third, before + atLimit + [0x0A])
        try accepted.load()
        #expect(accepted.listedNames == ["\(Self.key(1)).0"])
    }

    /// An entry keeps one or two lengths below 4 GiB without an array, and any others as read:
    /// every one comes back as given, and a rewrite writes them so.
    @Test func lengthsComeBackAsRead() throws {
        let cases: [[Int64]] = [
            [], [0], [7], [4_294_967_295], [4_294_967_296], [-1], [3, 5], [3, 5, 8], [1 << 40, 2],
        ]
        for lengths in cases {
            let entry = DiskLruJournal.Entry(readable: true, lengths: lengths, recency: 1)
            #expect(entry.lengths == lengths)
            #expect(entry.valueCount == lengths.count)
            var line: [UInt8] = []
            entry.appendLengths(to: &line)
            #expect(String(decoding: line, as: UTF8.self) == lengths.map { " \($0)" }.joined())
        }
        var entry = DiskLruJournal.Entry(lengths: [1 << 40])
        entry.lengths = [9]
        #expect(entry == DiskLruJournal.Entry(lengths: [9]), "one value, however it was held before")
    }

    /// A flush appends its lines to the journal it read: every byte before them is unchanged, the
    /// file is the same (inode), and a stored entry gets its `CLEAN` line after the hits' `READ`s.
    @Test func aFlushAppendsOnlyItsLines() throws {
        let temp = try TemporaryFolder()
        var text = Self.glideHeader.bytes
        for n in 0..<3 { text += Array("DIRTY \(Self.key(n))\nCLEAN \(Self.key(n)) \(n + 1)\n".utf8) }
        let index = try Self.index(temp, text)
        try index.load()
        let inode = try Self.inode(index)
        index.didRead("\(Self.key(2)).0")
        index.didRead("\(Self.key(0)).0")
        try Data(repeating: 1, count: 9).write(to: URL(fileURLWithPath: index.folderPath + "/\(Self.key(7)).0"))
        index.didStore("\(Self.key(7)).0")
        // Stored, not listed until the flush: the count of listing flushes moves with it.
        #expect(index.awaitsListing("\(Self.key(7)).0"))
        #expect(index.listingFlushes == 0)
        try index.flush(force: true, lockTimeout: 5)
        #expect(!index.awaitsListing("\(Self.key(7)).0"))
        #expect(index.listingFlushes == 1)
        let added = "READ \(Self.key(2))\nREAD \(Self.key(0))\nCLEAN \(Self.key(7)) 9\n"
        #expect(Self.journalBytes(index) == text + Array(added.utf8))
        #expect(try Self.inode(index) == inode)

        // Another process appends meanwhile: its line is kept, imgwarm's goes after it.
        let foreign = Array("READ \(Self.key(1))\n".utf8)
        let handle = try #require(FileHandle(forWritingAtPath: index.folderPath + "/journal"))
        handle.seekToEndOfFile()
        handle.write(Data(foreign))
        try handle.close()
        index.didRead("\(Self.key(7)).0")
        try index.flush(force: true, lockTimeout: 5)
        #expect(Self.journalBytes(index) == text + Array(added.utf8) + foreign + Array("READ \(Self.key(7))\n".utf8))
        #expect(try Self.inode(index) == inode)
    }

    /// A journal that ends in a line without `\n` (a crash mid-append) cannot take more lines: the
    /// next flush rewrites it without that line, as the library does, and appends again after; a
    /// lone `journal.bkp` is written as a new `journal` and removed.
    @Test func anUnterminatedJournalOrABackupIsRewritten() throws {
        let temp = try TemporaryFolder()
        let text =
            Self.glideHeader.bytes + Array("CLEAN \(Self.key(1)) 4\nREAD \(Self.key(1))\nCLEAN \(Self.key(2)) 9".utf8)
        let index = try Self.index(temp, text)
        try index.load()
        index.didRead("\(Self.key(1)).0")
        try index.flush(force: true, lockTimeout: 5)
        let rewritten = Self.glideHeader.bytes + Array("CLEAN \(Self.key(1)) 4\n".utf8)
        #expect(Self.journalBytes(index) == rewritten)
        index.didRead("\(Self.key(1)).0")
        try index.flush(force: true, lockTimeout: 5)
        #expect(Self.journalBytes(index) == rewritten + Array("READ \(Self.key(1))\n".utf8))

        let other = try TemporaryFolder()
        let backup = try Self.index(other, Self.glideHeader.bytes + Array("CLEAN \(Self.key(3)) 2\n".utf8))
        try FileManager.default.moveItem(
            atPath: backup.folderPath + "/journal", toPath: backup.folderPath + "/journal.bkp")
        try backup.load()
        backup.didRead("\(Self.key(3)).0")
        try backup.flush(force: true, lockTimeout: 5)
        #expect(Self.journalBytes(backup) == Self.glideHeader.bytes + Array("CLEAN \(Self.key(3)) 2\n".utf8))
        #expect(!FileManager.default.fileExists(atPath: backup.folderPath + "/journal.bkp"))
    }

    /// A journal of `entries` `CLEAN` lines and `redundant` `READ` lines, with the index on it.
    static func journal(_ temp: TemporaryFolder, layout: JournalIndex.Layout, entries: Int, redundant: Int) throws
        -> JournalIndex
    {
        let lengths = layout.header.valueCount == 2 ? "0 5" : "5"
        var text = layout.header.bytes
        for n in 0..<entries { text += Array("CLEAN \(key(n)) \(lengths)\n".utf8) }
        for n in 0..<redundant { text += Array("READ \(key(n % entries))\n".utf8) }
        let index = try Self.index(temp, text, layout: layout)
        try index.load()
        return index
    }

    /// Glide rewrites its journal once 2,000 lines are redundant and no fewer than its entries;
    /// Coil once 2,000 are: imgwarm appends until the same count and then rewrites the journal as
    /// the library does (header, one `CLEAN` line an entry, least recently used first), which both
    /// readers accept with the same entries.
    @Test(arguments: [(GlideFormat.layout, true), (CoilFormat().layout, false)])
    func compactionFollowsTheLibrarysRule(_ layout: JournalIndex.Layout, needsEntryCount: Bool) throws {
        let model: DiskLruReaderModel = layout.dialect == .javaSplit ? .glide : .coil
        let header = layout.header
        // 2,500 entries: 2,000 redundant lines are enough for Coil, not for Glide.
        let temp = try TemporaryFolder()
        let many = try Self.journal(temp, layout: layout, entries: 2500, redundant: 1998)
        let name = "\(Self.key(0)).\(layout.dataIndex)"
        for expectedAppend in [true, needsEntryCount] {
            let before = Self.journalBytes(many)
            many.didRead(name)
            try many.flush(force: true, lockTimeout: 5)
            let after = Self.journalBytes(many)
            if expectedAppend {
                let appended = after == before + Array("READ \(Self.key(0))\n".utf8)
                #expect(appended, "only the READ line added")
            } else {
                #expect(after.count < before.count, "rewritten without its READ lines")
            }
        }

        // 1,000 entries: at 2,000 redundant lines both libraries rewrite.
        let small = try TemporaryFolder()
        let few = try Self.journal(small, layout: layout, entries: 1000, redundant: 1999)
        let opened = try model.open(
            folder: few.folderPath, appVersion: header.appVersion, valueCount: header.valueCount)
        few.didRead(name)
        try few.flush(force: true, lockTimeout: 5)
        let lengths = header.valueCount == 2 ? "0 5" : "5"
        // LRU order before the hit: 999 (read once), then 0…998 (read twice); the hit moves 0 last.
        let order = [Self.key(999)] + (1..<999).map(Self.key) + [Self.key(0)]
        let expected = header.bytes + Array(order.map { "CLEAN \($0) \(lengths)\n" }.joined().utf8)
        let rewritten = Self.journalBytes(few) == expected
        #expect(rewritten, "the library's rewrite")
        for reader in [DiskLruReaderModel.glide, .coil] {
            let rebuilt = try reader.open(
                folder: few.folderPath, appVersion: header.appVersion, valueCount: header.valueCount)
            #expect(rebuilt.order == order)
            #expect(rebuilt.entries == opened.entries)
            #expect(rebuilt.lineCount == 1000)
        }
        // The next hit appends to the rewritten journal.
        few.didRead("\(Self.key(5)).\(layout.dataIndex)")
        try few.flush(force: true, lockTimeout: 5)
        let next = Self.journalBytes(few) == expected + Array("READ \(Self.key(5))\n".utf8)
        #expect(next, "appended after the rewrite")
    }

    /// The rule itself, and the rewrite of entries being edited and of entries only named by
    /// `READ` (the first is kept as `DIRTY`, the second left out: it serves nothing).
    @Test func theRebuildRuleAndWhatARewriteKeeps() throws {
        let header = Self.glideHeader
        func journal(entries: Int, reads: Int) throws -> DiskLruJournal {
            var text = header.bytes
            for n in 0..<entries { text += Array("CLEAN \(Self.key(n)) 1\n".utf8) }
            for _ in 0..<reads { text += Array("READ \(Self.key(0))\n".utf8) }
            return try DiskLruJournal.parse(text, header: header, dialect: .javaSplit)
        }
        #expect(try !journal(entries: 10, reads: 1999).needsRebuild(.redundantReachesEntries))
        #expect(try journal(entries: 10, reads: 2000).needsRebuild(.redundantReachesEntries))
        #expect(try !journal(entries: 2001, reads: 2000).needsRebuild(.redundantReachesEntries))
        #expect(try journal(entries: 2001, reads: 2000).needsRebuild(.redundantOnly))
        #expect(try !journal(entries: 2001, reads: 1999).needsRebuild(.redundantOnly))

        let text =
            header.bytes
            + Array("CLEAN \(Self.key(1)) 4\nREAD \(Self.key(2))\nDIRTY \(Self.key(3))\nREAD \(Self.key(1))\n".utf8)
        let parsed = try DiskLruJournal.parse(text, header: header, dialect: .javaSplit)
        let rebuilt = String(decoding: parsed.rebuilt(header: header), as: UTF8.self)
        #expect(
            rebuilt == String(decoding: header.bytes, as: UTF8.self) + "DIRTY \(Self.key(3))\nCLEAN \(Self.key(1)) 4\n")
    }
}
