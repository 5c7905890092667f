import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// The Input stage alone, on list files and without a server: keys, shards, duplicates and
/// invalid lines, and what reaches the spools (issue 22).
@Suite struct LineIngestTests {
    struct Read {
        var invalid: [Int] = []
        var duplicates: [Int] = []
        var otherShard = 0
        var unsupported: [Int] = []
        var queued: [PendingEntry] = []
        var urlLines = 0
    }

    func read(
        _ lines: [String], name: String = "list.txt", keyFilters: [String] = [], shard: String? = nil,
        memoryLimit: Int = 1000
    ) throws -> Read {
        let temp = try TemporaryFolder()
        let list = try temp.write(name, Data((lines.joined(separator: "\n") + "\n").utf8))
        let ingest = LineIngest(
            sources: [ListSource(path: list)], keyFilters: try KeyFilterChain(specs: keyFilters),
            shard: try shard.map { try Shard(parsing: $0) }, duplicateMemoryLimit: memoryLimit,
            scratchFolder: temp.path)
        let spools = try Priority.allCases.sorted().map { try EntrySpool(priority: $0, folder: temp.path) }
        var result = Read()
        try ingest.read(into: spools, order: .fifo) { event in
            switch event {
            case .invalid(let entry): result.invalid.append(entry.line)
            case .duplicate(let entry): result.duplicates.append(entry.line)
            case .unsupported(let entry): result.unsupported.append(entry.line)
            case .otherShard: result.otherShard += 1
            }
        }
        for spool in spools {
            while let entry = spool.next() { result.queued.append(entry) }
        }
        result.urlLines = ingest.urlLines
        return result
    }

    @Test func linesBecomeEntriesInvalidLinesAndDuplicates() throws {
        let read = try read([
            "# comment", "https://a.example/1.png", "not a url", "", "https://a.example/2.png",
            "https://a.example/1.png",
        ])
        #expect(read.invalid == [3])
        #expect(read.duplicates == [6])
        #expect(read.queued.map(\.line) == [2, 5])
        #expect(read.queued.map(\.key) == ["https://a.example/1.png", "https://a.example/2.png"])
        #expect(read.urlLines == 3)
    }

    /// A key filter decides duplicates (two signed URLs of one image); a JSON Lines "key" and
    /// "priority" are kept; the spools hand high priority first.
    @Test func keysAndPrioritiesAreTheLines() throws {
        let filtered = try read(
            ["https://a.example/x.png?token=1", "https://a.example/x.png?token=2"], keyFilters: ["drop-params:token"])
        #expect(filtered.duplicates == [2])
        #expect(filtered.queued.first?.key == "https://a.example/x.png")
        let json = try read(
            [
                #"{"url": "https://a.example/low.png", "priority": "low"}"#,
                #"{"url": "https://a.example/1.png?s=9", "key": "photo-1", "priority": "high"}"#,
            ], name: "list.jsonl")
        #expect(json.queued.map(\.line) == [2, 1])
        #expect(json.queued.first?.key == "photo-1")
        #expect(json.queued.first?.url == "https://a.example/1.png?s=9")
    }

    /// With `--shard`, the two shards split the lines between them, and a duplicate belongs to
    /// the shard of its key.
    @Test func shardsSplitTheLines() throws {
        let lines = (0..<20).map { "https://a.example/\($0).png" } + ["https://a.example/3.png"]
        let first = try read(lines, shard: "1/2")
        let second = try read(lines, shard: "2/2")
        #expect(first.queued.count + second.queued.count == 20)
        #expect(
            first.otherShard == second.queued.count + second.duplicates.count, "shard 2's lines are shard 1's others")
        #expect(first.duplicates.count + second.duplicates.count == 1)
        #expect(Set(first.queued.map(\.key)).isDisjoint(with: second.queued.map(\.key)))
    }

    /// Past the memory limit, duplicates are found after the lists are read and taken out of the
    /// spools: the same lines as with everything in memory.
    @Test func duplicatesPastTheMemoryLimitAreTheSame() throws {
        let lines = (0..<30).map { "https://a.example/\($0 % 12).png" }
        let inMemory = try read(lines)
        let spilled = try read(lines, memoryLimit: 4)
        #expect(Set(spilled.duplicates) == Set(inMemory.duplicates))
        #expect(spilled.queued.map(\.line) == inMemory.queued.map(\.line))
        #expect(inMemory.queued.count == 12)
    }
}
