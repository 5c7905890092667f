import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// imgwarm's journal parser against the readers written from Glide's and Coil's sources
/// (`DiskLruReaderModel`), and random runs of stores, hits, cleans and app histories against both
/// (docs/cache-formats-android.md).
@Suite struct JournalPropertyTests {
    typealias Random = SplitMix64
    static let iterations = max(200, PropertyTests.iterations)

    static let keys = ["k", "", "a0", String(repeating: "f", count: 64), "x y", "UP", "-_"]
    static let operations = ["CLEAN", "DIRTY", "READ", "REMOVE", "clean", "UPDATE", "CLEANX", ""]
    static let lengths = ["0", "3", "15082", "+5", "-1", "", "x", "9223372036854775807", "9223372036854775808", "0x1"]

    /// A random line from fragments the parsers care about: operations, keys, lengths, spaces, `\r`.
    static func randomLine(_ random: inout Random, valueCount: Int) -> String {
        if random.below(3) != 0 {  // a line the libraries accept, most of the time
            let key = random.pick(keys.filter { !$0.contains(" ") })
            switch random.below(4) {
            case 0:
                return "CLEAN \(key)"
                    + (0..<valueCount).map { _ in " " + random.pick(["0", "3", "+5", "-1"]) }.joined()
            case 1: return "DIRTY \(key)"
            case 2: return "READ \(key)"
            default: return "REMOVE \(key)"
            }
        }
        var line = random.pick(operations)
        if random.below(8) != 0 { line += " " + random.pick(keys) }
        for _ in 0..<random.below(4) { line += random.pick([" ", " ", "  "]) + random.pick(lengths) }
        if random.below(10) == 0 { line += " " }
        if random.below(12) == 0 { line += "\r" }
        return line
    }

    static func randomJournal(_ random: inout Random, header: String, valueCount: Int) -> [UInt8] {
        var text = random.below(15) == 0 ? header.replacingOccurrences(of: "\n1\n", with: "\n2\n") : header
        if random.below(20) == 0 { text = String(text.dropLast()) }
        for _ in 0..<random.below(8) {
            text += randomLine(&random, valueCount: valueCount) + (random.below(15) == 0 ? "\r\n" : "\n")
        }
        if random.below(6) == 0 { text += randomLine(&random, valueCount: valueCount) }  // unterminated
        return Array(text.utf8)
    }

