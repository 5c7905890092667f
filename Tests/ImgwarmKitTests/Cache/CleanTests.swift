import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// SDWebImage's expiry and trim semantics on a real folder whose file times are set with
/// `utimensat`.
@Suite struct CleanTests {
    let now = Timestamp.now()
    let day = 86400.0

    /// A cache folder inside a temporary folder, with helpers to make files of given dates.
    final class Folder {
        let temp: TemporaryFolder
        let location: CacheLocation
        init() throws {
            temp = try TemporaryFolder()
            location = CacheLocation(folder: temp.path("cache"))
            try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        }

        /// Writes `size` bytes to `name` and sets its access and modification times.
        @discardableResult
        func file(_ name: String, size: Int = 4096, atime: Timestamp, mtime: Timestamp) throws -> String {
            let path = location.folder + "/" + name
            try Data(repeating: 0x41, count: size).write(to: URL(fileURLWithPath: path))
            try setTimes(path, atime: atime, mtime: mtime)
            return path
        }

        func setTimes(_ path: String, atime: Timestamp, mtime: Timestamp) throws {
            var times = [atime.timeValue, mtime.timeValue]
            guard utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0 else { throw POSIXError(.EIO) }
        }

        func names() throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: location.folder))
        }

        func clean(_ configure: (inout CleanJob.Configuration) -> Void, now: Timestamp) throws -> Collected {
            var configuration = CleanJob.Configuration()
            // These tests give files readable names to check SDWebImage's semantics; the guard
            // against folders of other files has tests of its own (CleanGuardTests).
            configuration.force = true
            configure(&configuration)
            return try Collected(CleanJob(location: location, configuration: configuration), now: now)
        }
    }

    /// A clean's result with the removals its observer heard of, in order (the job keeps none).
    struct Collected {
        var result: DiskCache.CleanResult
        var removed: [DiskCache.Removal] = []
        var failures: [DiskCache.RemovalFailure] = []
        var before: DiskTotals { result.before }
        var after: DiskTotals { result.after }
        var folderExists: Bool { result.folderExists }

        init(_ job: CleanJob, now: Timestamp = .now()) throws {
            var removed: [DiskCache.Removal] = []
            var failures: [DiskCache.RemovalFailure] = []
            result = try job.run(now: now) { event in
                switch event {
                case .removed(let removal): removed.append(removal)
                case .failed(let failure): failures.append(failure)
                }
            }
            self.removed = removed
            self.failures = failures
        }
    }

    func ago(_ days: Double) -> Timestamp { now.adding(seconds: -days * day) }

    @Test func ageExpiryUsesAccessDatesByDefault() throws {
        let folder = try Folder()
        // old access, recent modification → expired by access; recent access, old modification → kept.
        try folder.file("old-access.jpg", atime: ago(10), mtime: ago(1))
        try folder.file("old-modification.jpg", atime: ago(1), mtime: ago(10))
        let result = try folder.clean({ $0.policy.maxAge = .after(seconds: 7 * day) }, now: now)
        #expect(result.removed.map(\.entry.name) == ["old-access.jpg"])
        #expect(result.removed.first?.reason == .expired)
        #expect(try folder.names() == ["old-modification.jpg"])
    }

    @Test func ageExpiryByModificationDate() throws {
        let folder = try Folder()
        try folder.file("old-access.jpg", atime: ago(10), mtime: ago(1))
        try folder.file("old-modification.jpg", atime: ago(1), mtime: ago(10))
        _ = try folder.clean(
            {
                $0.policy.expireType = .modification
                $0.policy.maxAge = .after(seconds: 7 * day)
            }, now: now)
        #expect(try folder.names() == ["old-access.jpg"])
    }

    /// The change time cannot be set into the past, so: files with old access and modification
    /// times but a fresh change time survive a one-day limit only when the change date is used.
    @Test func ageExpiryByChangeDate() throws {
        let folder = try Folder()
        try folder.file("a.png", atime: ago(10), mtime: ago(10))
        try folder.file("b.png", atime: ago(10), mtime: ago(10))
        let kept = try folder.clean(
            {
                $0.policy.expireType = .change
                $0.policy.maxAge = .after(seconds: day)
            }, now: now)
        #expect(kept.removed.isEmpty)
        #expect(try folder.names() == ["a.png", "b.png"])
        let later = now.adding(seconds: 2 * day)
        let removed = try folder.clean(
            {
                $0.policy.expireType = .change
                $0.policy.maxAge = .after(seconds: day)
            }, now: later)
        #expect(Set(removed.removed.map(\.entry.name)) == ["a.png", "b.png"])
    }

    /// Birth times come from statx; where the file system has none, the error says so.
    @Test func ageExpiryByCreationDate() throws {
        let folder = try Folder()
        try folder.file("first.gif", atime: ago(30), mtime: ago(30))
        do {
            let kept = try folder.clean(
                {
                    $0.policy.expireType = .creation
                    $0.policy.maxAge = .after(seconds: day)
                }, now: now)
            #expect(kept.removed.isEmpty, "birth time is now, whatever atime and mtime say")
            let removed = try folder.clean(
                {
                    $0.policy.expireType = .creation
                    $0.policy.maxAge = .after(seconds: day)
                }, now: now.adding(seconds: 2 * day))
            #expect(removed.removed.map(\.entry.name) == ["first.gif"])
        } catch DiskCacheError.noBirthTime(let path) {
            #expect(path == folder.location.folder)
        }
    }

    @Test func maxAgeZeroExpiresEverythingAndNeverExpiresNothing() throws {
        let folder = try Folder()
        try folder.file("a", atime: now, mtime: now)
        try folder.file("b", atime: ago(1000), mtime: ago(1000))
        let never = try folder.clean({ $0.policy.maxAge = .never }, now: now)
        #expect(never.removed.isEmpty)
        let zero = try folder.clean({ $0.policy.maxAge = .after(seconds: 0) }, now: now.adding(seconds: 0.001))
        #expect(zero.removed.count == 2)
        #expect(try folder.names().isEmpty)
    }

    /// The example of the issue: limit 10000, four files of 4096 allocated bytes → three
    /// deleted (16384 > 10000; stop once strictly below 5000), the newest stays.
    @Test func sizeTrimStopsWhereSDWebImageStops() throws {
        let folder = try Folder()
        for (index, name) in ["oldest.jpg", "older.jpg", "newer.jpg", "newest.jpg"].enumerated() {
            try folder.file(name, size: 4096, atime: ago(Double(4 - index)), mtime: ago(Double(4 - index)))
        }
        let scan = try DiskCache(location: folder.location).scan(expireType: .access)
        #expect(scan.entries.allSatisfy { $0.allocatedSize == 4096 }, "precondition: 4096 allocated bytes each")
        let result = try folder.clean(
            {
                $0.policy.maxAge = .never
                $0.policy.maxSize = 10000
            }, now: now)
        #expect(result.removed.map(\.entry.name) == ["oldest.jpg", "older.jpg", "newer.jpg"])
        #expect(result.removed.allSatisfy { $0.reason == .trimmed })
        #expect(try folder.names() == ["newest.jpg"])
        #expect(result.after.allocatedBytes == result.before.allocatedBytes - 3 * 4096)
    }

    /// Not above the limit (equal counts as not above): nothing is trimmed.
    @Test func sizeTrimNeedsStrictlyMore() throws {
        let folder = try Folder()
        try folder.file("a", size: 4096, atime: ago(2), mtime: ago(2))
        try folder.file("b", size: 4096, atime: ago(1), mtime: ago(1))
        let equal = try folder.clean(
            {
                $0.policy.maxAge = .never
                $0.policy.maxSize = 8192
            }, now: now)
        #expect(equal.removed.isEmpty)
        let above = try folder.clean(
            {
                $0.policy.maxAge = .never
                $0.policy.maxSize = 8191
            }, now: now)
        // 8192 > 8191; target 4095: deleting "a" leaves 4096, not below 4095, so "b" goes too.
        #expect(above.removed.map(\.entry.name) == ["a", "b"])
    }

    /// The size pass runs after the age pass, on what remains.
    @Test func agePassRunsFirst() throws {
        let folder = try Folder()
        try folder.file("expired", size: 4096, atime: ago(30), mtime: ago(30))
        try folder.file("x", size: 4096, atime: ago(3), mtime: ago(3))
        try folder.file("y", size: 4096, atime: ago(2), mtime: ago(2))
        let result = try folder.clean(
            {
                $0.policy.maxAge = .after(seconds: 7 * day)
                $0.policy.maxSize = 10000
            }, now: now)
        // After expiry 8192 remain, not above 10000: no trim.
        #expect(result.removed.map(\.entry.name) == ["expired"])
        #expect(result.removed.map(\.reason) == [.expired])
    }

    /// Hidden files, a subfolder (and what it holds) and a symbolic link pointing outside all
    /// survive; the link's target is untouched.
    @Test func hiddenEntriesFoldersAndLinksSurvive() throws {
        let folder = try Folder()
        let old = ago(100)
        try folder.file(".hidden", atime: old, mtime: old)
        try folder.file("plain.png", atime: old, mtime: old)
        let sub = folder.location.folder + "/sub"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: false)
        try folder.file("sub/inner.png", atime: old, mtime: old)
        try folder.setTimes(sub, atime: old, mtime: old)
        let target = try folder.temp.write("outside/target.png", Data(repeating: 7, count: 5000))
        try folder.setTimes(target, atime: old, mtime: old)
        try FileManager.default.createSymbolicLink(
            atPath: folder.location.folder + "/link.png", withDestinationPath: target)

        let result = try folder.clean(
            {
                $0.policy.maxAge = .after(seconds: 0)
                $0.policy.maxSize = 1
            }, now: now)
        #expect(result.removed.map(\.entry.name) == ["plain.png"])
        #expect(try folder.names() == [".hidden", "sub", "link.png"])
        #expect(FileManager.default.fileExists(atPath: sub + "/inner.png"))
        var info = stat()
        #expect(stat(target, &info) == 0)
        #expect(info.st_size == 5000)
        #expect(Timestamp(info.st_atim) == old, "the link's target was not read or touched")
        // SDWebImage's totals count every entry at any depth, hidden ones and subfolders included.
        // .hidden, plain.png, sub, sub/inner.png, link.png
        #expect(result.before.entries == 5)
        #expect(result.after.entries == 4)
    }

    @Test func dryRunDeletesNothingAndReportsTheSameSet() throws {
        let folder = try Folder()
        for index in 0..<6 {
            try folder.file("f\(index).jpg", size: 4096, atime: ago(Double(10 - index)), mtime: ago(1))
        }
        let before = try folder.names()
        let dry = try folder.clean(
            {
                $0.policy.maxAge = .after(seconds: 9 * day)
                $0.policy.maxSize = 12000
                $0.dryRun = true
            }, now: now)
        #expect(try folder.names() == before)
        let real = try folder.clean(
            {
                $0.policy.maxAge = .after(seconds: 9 * day)
                $0.policy.maxSize = 12000
            }, now: now)
        #expect(dry.removed.map(\.entry.name) == real.removed.map(\.entry.name))
        #expect(dry.removed.map(\.reason) == real.removed.map(\.reason))
        #expect(real.removed.map(\.reason) == [.expired, .expired, .trimmed, .trimmed, .trimmed])
        #expect(try folder.names() == ["f5.jpg"])
    }

    @Test func removeAllEmptiesTheFolderButSubfolders() throws {
        let folder = try Folder()
        try folder.file("a.png", atime: now, mtime: now)
        try folder.file(".b", atime: now, mtime: now)
        try FileManager.default.createDirectory(
            atPath: folder.location.folder + "/keep", withIntermediateDirectories: false)
        let target = try folder.temp.write("outside/t", Data([1, 2, 3]))
        try FileManager.default.createSymbolicLink(atPath: folder.location.folder + "/l", withDestinationPath: target)
        let result = try folder.clean({ $0.policy.removeAll = true }, now: now)
        #expect(Set(result.removed.map(\.entry.name)) == ["a.png", ".b", "l"])
        #expect(result.removed.allSatisfy { $0.reason == .cleared })
        #expect(try folder.names() == ["keep"])
        #expect(FileManager.default.fileExists(atPath: target))
    }

    @Test func missingFolderIsEmptyNotAnError() throws {
        let temp = try TemporaryFolder()
        let result = try Collected(CleanJob(location: CacheLocation(folder: temp.path("nope")), configuration: .init()))
        #expect(!result.folderExists)
        #expect(result.removed.isEmpty)
    }

    @Test func statisticsCountFormatsAndDoNotMoveAccessTimes() throws {
        let folder = try Folder()
        let images = try Fixtures.validImages()
        let old = ago(5)
        for (name, data) in images {
            try data.write(to: URL(fileURLWithPath: folder.location.folder + "/" + name))
            try folder.setTimes(folder.location.folder + "/" + name, atime: old, mtime: old)
        }
        try folder.file("notes.txt", size: 10, atime: ago(9), mtime: ago(9))
        let stats = try DiskCache(location: folder.location).statistics(expireType: .access)
        #expect(stats.files == images.count + 1)
        #expect(stats.formats["jpeg"] == 2)  // photo.jpg and progressive.jpg
        #expect(stats.formats["png"] == 1)
        #expect(stats.formats["avif"] == 1)
        #expect(stats.formats["heic"] == 1)
        #expect(stats.formats["other"] == 1)
        #expect(stats.oldest == ago(9))
        #expect(stats.newest == old)
        let logical = images.values.reduce(UInt64(10)) { $0 + UInt64($1.count) }
        #expect(stats.totals.logicalBytes == logical)
        // Sniffing read every file; the access dates are unchanged.
        let again = try DiskCache(location: folder.location).statistics(expireType: .access)
        #expect(again.newest == old)
    }

    /// The streaming count: each kind of entry where SDWebImage's enumerator puts it, and the
    /// cache files' names remembered (as fingerprints) for the state's stale rows.
    @Test func statisticsCountEveryKindOfEntry() throws {
        let folder = try Folder()
        let root = folder.location.folder
        let name = String(format: "%032x.jpg", 7)
        _ = try folder.file(name, atime: ago(3), mtime: ago(3))
        _ = try folder.file(String(format: "%032x.png", 8), atime: ago(2), mtime: ago(2))
        _ = try folder.file(".hidden", atime: ago(1), mtime: ago(1))
        try FileManager.default.createDirectory(atPath: root + "/.hiddendir", withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: false)
        _ = try folder.file("sub/inside.jpg", atime: ago(1), mtime: ago(1))
        try FileManager.default.createSymbolicLink(atPath: root + "/link.jpg", withDestinationPath: name)
        let stats = try DiskCache(location: folder.location).statistics(expireType: .access)
        #expect(stats.files == 2)
        #expect(stats.hiddenEntries == 2)
        #expect(stats.directories == 2)
        #expect(stats.symlinks == 1)
        #expect(stats.totals.entries == 7)
        #expect(stats.oldest == ago(3))
        #expect(stats.containsFile(named: name))
        #expect(!stats.containsFile(named: ".hidden"))
        #expect(!stats.containsFile(named: "link.jpg"))
        #expect(!stats.containsFile(named: "inside.jpg"))
    }
}
