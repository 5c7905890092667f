import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// The commands that only read leave every time as they found it (issue 48, item 4): `keys
/// detect` read the journal without `O_NOATIME` (pack did not), and the app's library, or a
/// clean by access date, would see a read that never happened.
@Suite struct ReadOnlyTimesTests {
    static let urls = (1...3).map { "https://cdn.example.com/p/\($0).jpg" }

    /// A Glide folder holding the entries of `urls`, its journal listing them, every file
    /// accessed two days ago (`relatime` moves an access time older than a day on any read).
    static func glideFolder(_ temp: TemporaryFolder) throws -> (CacheLocation, String) {
        let folder = temp.path("image_manager_disk_cache")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let location = CacheLocation(folder: folder, format: try #require(CacheFormats.named("glide")))
        var journal = "libcore.io.DiskLruCache\n1\n1\n1\n\n"
        let image = try Fixtures.data("images/valid/gradient.png")
        for url in urls {
            let name = try location.entryName(forKey: url, index: nil)
            try image.write(to: URL(fileURLWithPath: folder + "/" + name))
            journal += "CLEAN \(name.dropLast(2)) \(image.count)\n"
        }
        try Data(journal.utf8).write(to: URL(fileURLWithPath: folder + "/journal"))
        let list = try temp.write("list.txt", Data(urls.map { $0 + "\n" }.joined().utf8))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).map { folder + "/" + $0 }
        let touch = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/touch"), ["-a", "-d", "2 days ago"] + files, timeout: 30)
        #expect(touch.status == 0)
        return (location, list)
    }

    static func accessTimes(_ folder: String) throws -> [String: Timestamp] {
        var times: [String: Timestamp] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            times[name] = try FileSystem.status(ofPath: folder + "/" + name, followingLinks: false).accessed
        }
        return times
    }

    @Test func keysDetectLeavesTheJournalsAccessTime() throws {
        let temp = try TemporaryFolder()
        let (location, list) = try Self.glideFolder(temp)
        let before = try Self.accessTimes(location.folder)
        let result = try KeysDetectJob(location: location, sources: [ListSource(path: list)]).run()
        #expect(result.search.best.hits == Self.urls.count)
        #expect(try Self.accessTimes(location.folder) == before)
    }

    /// flutter's database: SQLite's reads moved it; its time is put back.
    @Test func keysDetectLeavesTheDatabasesAccessTime() throws {
        let temp = try TemporaryFolder()
        let folder = temp.path("libCachedImageData")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let format = FlutterFormat()
        let location = CacheLocation(folder: folder, format: format)
        let index = try #require(location.makeIndex() as? any FolderPreparingIndex)
        try index.prepare()
        let database = format.databasePath(forFolder: folder)
        let touch = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/touch"), ["-a", "-d", "2 days ago", database], timeout: 30)
        #expect(touch.status == 0)
        let before = try FileSystem.status(ofPath: database).accessed
        let list = try temp.write("list.txt", Data(Self.urls.map { $0 + "\n" }.joined().utf8))
        _ = try KeysDetectJob(location: location, sources: [ListSource(path: list)]).run()
        #expect(try FileSystem.status(ofPath: database).accessed == before)
    }

    /// verify reads the same journal (and every hit's bytes) the same way.
    @Test func verifyLeavesEveryAccessTime() throws {
        let temp = try TemporaryFolder()
        let (location, list) = try Self.glideFolder(temp)
        let before = try Self.accessTimes(location.folder)
        let result = try VerifyJob(
            location: location, sources: [ListSource(path: list)], configuration: VerifyJob.Configuration()
        ).run(observe: { _ in })
        #expect(result.totals.hits == Self.urls.count)
        #expect(try Self.accessTimes(location.folder) == before)
    }
}
