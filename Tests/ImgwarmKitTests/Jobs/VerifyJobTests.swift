import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// `VerifyJob` without the binary: the folder's verdict comes from the format (no format is
/// named by the job), and each key's file is judged by the format's reader and the image checks.
@Suite struct VerifyJobTests {
    /// SDWebImage's names, but a folder verdict of its own, as a journal format would have.
    struct WipedFormat: KeyNamedFormat {
        var name: String { "wiped" }
        var platforms: Set<AppContainer.Platform> { [.ios] }
        var library: String { "a library that wipes its folder" }
        var entryNameShape: String { SDWebImageFormat().entryNameShape }
        var cleanRules: CleanRules { SDWebImageFormat().cleanRules }
        func folder(cachesRoot: String, namespace: String) -> String { cachesRoot + "/wiped" }
        func fileName(forKey key: String) -> String { SDFileName.forKey(key) }
        func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool { SDWebImageFormat().isEntryName(bytes: bytes) }
        func judgeFolder(atPath path: String) -> FolderVerdict { .unusable("its journal does not parse") }
    }

    static func url(_ name: String) -> String { "https://example.com/" + name }

    /// A folder holding `files` (key → bytes) named by `format`, and a list of `keys`.
    func setUp(
        _ temp: TemporaryFolder, format: any CacheFormat = SDWebImageFormat(), files: [String: Data], keys: [String]
    ) throws -> (CacheLocation, [ListSource]) {
        let location = CacheLocation(folder: temp.path("cache"), format: format)
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        for (key, bytes) in files { try bytes.write(to: URL(fileURLWithPath: try location.path(forKey: key))) }
        let list = try temp.write("list.txt", Data((keys.joined(separator: "\n") + "\n").utf8))
        return (location, [ListSource(path: list)])
    }

    func run(_ location: CacheLocation, _ sources: [ListSource], _ configuration: VerifyJob.Configuration = .init())
        throws -> (VerifyJob.Result, [VerifyJob.Check])
    {
        var checks: [VerifyJob.Check] = []
        let result = try VerifyJob(location: location, sources: sources, configuration: configuration).run { event in
            if case .checked(let check) = event { checks.append(check) }
        }
        return (result, checks)
    }

    @Test func plainFolderVerdicts() throws {
        let temp = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: temp.path("folder"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: temp.path("file")))
        try FileManager.default.createSymbolicLink(atPath: temp.path("link"), withDestinationPath: temp.path("folder"))
        for format in CacheFormats.all {
            // A format with a database (flutter) finds none beside these folders: an empty cache.
            let database = temp.path("libCachedImageData.db")
            let usable: FolderVerdict =
                !(format is any ExternalDatabaseFormat)
                ? .usable
                : .empty(
                    "there is no database at \(database) (\(Setting.databasePath) names another), so it would start an empty one"
                )
            #expect(format.judgeFolder(atPath: temp.path("folder")) == usable)
            #expect(format.judgeFolder(atPath: temp.path("link")) == usable, "a link to a folder is followed")
            #expect(format.judgeFolder(atPath: temp.path("none")) == .absent)
            #expect(format.judgeFolder(atPath: temp.path("file")) == .unusable("it is not a folder"))
        }
    }

    /// The job asks the format: a folder its library would discard makes every key a miss.
    @Test func theFormatJudgesTheFolder() throws {
        let temp = try TemporaryFolder()
        let png = try Fixtures.data("images/valid/gradient.png")
        let (location, sources) = try setUp(
            temp, format: WipedFormat(), files: [VerifyJobTests.url("k1"): png], keys: [VerifyJobTests.url("k1")])
        let (result, checks) = try run(location, sources)
        #expect(result.folder == .unusable("its journal does not parse"))
        #expect(checks.map(\.read) == [.miss(.absent)])
        #expect(!result.allHit)
    }

    @Test func linkInTheFilesPlaceIsNotAFile() throws {
        let temp = try TemporaryFolder()
        let png = try Fixtures.data("images/valid/gradient.png")
        let (real, linked) = (VerifyJobTests.url("real"), VerifyJobTests.url("linked"))
        let (location, sources) = try setUp(temp, files: [real: png], keys: [real, linked])
        try FileManager.default.createSymbolicLink(
            atPath: try location.path(forKey: linked), withDestinationPath: try location.path(forKey: real))
        let (result, checks) = try run(location, sources)
        #expect(checks.map(\.read) == [.hit(size: png.count), .miss(.notAFile)])
        #expect(checks.first?.imageFormat == .png)
        #expect(result.totals.misses == [.notAFile: 1])
    }

    /// Past `maxCheckedBytes` only the magic bytes are read: an image's are a hit, garbage's not.
    @Test func largeFilesAreJudgedByTheirMagicBytes() throws {
        let temp = try TemporaryFolder()
        let png = try Fixtures.data("images/valid/gradient.png")
        let garbage = Data(repeating: 0x41, count: 4096)
        let (image, junk) = (VerifyJobTests.url("png"), VerifyJobTests.url("junk"))
        let (location, sources) = try setUp(temp, files: [image: png, junk: garbage], keys: [image, junk])
        var configuration = VerifyJob.Configuration()
        configuration.maxCheckedBytes = 16
        let (_, checks) = try run(location, sources, configuration)
        #expect(checks.map(\.read) == [.hit(size: png.count), .miss(.notAnImage)])
        #expect(checks.last?.detail?.contains("not an image of a known format") == true)
    }

    @Test func shardsAndDuplicatesAreCountedNotChecked() throws {
        let temp = try TemporaryFolder()
        let keys = (0..<40).map { "https://example.com/\($0).png" }
        let (location, sources) = try setUp(temp, files: [:], keys: keys + keys.prefix(3))
        var configuration = VerifyJob.Configuration()
        configuration.shard = try Shard(index: 1, count: 2)
        let (result, checks) = try run(location, sources, configuration)
        let mine = keys.filter { Shard.of(key: $0, count: 2) == 1 }
        #expect(checks.compactMap(\.key) == mine)
        #expect(result.totals.otherShard + result.totals.duplicates == 43 - mine.count)
        #expect(result.totals.keys == mine.count)
    }
}
