import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// `CacheStore.lookupChecking`: a hit's path walked once (opened, its status and ends read, its
/// times set through the open file), everything else judged as `lookup` judges it.
@Suite struct CacheStoreHitCheckTests {
    static let old = Timestamp(seconds: 1_600_000_000, nanoseconds: 0)

    static func accessTime(_ path: String) throws -> Timestamp {
        try FileDescriptor.openFolder((path as NSString).deletingLastPathComponent)
            .status(of: (path as NSString).lastPathComponent).accessed
    }

    @Test func anIntactHitComesBackOpenAndItsTouchGoesThroughTheFile() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("c/cache"))
        let name = SDFileName.forKey("https://a.example/photo.jpg")
        let image = try Fixtures.data("images/valid/photo.jpg")
        let path = try temp.write("c/cache/" + name, image)
        let folder = try FileDescriptor.openFolder(location.folder)
        defer { folder.close() }
        try folder.setTimes(of: name, FileTimes(access: .set(Self.old), modification: .set(Self.old)))
        let store = try CacheStore(location: location)

        let (lookup, damage, file) = store.lookupChecking(name)
        #expect(lookup == .hit(size: image.count))
        #expect(damage == nil)
        let open = try #require(file)
        defer { open.close() }
        #expect(try open.status().size == image.count)
        #expect(try Self.accessTime(path) == Self.old, "the check reads without moving the access time")
        #expect(store.touch(name, foundUnderLock: true, file: open))
        #expect(try Self.accessTime(path) > Self.old, "SDWebImage's read sets the access time: through the file")
        #expect(store.lookup(name) == lookup, "the same verdict by name")
    }

    @Test func aDamagedHitIsClosedAndSaysWhy() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("c/cache"))
        let name = SDFileName.forKey("https://a.example/cut.jpg")
        let image = try Fixtures.data("images/valid/photo.jpg")
        try temp.write("c/cache/" + name, image.prefix(image.count / 2))
        let store = try CacheStore(location: location)
        let (lookup, damage, file) = store.lookupChecking(name)
        #expect(lookup == .hit(size: image.count / 2))
        #expect(damage != nil)
        #expect(file == nil)
        #expect(damage == store.damage(of: name, size: image.count / 2), "the same reason as by name")
    }

    /// Absent, a folder, a FIFO (opened without waiting), a link: no file comes back, and the
    /// verdict is `lookup`'s.
    @Test func everythingElseIsJudgedAsLookupJudgesIt() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("c/cache"))
        let image = try Fixtures.data("images/valid/photo.jpg")
        let target = try temp.write("elsewhere.jpg", image)
        let (absent, folder, fifo, link) = (
            SDFileName.forKey("absent"), SDFileName.forKey("folder"), SDFileName.forKey("fifo"),
            SDFileName.forKey("link")
        )
        try FileManager.default.createDirectory(
            atPath: temp.path("c/cache/" + folder), withIntermediateDirectories: true)
        #expect(mkfifo(temp.path("c/cache/" + fifo), 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: temp.path("c/cache/" + link), withDestinationPath: target)
        let store = try CacheStore(location: location)
        let expected: [String: CacheStore.Lookup] = [absent: .miss, folder: .blocked, fifo: .miss, link: .miss]
        for (name, verdict) in expected {
            let (lookup, damage, file) = store.lookupChecking(name)
            #expect(lookup == verdict, "\(name)")
            #expect(store.lookup(name) == verdict, "\(name)")
            #expect(damage == nil && file == nil, "\(name)")
        }
    }
}
