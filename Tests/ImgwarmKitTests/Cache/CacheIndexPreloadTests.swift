import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// The index read while the run reads its lists (`CacheIndexPreload`) is the index a store
/// would have read when it opened: the same entries, the same refusal.
@Suite struct CacheIndexPreloadTests {
    static let key = String(repeating: "b", count: 64)

    static func glideFolder(_ temp: TemporaryFolder, journal: String) throws -> CacheLocation {
        let location = CacheLocation(folder: temp.path("glide"), format: GlideFormat())
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        try Data(journal.utf8).write(to: URL(fileURLWithPath: location.folder + "/journal"))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: "\(location.folder)/\(key).0"))
        return location
    }

    @Test func theStoreTakesTheIndexAsRead() throws {
        let temp = try TemporaryFolder()
        let location = try Self.glideFolder(temp, journal: "libcore.io.DiskLruCache\n1\n1\n1\n\nCLEAN \(Self.key) 3\n")
        let preload = try #require(CacheIndexPreload.start(location))
        let store = try CacheStore(location: location, preloaded: preload)
        #expect(store.index?.check("\(Self.key).0") == nil, "the journal's entry is listed")
        #expect(store.index?.check("\(String(repeating: "c", count: 64)).0") == .notIndexed)
        #expect(store.index?.accountedBytes == 3)
    }

    /// A journal Glide would delete the folder for: the store refuses it in the same words
    /// whether it read the journal itself or took the preloaded read.
    @Test func aRefusedIndexIsRefusedAlike() throws {
        let temp = try TemporaryFolder()
        let location = try Self.glideFolder(temp, journal: "libcore.io.DiskLruCache\n1\n2\n1\n\nCLEAN \(Self.key) 3\n")
        let preload = try #require(CacheIndexPreload.start(location))
        var preloaded: CacheStoreError?
        do { _ = try CacheStore(location: location, preloaded: preload) } catch { preloaded = error }
        var direct: CacheStoreError?
        do { _ = try CacheStore(location: location) } catch { direct = error }
        #expect(preloaded != nil)
        #expect(preloaded == direct)
    }

    /// Nothing to read for a plain-files format, nor where a file stands at the folder's path
    /// (the store names it); a missing folder is an empty index, and reading it creates nothing.
    @Test func whatIsNotPreloaded() throws {
        let temp = try TemporaryFolder()
        #expect(CacheIndexPreload.start(CacheLocation(folder: temp.path("sd"))) == nil)
        try Data([1]).write(to: URL(fileURLWithPath: temp.path("file")))
        #expect(CacheIndexPreload.start(CacheLocation(folder: temp.path("file"), format: GlideFormat())) == nil)
        let missing = CacheLocation(folder: temp.path("missing"), format: GlideFormat())
        let preload = try #require(CacheIndexPreload.start(missing))
        guard case .success(let index) = preload.wait() else {
            Issue.record("a missing folder is an empty cache")
            return
        }
        #expect(index.accountedBytes == 0)
        #expect(!FileManager.default.fileExists(atPath: missing.folder))
    }
}
