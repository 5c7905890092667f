import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// `clean` for Kingfisher and Nuke on real folders (docs/cache-formats.md), checked against
/// models of the libraries' own passes written here from their source, sharing nothing with
/// `DiskCache+Clean.swift`:
///
/// * Kingfisher 8.11.0 `DiskStorage.Backend.removeExpiredValues`: a file whose modification
///   time (its estimated expiration date) is not after now goes. `removeSizeExceededValues`:
///   when the sum of `fileSize` (logical) is at or above `sizeLimit`, files sorted by
///   `creationDate` are removed oldest first while the total is above `sizeLimit / 2`.
/// * Nuke 13.2.0 `DataCache.performSweep`: when the sum of `totalFileAllocatedSize` is above
///   `sizeLimit`, files sorted by `contentAccessDate` are removed oldest first while the total
///   is above `Int(Double(sizeLimit) * 0.7)`. Nothing expires by age.
@Suite struct FormatCleanTests {
    let now = Timestamp.now()

    /// A folder of one format, its files named as the format names them (the guard is on).
    final class Folder {
        let temp: TemporaryFolder
        let location: CacheLocation
        private var serial = 0

        init(_ format: any CacheFormat) throws {
            temp = try TemporaryFolder()
            location = CacheLocation(folder: temp.path("cache"), format: format)
            try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        }

        /// A new entry name of the format's shape: the digest of a serial number.
        func nextName() -> String {
            serial += 1
            return (try? location.entryName(forKey: "key-\(serial)", index: nil)) ?? ""
        }

        /// Writes `size` bytes under a new entry name, with these times; returns the name.
        @discardableResult
        func file(size: Int = 1000, atime: Timestamp, mtime: Timestamp) throws -> String {
            let name = nextName()
            try Data(repeating: 0x42, count: size).write(to: URL(fileURLWithPath: path(name)))
            try setTimes(name, atime: atime, mtime: mtime)
            return name
        }

        func path(_ name: String) -> String { location.folder + "/" + name }

        func setTimes(_ name: String, atime: Timestamp, mtime: Timestamp) throws {
            var times = [
                timespec(tv_sec: Int(atime.seconds), tv_nsec: Int(atime.nanoseconds)),
                timespec(tv_sec: Int(mtime.seconds), tv_nsec: Int(mtime.nanoseconds)),
            ]
            guard utimensat(AT_FDCWD, path(name), &times, AT_SYMLINK_NOFOLLOW) == 0 else { throw POSIXError(.EIO) }
        }

