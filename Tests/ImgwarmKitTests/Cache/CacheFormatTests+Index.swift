import Foundation
import ImgwarmSystem
import Synchronization
import TestSupport
import Testing

@testable import ImgwarmKit

/// The index hooks of the seam (`CacheIndex`, issue 25) with a made-up format whose index is a
/// list in memory: the engine asks it for hits, writes its companion files first, tells it of
/// stores and reads, flushes it, lets it clean, and refuses to touch a folder it cannot load.
extension CacheFormatTests {
    final class ListedIndex: CompanionFilesIndex, @unchecked Sendable {
        let events = Mutex<[String]>([])
        let listed = Mutex<Set<String>>([])
        var failsToLoad = false

        func load() throws(CacheIndexError) {
            events.withLock { $0.append("load") }
            if failsToLoad { throw .unreadable(path: "/index", library: "a made-up library", reason: "made up") }
        }
        func check(_ name: String) -> EntryMiss? { listed.withLock { $0.contains(name) } ? nil : .notIndexed }
        func companions(of name: String) -> [String] { [name + "-meta"] }
        func isEntryFile(_ name: String) -> Bool { !name.hasSuffix("-meta") }
        var listedNames: [String] { listed.withLock { Array($0) } }
        func didStore(_ name: String) {
            listed.withLock { _ = $0.insert(name) }
            events.withLock { $0.append("stored \(name)") }
        }
        func didRead(_ name: String) { events.withLock { $0.append("read \(name)") } }
        func flush(force: Bool, lockTimeout: Double) throws(CacheIndexError) {
            if force { events.withLock { $0.append("flush") } }
        }
        var accountedBytes: UInt64 { 0 }
        func clean(
            policy: DiskCache.CleanPolicy, dryRun: Bool, lockTimeout: Double, observe: (DiskCache.CleanEvent) -> Void
        ) throws(CacheIndexError) -> DiskCache.CleanResult {
            events.withLock { $0.append("clean \(policy.maxSize)") }
            return DiskCache.CleanResult(before: DiskTotals(), folderExists: true)
        }
    }

    struct IndexedFormat: KeyNamedFormat, IndexedCacheFormat {
        let index: ListedIndex
        var name: String { "indexed" }
        var platforms: Set<AppContainer.Platform> { [.android] }
        var library: String { "a made-up library" }
        var entryNameShape: String { "I- and anything" }
        var cleanRules: CleanRules { NukeFormat().cleanRules }
        func folder(cachesRoot: String, namespace: String) -> String { cachesRoot + "/indexed" }
        func fileName(forKey key: String) -> String { "I-" + Digest.sha1Hex(key) }
        func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool { bytes.starts(with: "I-".utf8) }
        func timesOnHit(now: Timestamp) -> FileTimes { FileTimes() }
        func makeIndex(for location: CacheLocation) -> any CacheIndex { index }
    }

    @Test func anIndexedFormatFlowsThroughTheEngine() throws {
        let temp = try TemporaryFolder()
        let index = ListedIndex()
        let location = try CacheLocation(root: temp.path, format: IndexedFormat(index: index))
        let store = try CacheStore(location: location)
        let name = try location.entryName(forKey: "https://a.example/x.png", index: nil)

        // A file the index does not list is a miss; once stored, the companion came first.
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        try Data([1, 2]).write(to: URL(fileURLWithPath: location.folder + "/" + name))
        #expect(store.lookup(name) == .miss)
        try [UInt8]([1, 2, 3]).withUnsafeBytes { try store.store($0, as: name) }
        #expect(FileManager.default.fileExists(atPath: location.folder + "/" + name + "-meta"))
        #expect(store.lookup(name) == .hit(size: 3))
        #expect(store.touch(name))
        try store.flushIndex(lockTimeout: 1)
        #expect(index.events.withLock { $0 } == ["load", "stored \(name)", "read \(name)", "flush"])

        // clean hands the work to the index.
        var configuration = CleanJob.Configuration()
        configuration.policy.maxSize = 42
        _ = try CleanJob(location: location, configuration: configuration).run()
        #expect(index.events.withLock { $0.last } == "clean 42")

        // An index the library would not read: the store refuses before writing anything.
        let refusing = ListedIndex()
        refusing.failsToLoad = true
        let other = try CacheLocation(root: temp.path("other"), format: IndexedFormat(index: refusing))
        #expect(throws: CacheStoreError.self) { try CacheStore(location: other) }
        #expect(!FileManager.default.fileExists(atPath: other.folder))
    }

    /// A hit whose file went between the lookup and the touch (a `clean` in between, when the
    /// caller did not hold the lock since) is not recorded as read; a caller that held the lock
    /// since its lookup found the file says so, and the touch looks no further.
    @Test func aHitRemovedBeforeItsTouchIsNotRecordedAsRead() throws {
        let temp = try TemporaryFolder()
        let index = ListedIndex()
        let location = try CacheLocation(root: temp.path, format: IndexedFormat(index: index))
        let store = try CacheStore(location: location)
        let name = try location.entryName(forKey: "https://a.example/x.png", index: nil)
        try [UInt8]([1, 2, 3]).withUnsafeBytes { try store.store($0, as: name) }
        #expect(store.lookup(name) == .hit(size: 3))
        try FileManager.default.removeItem(atPath: location.folder + "/" + name)
        #expect(!store.touch(name))
        #expect(!index.events.withLock { $0 }.contains("read \(name)"))
        #expect(store.touch(name, foundUnderLock: true))
        #expect(index.events.withLock { $0 }.contains("read \(name)"))
    }
}
