import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// The streaming clean (a survey, a histogram by date, then a walk that deletes) removes exactly
/// what SDWebImage's full sort removes: the same files for the same reasons, ties in date broken
/// by name, files that cannot be removed not counted, whatever the page size and however the
/// cut falls. The reference below is the sort of every entry, as `clean` was before it streamed.
@Suite struct CleanStreamingTests {

    /// SDWebImage's algorithm over a full scan: expired first, then the sort by (date, name).
    static func reference(
        _ scan: DiskCache.Scan, policy: DiskCache.CleanPolicy, now: Timestamp, failing: Set<String>
    ) -> (removed: [String: DiskCache.RemovalReason], remaining: UInt64) {
        var removed: [String: DiskCache.RemovalReason] = [:]
        let expiration = policy.maxAge.seconds.map { now.adding(seconds: -$0) }
        var remaining: [CacheEntry] = []
        var currentSize: UInt64 = 0
        for entry in scan.entries where entry.kind == .file && !entry.isHidden {
            if let expiration, entry.date <= expiration {
                if !failing.contains(entry.name) { removed[entry.name] = .expired }
                continue
            }
            remaining.append(entry)
            currentSize += entry.allocatedSize
        }
        if policy.maxSize > 0 && currentSize > policy.maxSize {
            let desired = policy.maxSize / 2
            remaining.sort { x, y in x.date != y.date ? x.date < y.date : x.name < y.name }
            for entry in remaining where !failing.contains(entry.name) {
                removed[entry.name] = .trimmed
                currentSize -= entry.allocatedSize
                if currentSize < desired { break }
            }
        }
        return (removed, currentSize)
    }

    @Test(arguments: [1, 3, 7, 40, 32768])
    func streamingRemovesWhatTheFullSortRemoves(pageCapacity: Int) throws {
        var random = SplitMix64(state: UInt64(pageCapacity))
        let now = Timestamp.now()
        for round in 0..<6 {
            let temp = try TemporaryFolder()
            let location = CacheLocation(folder: temp.path("cache"))
            try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
            // Few distinct dates (ties by the dozen), some a nanosecond apart, sizes of 0 to 3 blocks.
            let count = 150 + Int(random.next() % 100)
            for index in 0..<count {
                let name = String(format: "%032x", Int(random.next() % 100_000)) + "-\(index).jpg"
                let path = location.folder + "/" + name
                let blocks = Int(random.next() % 4)
                try Data(repeating: 0x41, count: blocks * 4096).write(to: URL(fileURLWithPath: path))
                let spread = round % 2 == 0 ? 12 : 3000
                let seconds = now.seconds - 86400 - Int64(random.next() % UInt64(spread)) * 60
                let nanos = Int64(random.next() % 3)
                var times = [
                    timespec(tv_sec: Int(seconds), tv_nsec: Int(nanos)),
                    timespec(tv_sec: Int(seconds), tv_nsec: Int(nanos)),
                ]
                #expect(utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0)
            }
            let cache = DiskCache(location: location)
            var policy = DiskCache.CleanPolicy()
            let scan = try cache.scan(expireType: .access)
            let total = scan.entries.reduce(UInt64(0)) { $0 + $1.allocatedSize }
            policy.maxSize = [total / 3, total / 2 + 1, total - 1, 8191, 1][round % 5]
            policy.maxAge = round % 3 == 0 ? .after(seconds: 86400 + 600 * 60) : .never
            let failing = Set(scan.entries.map(\.name).filter { _ in random.next() % 7 == 0 })
            let expected = CleanStreamingTests.reference(scan, policy: policy, now: now, failing: failing)

            let survey = try cache.survey(policy: policy, now: now)
            let directory = try cache.openFolder()
            defer { directory.close() }
            var removed: [String: DiskCache.RemovalReason] = [:]
            var trimmedOrder: [CacheEntry] = []
            var failed = 0
            let result = try cache.clean(
                survey, in: directory, policy: policy, now: now, pageCapacity: pageCapacity,
                remove: { entry throws(DiskCache.RemovalError) in
                    if failing.contains(entry.name) { throw .system(SystemError(code: EACCES)) }
                    try cache.removeIfUnchanged(entry, in: directory, expireType: .access)
                },
                observe: { event in
                    switch event {
                    case .removed(let removal):
                        #expect(removed[removal.entry.name] == nil, "removed twice: \(removal.entry.name)")
                        removed[removal.entry.name] = removal.reason
                        if removal.reason == .trimmed { trimmedOrder.append(removal.entry) }
                    case .failed: failed += 1
                    }
                })
            let context = "page \(pageCapacity), round \(round), max size \(policy.maxSize), \(count) files"
            #expect(removed == expected.removed, "\(context)")
            #expect(result.remainingCounted == expected.remaining, "\(context)")
            #expect(result.removedCount == expected.removed.count, "\(context)")
            #expect(result.failed == failed, "\(context)")
            #expect(result.after.entries == result.before.entries - expected.removed.count, "\(context)")
            let left = Set(try FileManager.default.contentsOfDirectory(atPath: location.folder))
            #expect(left == Set(scan.entries.map(\.name)).subtracting(expected.removed.keys), "\(context)")
            // When everything up to the cut fits in one page, the trimmed files come in sorted order.
            if pageCapacity >= count {
                #expect(
                    trimmedOrder.map(\.name)
                        == trimmedOrder.sorted { x, y in x.date != y.date ? x.date < y.date : x.name < y.name }.map(
                            \.name), "\(context)")
            }
        }
    }

    /// A dry run that pages (ties beyond the page capacity) lists each file once, as the real run.
    @Test func dryRunWithManyPagesListsEachFileOnce() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("cache"))
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        let date = Timestamp.now().adding(seconds: -3600)
        for index in 0..<60 {
            let path = location.folder + "/" + String(format: "%032x.png", index * 7919 % 1000)
            try Data(repeating: 1, count: 4096).write(to: URL(fileURLWithPath: path))
            var times = [date.timeValue, date.timeValue]
            #expect(utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0)
        }
        let cache = DiskCache(location: location)
        var policy = DiskCache.CleanPolicy()
        policy.maxSize = 30 * 4096
        let now = Timestamp.now()
        let survey = try cache.survey(policy: policy, now: now)
        let directory = try cache.openFolder()
        defer { directory.close() }
        var names: [String] = []
        let result = try cache.clean(
            survey, in: directory, policy: policy, now: now, pageCapacity: 4, remove: { _ in },
            observe: { event in if case .removed(let removal) = event { names.append(removal.entry.name) } })
        // 60 × 4096 > 30 × 4096; below 15 × 4096 means 46 go, the 46 smallest names (same date).
        #expect(names.count == 46)
        #expect(names == names.sorted())
        #expect(Set(names).count == 46)
        #expect(result.passes > 2, "the tie was paged through")
        #expect(try FileManager.default.contentsOfDirectory(atPath: location.folder).count == 60)
    }
}