    /// Whatever the bytes, imgwarm's parser accepts exactly the journals the reader model of the
    /// same library accepts, and then holds the same entries in the same LRU order.
    @Test(arguments: [(1, 1, DiskLruReaderModel.glide), (3, 2, DiskLruReaderModel.coil)])
    func parserAgreesWithTheLibrariesReaders(appVersion: Int, valueCount: Int, model: DiskLruReaderModel) {
        var random = Random(state: PropertyTests.seed &+ UInt64(appVersion))
        let header = DiskLruJournal.Header(appVersion: appVersion, valueCount: valueCount)
        let dialect: DiskLruJournal.Dialect = model == .glide ? .javaSplit : .kotlinSplit
        var accepted = 0
        for iteration in 0..<Self.iterations {
            let bytes = Self.randomJournal(
                &random, header: String(decoding: header.bytes, as: UTF8.self), valueCount: valueCount)
            let ours = try? DiskLruJournal.parse(bytes, header: header, dialect: dialect)
            let theirs = try? model.read(bytes, appVersion: appVersion, valueCount: valueCount)
            #expect(
                (ours == nil) == (theirs == nil), "iteration \(iteration): \(String(decoding: bytes, as: UTF8.self))")
            guard let ours, let theirs else { continue }
            accepted += 1
            #expect(ours.openEntries.map(\.key) == theirs.order, "iteration \(iteration)")
            for (key, entry) in ours.openEntries {
                #expect(
                    entry.lengths == theirs.entries[key]?.lengths && entry.readable == theirs.entries[key]?.readable)
            }
        }
        #expect(accepted > Self.iterations / 10, "the generator reaches valid journals")
        // Bytes outside ASCII: the libraries decode them to replacement characters; imgwarm refuses.
        let foreign = header.bytes + Array("CLEAN caf\u{E9} 1\n".utf8)
        #expect(throws: DiskLruJournal.Corruption.self) {
            try DiskLruJournal.parse(foreign, header: header, dialect: dialect)
        }
    }

    /// Random interleavings of an app's history, stores, hits, flushes, new runs and cleans (size
    /// limits, `--all`, dry runs) on glide, coil and coil2 folders: after every step the journal
    /// parses with both libraries' rules, and every entry they serve has all its files, those
    /// imgwarm stored with the lengths the journal gives.
    @Test(arguments: ["glide", "coil", "coil2"]) func randomInterleavingsLeaveAJournalBothReadersParse(_ name: String)
        throws
    {
        let format = try #require(CacheFormats.named(name))
        let layout = try #require(CacheLocation(folder: "/x", format: format).makeIndex() as? JournalIndex)
            .layout
        let header = layout.header
        let pool = (0..<10).map { "https://app.example/\($0).png" }
        var random = Random(state: PropertyTests.seed &+ UInt64(header.appVersion * 10 + header.valueCount))
        for round in 0..<40 {
            let temp = try TemporaryFolder()
            let location = CacheLocation(folder: temp.path("cache"), format: format)
            try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
            try writeHistory(&random, location: location, header: header, dataIndex: layout.dataIndex, pool: pool)
            var store: CacheStore? = try CacheStore(location: location)
            var sizes: [String: Int] = [:]
            for step in 0..<14 {
                let key = random.pick(pool)
                let fileName = try location.entryName(forKey: key, index: nil)
                switch random.below(7) {
                case 0, 1, 2:
                    let bytes = [UInt8](repeating: UInt8(step), count: 1 + random.below(3000))
                    try bytes.withUnsafeBytes { try store?.store($0, as: fileName) }
                    sizes[Digest.sha256Hex(key)] = bytes.count
                case 3:
                    if case .hit = store?.lookup(fileName) { store?.touch(fileName) }
                case 4:
                    try store?.flushIndex(lockTimeout: 5)
                case 5:
                    try store?.flushIndex(lockTimeout: 5)
                    store = nil
                    store = try CacheStore(location: location)
                default:
                    try store?.flushIndex(lockTimeout: 5)
                    var configuration = CleanJob.Configuration()
                    configuration.policy.maxSize = UInt64(random.below(8000))
                    configuration.policy.removeAll = random.below(6) == 0
                    configuration.dryRun = random.below(4) == 0
                    configuration.force = true
                    _ = try CleanJob(location: location, configuration: configuration).run()
                    store = try CacheStore(location: location)
                }
                try checkJournal(location.folder, header: header, sizes: [:], context: "round \(round) step \(step)")
            }
            try store?.flushIndex(lockTimeout: 5)
            try checkJournal(location.folder, header: header, sizes: sizes, context: "round \(round) end")
        }
    }

    /// An app's valid history: edits finished and not, reads, removals, a CRLF line, sometimes an
    /// unterminated last line, sometimes only as `journal.bkp`; files for every finished edit.
    func writeHistory(
        _ random: inout Random, location: CacheLocation, header: DiskLruJournal.Header, dataIndex: Int, pool: [String]
    ) throws {
        guard random.below(5) != 0 else { return }
        var text = String(decoding: header.bytes, as: UTF8.self)
        for _ in 0..<random.below(10) {
            let key = Digest.sha256Hex(random.pick(pool))
            switch random.below(5) {
            case 0, 1:
                let size = 1 + random.below(2000)
                for index in 0..<header.valueCount {
                    try Data(repeating: 1, count: index == dataIndex ? size : 0).write(
                        to: URL(fileURLWithPath: "\(location.folder)/\(key).\(index)"))
                }
                let lengths = (0..<header.valueCount).map { $0 == dataIndex ? "\(size)" : "0" }
                text +=
                    "DIRTY \(key)\nCLEAN \(key) \(lengths.joined(separator: " "))"
                    + (random.below(5) == 0 ? "\r\n" : "\n")
            case 2: text += "READ \(key)\n"
            case 3: text += "REMOVE \(key)\n"
            default: text += "DIRTY \(key)\n"
            }
        }
        if random.below(6) == 0 { text += "CLEAN " + Digest.sha256Hex(pool[0]) }
        let name = random.below(6) == 0 ? "journal.bkp" : "journal"
        try Data(text.utf8).write(to: URL(fileURLWithPath: location.folder + "/" + name))
    }

    func checkJournal(_ folder: String, header: DiskLruJournal.Header, sizes: [String: Int], context: String) throws {
        for model in [DiskLruReaderModel.glide, .coil] {
            let opened: DiskLruReaderModel.Opened
            do {
                opened = try model.open(folder: folder, appVersion: header.appVersion, valueCount: header.valueCount)
            } catch {
                Issue.record("\(context): \(model) cannot read the journal: \(error)")
                return
            }
            for key in opened.order where opened.entries[key]?.readable == true {
                for index in 0..<header.valueCount {
                    let path = "\(folder)/\(key).\(index)"
                    #expect(
                        FileManager.default.fileExists(atPath: path), "\(context): \(key).\(index) is listed but absent"
                    )
                }
            }
        }
        // Once everything is flushed, the last CLEAN line of what imgwarm stored gives the file's length.
        let opened = try DiskLruReaderModel.coil.open(
            folder: folder, appVersion: header.appVersion, valueCount: header.valueCount)
        for (key, entry) in opened.entries where entry.readable {
            guard sizes[key] != nil,
                let attributes = try? FileManager.default.attributesOfItem(
                    atPath: "\(folder)/\(key).\(header.valueCount - 1)")
            else { continue }
            #expect(entry.lengths.last == (attributes[.size] as? NSNumber)?.int64Value, "\(context): \(key)")
        }
    }
}
