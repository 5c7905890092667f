import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

@Suite struct CacheStoreTests {
    /// The folder snapshot keys files by the digest their names spell: it must be the key's MD5.
    @Test func fileNamesMapBackToTheirKeyDigests() {
        for key in ["https://a.com/x.png", "kTestRectangle", "", "mailto:x@y.z", "http://example.com/a.b:c:d"] {
            let name = SDFileName.forKey(key)
            #expect(CacheStore.digest(ofName: name) == SDFileName.hash(of: key), "\(key)")
        }
        #expect(CacheStore.digest(ofName: "not-a-cache-file") == nil)
        #expect(
            CacheStore.digest(ofName: String(repeating: "A", count: 32)) == nil, "upper-case hex is not SDWebImage's")
        #expect(CacheStore.digest(ofName: String(repeating: "a", count: 32) + "x") == nil)
    }

    /// Hits, misses and replacements through the store, with the snapshot taken at opening.
    @Test func storeLookupAndReplace() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("c/cache"))
        let existing = SDFileName.forKey("old")
        try temp.write("c/cache/" + existing, Data([1, 2, 3]))
        let store = try CacheStore(location: location)
        #expect(store.lookup(existing) == .hit(size: 3))
        let fresh = SDFileName.forKey("new")
        #expect(store.lookup(fresh) == .miss)
        try [UInt8]([9, 9]).withUnsafeBytes { try store.store($0, as: fresh) }
        #expect(FileManager.default.contents(atPath: location.folder + "/" + fresh) == Data([9, 9]))
        // Replacing an existing file (a refresh) is atomic and leaves no temporary file.
        try [UInt8]([7, 7, 7, 7]).withUnsafeBytes { try store.store($0, as: existing) }
        #expect(FileManager.default.contents(atPath: location.folder + "/" + existing) == Data([7, 7, 7, 7]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.temporaryFolder).isEmpty)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: location.folder)) == [existing, fresh])
    }

    @Test func staleTemporaryFilesOfDeadProcessesGo() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("c/cache"))
        let store = try CacheStore(location: location)
        // PID 999999 does not exist; our own PID does.
        try temp.write("c/.imgwarm/cache/tmp/999999-1.tmp", Data([1]))
        try temp.write("c/.imgwarm/cache/tmp/999999-0-3-1.part", Data([1]))
        try temp.write("c/.imgwarm/cache/tmp/\(getpid())-5.tmp", Data([1]))
        try temp.write("c/.imgwarm/cache/tmp/unrelated.txt", Data([1]))
        // A writability probe of a process killed at that instant (it once failed a kill -9 test).
        try temp.write("c/.imgwarm/cache/tmp/.imgwarm-probe-999999", Data())
        #expect(store.removeStaleTemporaryFiles() == 3)
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: store.temporaryFolder)) == [
                "\(getpid())-5.tmp", "unrelated.txt",
            ])
    }

    /// Opening a store checks both folders are writable and leaves nothing behind in either.
    @Test func theWritabilityProbeLeavesNoName() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("c/cache"))
        let store = try CacheStore(location: location)
        #expect(try FileManager.default.contentsOfDirectory(atPath: location.folder).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.temporaryFolder).isEmpty)
    }
}