        func names() throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: location.folder))
        }

        /// `names` oldest change time first, then by name: the order where the file system has
        /// no birth times (its times may be whole seconds: ext2 with small inodes).
        func byChangeTime(_ names: [String]) throws -> [String] {
            let times = try names.map { name -> (String, Int, Int) in
                var info = stat()
                guard lstat(path(name), &info) == 0 else { throw POSIXError(.ENOENT) }
                return (name, info.st_ctim.tv_sec, info.st_ctim.tv_nsec)
            }
            return times.sorted { ($0.1, $0.2, $0.0) < ($1.1, $1.2, $1.0) }.map(\.0)
        }

        /// `st_blocks × 512` of a file, as the model adds it up.
        func allocated(_ name: String) throws -> UInt64 {
            var info = stat()
            guard lstat(path(name), &info) == 0 else { throw POSIXError(.ENOENT) }
            return UInt64(info.st_blocks) * 512
        }

        func clean(maxSize: UInt64, dryRun: Bool = false, now: Timestamp) throws -> (
            DiskCache.CleanResult, [DiskCache.Removal]
        ) {
            var configuration = CleanJob.Configuration()
            let rules = location.format.cleanRules
            if let date = rules.trimDate { configuration.policy.expireType = date }
            configuration.policy.maxAge = .never
            configuration.policy.maxSize = maxSize
            configuration.dryRun = dryRun
            var removed: [DiskCache.Removal] = []
            let result = try CleanJob(location: location, configuration: configuration).run(now: now) { event in
                if case .removed(let removal) = event { removed.append(removal) }
            }
            return (result, removed)
        }
    }

    /// Kingfisher's expiry model: expired when the modification time is at or before now.
    static func kingfisherExpired(mtime: Timestamp, now: Timestamp) -> Bool { !(mtime > now) }

    @Test(arguments: ["kingfisher", "kingfisher7"]) func kingfisherRemovesExactlyTheExpiredFiles(format: String) throws
    {
        let folder = try Folder(try #require(CacheFormats.named(format)))
        let now = Timestamp(seconds: now.seconds)
        let old = now.adding(seconds: -30 * 86400)
        var mtimes: [String: Timestamp] = [:]
        // At or before now: expired, whatever the access time says. After now: kept, even a file
        // read a month ago.
        for (atime, mtime) in [
            (now, now.adding(seconds: -86400)), (now, now), (now, now.adding(seconds: -1)),
            (old, now.adding(seconds: 1)), (old, now.adding(seconds: 7 * 86400)), (now, now.adding(seconds: 3600)),
        ] {
            mtimes[try folder.file(atime: atime, mtime: mtime)] = mtime
        }
        let expected = Set(mtimes.filter { FormatCleanTests.kingfisherExpired(mtime: $0.value, now: now) }.keys)
        #expect(expected.count == 3)

        let (dry, wouldGo) = try folder.clean(maxSize: 0, dryRun: true, now: now)
        #expect(Set(wouldGo.map(\.entry.name)) == expected && dry.expired == 3)
        #expect(try folder.names() == Set(mtimes.keys), "a dry run deletes nothing")

        let (result, removed) = try folder.clean(maxSize: 0, now: now)
        #expect(Set(removed.map(\.entry.name)) == expected)
        #expect(removed.allSatisfy { $0.reason == .expired })
        #expect(result.expired == 3 && result.trimmed == 0)
        #expect(try folder.names() == Set(mtimes.keys).subtracting(expected))
    }

    /// Files made one after another: their birth times increase. Then their access and
    /// modification times are set newest-first, so the change times run the other way, and the
    /// modification times (all in the future, nothing expired) run the other way too: only the
    /// birth time gives the order the model expects.
    func kingfisherFolder(count: Int, size: Int = 1000) throws -> (Folder, [String]) {
        let folder = try Folder(KingfisherFormat(.sha256))
        var names: [String] = []
        for _ in 0..<count {
            let name = folder.nextName()
            try Data(repeating: 0x42, count: size).write(to: URL(fileURLWithPath: folder.path(name)))
            names.append(name)
            // More than a clock tick (the kernel stamps times from a clock that moves every
            // 1–10 ms): equal birth times would leave the order to the names.
            Thread.sleep(forTimeInterval: 0.012)
        }
        for (index, name) in names.enumerated().reversed() {
            let mtime = now.adding(seconds: Double(86400 + 60 * (count - index)))
            try folder.setTimes(name, atime: now.adding(seconds: -Double(index)), mtime: mtime)
            Thread.sleep(forTimeInterval: 0.012)
        }
        return (folder, names)
    }

    /// Kingfisher's size pass model: the names removed, oldest birth first.
    static func kingfisherTrim(_ oldestFirst: [String], size: UInt64, limit: UInt64) -> [String] {
        var total = size * UInt64(oldestFirst.count)
        guard limit > 0, total >= limit else { return [] }
        var removed: [String] = []
        for name in oldestFirst where total > limit / 2 {
            removed.append(name)
            total -= size
        }
        return removed
    }

    @Test(arguments: [
        // (limit, files removed): 4 files of 1000 bytes, 4000 logical bytes, 16 KiB allocated.
        (4001 as UInt64, 0),  // below the limit: nothing (allocated bytes would have trimmed)
        (4000, 2),  // at the limit: the pass starts, and stops at 2000 ≤ 4000 / 2
        (3999, 3),  // 3999 / 2 = 1999: 2000 is still above it
        (2000, 3),  // 4000 ≥ 2000; down to 1000 ≤ 2000 / 2
        (1, 4),
    ])
    func kingfisherSizePassByBirthTime(limit: UInt64, count: Int) throws {
        let (folder, names) = try kingfisherFolder(count: 4)
        // Where the file system records no birth times the change time stands in (set newest
        // first above, so the order runs the other way), and the result says so.
        let directory = try FileDescriptor.openFolder(folder.location.folder)
        let hasBirthTimes = try directory.birthTime(of: names[0]) != nil
        directory.close()
        let order = hasBirthTimes ? names : try folder.byChangeTime(names)
        let expected = FormatCleanTests.kingfisherTrim(order, size: 1000, limit: limit)
        #expect(expected.count == count, "the model itself")
        let (result, removed) = try folder.clean(maxSize: limit, now: now)
        #expect(removed.map(\.entry.name) == expected, "oldest birth time first")
        #expect(removed.allSatisfy { $0.reason == .trimmed })
        #expect(result.trimmed == count && result.expired == 0)
        #expect(result.orderedByChangeTime == !hasBirthTimes)
        #expect(try folder.names() == Set(names).subtracting(expected))
    }

    @Test func kingfisherExpiresFirstThenTrimsWhatRemains() throws {
        let (folder, names) = try kingfisherFolder(count: 4)
        // The newest file expired: after the expiry pass 3000 bytes remain, below a 3500 limit.
        try folder.setTimes(names[3], atime: now, mtime: now.adding(seconds: -1))
        let (result, removed) = try folder.clean(maxSize: 3500, now: now)
        #expect(removed.map(\.entry.name) == [names[3]])
        #expect(result.expired == 1 && result.trimmed == 0)
        // With 3000 as the limit the three left start the pass and the two oldest go (≤ 1500).
        let byChangeTime = try folder.byChangeTime(Array(names[0..<3]))
        let (again, trimmed) = try folder.clean(maxSize: 3000, now: now)
        let oldest = again.orderedByChangeTime ? Array(byChangeTime.prefix(2)) : [names[0], names[1]]
        #expect(trimmed.map(\.entry.name) == oldest)
        #expect(again.trimmed == 2)
    }

    /// Nuke's sweep model, from `performSweep`: the names removed, oldest access first.
    static func nukeSweep(_ files: [(name: String, atime: Timestamp, allocated: UInt64)], limit: UInt64) -> [String] {
        var total = files.reduce(0) { $0 + $1.allocated }
        guard total > limit else { return [] }
        let target = UInt64(Int(Double(limit) * 0.7))
        var removed: [String] = []
        for file in files.sorted(by: { $0.atime != $1.atime ? $0.atime < $1.atime : $0.name < $1.name })
        where total > target {
            removed.append(file.name)
            total -= file.allocated
        }
        return removed
    }

    @Test func nukeSweepsOldestAccessToSeventyPercent() throws {
        let folder = try Folder(NukeFormat())
        // Access times in an order unlike the creation and modification order.
        let order = [3, 0, 4, 1, 2]
        var files: [(name: String, atime: Timestamp, allocated: UInt64)] = []
        for rank in order {
            let atime = now.adding(seconds: -Double(1000 - rank * 10))
            let name = try folder.file(size: 1000, atime: atime, mtime: now.adding(seconds: -Double(rank)))
            files.append((name, atime, try folder.allocated(name)))
        }
        let unit = files[0].allocated
        #expect(unit > 1000 && files.allSatisfy { $0.allocated == unit }, "allocated sizes, not 1000 bytes")
        let total = unit * 5
        // At the limit: nothing (the sweep needs strictly more); even though 5000 logical bytes are far below it.
        #expect(FormatCleanTests.nukeSweep(files, limit: total).isEmpty)
        let (atLimit, none) = try folder.clean(maxSize: total, now: now)
        #expect(none.isEmpty && atLimit.removedCount == 0)
        // Logical sizes would be under 5000: a limit of 5000 still sweeps by allocated bytes.
        for limit in [total - 1, 5000, unit * 2] {
            let expected = FormatCleanTests.nukeSweep(files, limit: limit)
            let (dry, wouldGo) = try folder.clean(maxSize: limit, dryRun: true, now: now)
            #expect(wouldGo.map(\.entry.name) == expected, "limit \(limit)")
            #expect(dry.trimmed == expected.count && dry.expired == 0)
        }
        // total - 1 = 5u - 1 > 70 %: two files go (5u → 3u ≤ 3.5u - 0.7), the two least recently read.
        let expected = FormatCleanTests.nukeSweep(files, limit: total - 1)
        #expect(expected.count == 2)
        let (result, removed) = try folder.clean(maxSize: total - 1, now: now)
        #expect(removed.map(\.entry.name) == expected)
        #expect(result.trimmed == 2)
        #expect(try folder.names() == Set(files.map(\.name)).subtracting(expected))
    }

    /// The streaming size pass (pages of the files at the cut, several walks) removes what
    /// Nuke's sweep removes, with many ties of access dates. Nuke's sort leaves the order of
    /// ties open; the model breaks them by name, as `clean` does.
    @Test(arguments: [1, 3, 40, 32768]) func nukeSweepStreamsLikeTheFullSort(pageCapacity: Int) throws {
        let folder = try Folder(NukeFormat())
        var files: [(name: String, atime: Timestamp, allocated: UInt64)] = []
        var state = UInt64(pageCapacity) &* 0x9E37_79B9_7F4A_7C15 | 1
        func random(_ bound: UInt64) -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state % bound
        }
        for _ in 0..<120 {
            let atime = now.adding(seconds: -Double(86400 + random(8) * 60))
            let name = try folder.file(size: Int(random(3)) * 4096 + 1, atime: atime, mtime: atime)
            files.append((name, atime, try folder.allocated(name)))
        }
        let total = files.reduce(0) { $0 + $1.allocated }
        for limit in [total - 1, total / 2 + 3, total / 3, 90] {
            let sorted = files.sorted { $0.atime != $1.atime ? $0.atime < $1.atime : $0.name < $1.name }
            let expected = FormatCleanTests.nukeSweep(sorted, limit: limit)
            var policy = DiskCache.CleanPolicy()
            policy.expireType = .access
            policy.maxAge = .never
            policy.maxSize = limit
            let cache = DiskCache(location: folder.location)
            let survey = try cache.survey(policy: policy, now: now)
            let directory = try cache.openFolder()
            defer { directory.close() }
            var removed: [String] = []
            let result = try cache.clean(
                survey, in: directory, policy: policy, now: now, pageCapacity: pageCapacity,
                remove: { _ throws(DiskCache.RemovalError) in },
                observe: { if case .removed(let removal) = $0 { removed.append(removal.entry.name) } })
            #expect(Set(removed) == Set(expected), "page \(pageCapacity), limit \(limit)")
            #expect(removed.count == expected.count && result.trimmed == expected.count)
        }
    }

    @Test func nukeNeverExpiresByAge() throws {
        let folder = try Folder(NukeFormat())
        let ancient = Timestamp(seconds: 86400)
        let name = try folder.file(atime: ancient, mtime: ancient)
        let (result, removed) = try folder.clean(maxSize: 0, now: now)
        #expect(removed.isEmpty && result.removedCount == 0)
        #expect(try folder.names() == [name])
    }

    /// The boundaries as numbers: Kingfisher ≥ limit starts, ≤ limit / 2 stops; Nuke > limit
    /// starts, ≤ Int(Double(limit) * 0.7) stops (floating point: 90 → 62, not 63).
    @Test func trimBoundaries() {
        let kingfisher = KingfisherFormat(.sha256).cleanRules
        #expect(kingfisher.trimThreshold(limit: 4000) == 3999 && kingfisher.trimGoal(limit: 4000) == 2001)
        #expect(kingfisher.trimGoal(limit: 3999) == 2000)
        #expect(kingfisher.measure == .logical && kingfisher.trimDate == .creation && kingfisher.expiry == .stamped)
        let nuke = NukeFormat().cleanRules
        #expect(nuke.trimThreshold(limit: 100) == 100 && nuke.trimGoal(limit: 100) == 71)
        #expect(nuke.trimGoal(limit: 90) == 63, "Int(90 * 0.7) is 62: at most 62 stays")
        #expect(nuke.trimGoal(limit: 150 << 20) == 110_100_480 + 1)
        #expect(nuke.measure == .allocated && nuke.trimDate == .access && nuke.expiry == CleanRules.Expiry.none)
        #expect(nuke.defaultMaxSize == 150 << 20 && kingfisher.defaultMaxSize == 0)
        let sd = SDWebImageFormat().cleanRules
        #expect(sd.trimThreshold(limit: 100) == 100 && sd.trimGoal(limit: 100) == 50)
    }

    @Test func kingfisherGuardWantsSixtyFourHexDigits() throws {
        let folder = try Folder(KingfisherFormat(.sha256))
        try folder.file(atime: now, mtime: now.adding(seconds: 3600))
        let survey = try DiskCache(location: folder.location).survey(policy: .init(), now: now)
        #expect(survey.foreignCount == 0)
        let sdName = SDFileName.forKey("https://example.com/a.jpg")
        try Data([1]).write(to: URL(fileURLWithPath: folder.path(sdName)))
        var configuration = CleanJob.Configuration()
        configuration.dryRun = true
        let error = #expect(throws: DiskCacheError.self) {
            _ = try CleanJob(location: folder.location, configuration: configuration).run(now: now)
        }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains(sdName) && message.contains("64 hex digits, no extension"), "\(message)")
        #expect(try folder.names().count == 2, "nothing deleted")
    }

    @Test func statisticsCountEntriesForeignFilesAndExpired() throws {
        let folder = try Folder(KingfisherFormat(.sha256))
        try folder.file(atime: now, mtime: now.adding(seconds: 3600))
        try folder.file(atime: now, mtime: now.adding(seconds: -3600))
        try folder.file(atime: now, mtime: now)
        try Data([1]).write(to: URL(fileURLWithPath: folder.path("notes.txt")))
        let stats = try DiskCache(location: folder.location).statistics(expireType: .modification, now: now)
        #expect(stats.files == 4 && stats.formatEntries == 3 && stats.foreignFiles == 1)
        #expect(stats.expiredEntries == 2)

        let nuke = try Folder(NukeFormat())
        try nuke.file(atime: now, mtime: now.adding(seconds: -3600))
        let nukeStats = try DiskCache(location: nuke.location).statistics(expireType: .access, now: now)
        #expect(nukeStats.formatEntries == 1 && nukeStats.foreignFiles == 0 && nukeStats.expiredEntries == nil)
    }
}
