import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// The duplicate check: the same lines found as with every key in memory, whatever the memory
/// limit, and never more than the limit of keys held.
@Suite struct DuplicateFilterTests {
    /// Random lists of keys from a small alphabet (many repeats), with limits from 1 key to more
    /// than the list: the lines judged duplicates, at once or after `finish()`, are exactly the
    /// lines whose key appeared on an earlier line.
    @Test func findsExactlyTheRepeatedLinesAcrossTheMemoryLimit() throws {
        let temp = try TemporaryFolder()
        var random = SplitMix64(state: 0xD0B1E)
        for round in 0..<200 {
            let limit = 1 + random.below(12)
            let filter = DuplicateFilter(memoryLimit: limit, folder: temp.path)
            var seen = Set<String>()
            var expected = Set<UInt64>()
            var immediate = Set<UInt64>()
            var undecided = Set<UInt64>()
            let count = random.below(60)
            for ordinal in 0..<UInt64(count) {
                let key = "https://example.com/\(random.below(20)).png"
                if !seen.insert(key).inserted { expected.insert(ordinal) }
                switch try filter.check(MD5.digest(Array(key.utf8)), ordinal: ordinal) {
                case .duplicate: immediate.insert(ordinal)
                case .undecided: undecided.insert(ordinal)
                case .first: break
                }
                #expect(filter.rememberedKeys <= limit)
            }
            let marks = try filter.finish()
            let marked = Set((0..<UInt64(count)).filter { marks.contains($0) })
            #expect(marked.isSubset(of: undecided), "round \(round): only undecided lines are marked")
            #expect(immediate.union(marked) == expected, "round \(round), limit \(limit)")
            #expect(marks.count == marked.count)
        }
    }

    /// Under the limit nothing is written out and every verdict is immediate.
    @Test func aSmallListStaysInMemory() throws {
        let temp = try TemporaryFolder()
        let filter = DuplicateFilter(memoryLimit: 100, folder: temp.path)
        let keys = ["a", "b", "a", "c", "b"]
        let verdicts = try keys.enumerated().map { try filter.check(MD5.digest(Array($1.utf8)), ordinal: UInt64($0)) }
        #expect(verdicts == [.first, .first, .duplicate, .first, .duplicate])
        #expect(try filter.finish().count == 0)
        #expect(filter.rememberedKeys == 3)
    }
}
