import Foundation
import ImgwarmSystem
import TestSupport
import Testing

/// The system layer on a real file system: names relative to folders, links never followed,
/// unnamed files, access times, locks with a deadline, directory listings.
@Suite struct FileDescriptorTests {
    @Test func createWriteReadAndRename() throws {
        let temp = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: temp.path("a"), withIntermediateDirectories: true)
        let folder = try FileDescriptor.openFolder(temp.path("a"))
        defer { folder.close() }
        let file = try folder.createFile("x.tmp")
        try file.writeAll(Array("hello".utf8))
        try file.closeAfterWriting()
        #expect(throws: SystemError(code: EEXIST)) { try folder.createFile("x.tmp") }
        try folder.rename("x.tmp", to: "x", in: folder)
        #expect(try folder.status(of: "x").size == 5)
        #expect(throws: SystemError.notFound) { try folder.status(of: "x.tmp") }
        let reader = try folder.openForReading("x")
        defer { reader.close() }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try reader.read(into: &buffer)
        #expect(Array(buffer.prefix(count)) == Array("hello".utf8))
        try folder.removeFile("x")
        #expect(throws: SystemError.notFound) { try folder.removeFile("x") }
    }

    /// An unnamed file appears only when linked, and linking never replaces a file.
    @Test func anonymousFilesAppearWhenLinked() throws {
        let temp = try TemporaryFolder()
        let folder = try FileDescriptor.openFolder(temp.path)
        defer { folder.close() }
        let created = Result { () throws(SystemError) in try folder.createAnonymousFile() }
        // No O_TMPFILE on this file system: CacheStore renames instead.
        if case .failure(let error) = created, error.isUnsupported { return }
        let file = try created.get()
        defer { file.close() }
        try file.writeAll([UInt8](repeating: 7, count: 100))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty)
        try folder.link(anonymous: file, as: "named")
        #expect(try folder.status(of: "named").size == 100)
        #expect(throws: SystemError(code: EEXIST)) { try folder.link(anonymous: file, as: "named") }
    }

    /// Links are reported as links, never followed; the folder itself may be opened through one.
    @Test func linksAreNotFollowedInsideAFolder() throws {
        let temp = try TemporaryFolder()
        try temp.write("real/target", Data([1, 2, 3]))
        try FileManager.default.createSymbolicLink(
            atPath: temp.path("real/link"), withDestinationPath: temp.path("real/target"))
        try FileManager.default.createSymbolicLink(atPath: temp.path("linked"), withDestinationPath: temp.path("real"))
        let folder = try FileDescriptor.openFolder(temp.path("linked"))
        defer { folder.close() }
        #expect(try folder.status(of: "link").kind == .symlink)
        #expect(throws: SystemError.self) { try folder.openForReading("link") }
        #expect(throws: SystemError.self) { try folder.openFolder("link") }
        var names: [String] = []
        try folder.forEachEntry { names.append($0.name ?? "?") }
        #expect(names.sorted() == ["link", "target"])
    }

    @Test func accessTimesAreSetExplicitly() throws {
        let temp = try TemporaryFolder()
        try temp.write("f", Data([1]))
        let folder = try FileDescriptor.openFolder(temp.path)
        defer { folder.close() }
        let old = Timestamp(seconds: 1_000_000_000)
        try folder.setAccessTime(of: "f", to: old)
        #expect(try folder.status(of: "f").accessed == old)
        let modified = try folder.status(of: "f").modified
        try folder.setAccessTime(of: "f", to: nil)
        let after = try folder.status(of: "f")
        #expect(after.accessed.seconds >= Timestamp.now().seconds - 60)
        #expect(after.modified == modified, "only the access time moves")
    }

    /// A lock held through another open file description makes a second holder wait, then give
    /// up with EWOULDBLOCK; shared locks coexist.
    @Test func locksWaitAtMostTheirTimeout() throws {
        let temp = try TemporaryFolder()
        let first = try FileDescriptor.openOrCreate(temp.path("lock"))
        let second = try FileDescriptor.openOrCreate(temp.path("lock"))
        defer {
            first.close()
            second.close()
        }
        try first.lock(exclusive: false, timeout: 1)
        try second.lock(exclusive: false, timeout: 1)
        second.unlock()
        #expect(throws: SystemError(code: EWOULDBLOCK)) { try second.lock(exclusive: true, timeout: 0.05) }
        first.unlock()
        try second.lock(exclusive: true, timeout: 1)
    }

    /// A scratch file is nameless: nothing appears in its folder.
    @Test func scratchFilesLeaveNoName() throws {
        let temp = try TemporaryFolder()
        let scratch = try FileDescriptor.scratchFile(in: temp.path)
        defer { scratch.close() }
        try scratch.writeAll([UInt8](repeating: 9, count: 10), at: 100)
        var buffer = [UInt8](repeating: 0, count: 10)
        let count = try scratch.read(into: &buffer, at: 100)
        #expect(count == 10 && buffer.allSatisfy { $0 == 9 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty)
    }

    @Test func errorsSayWhat() {
        #expect(SystemError.notFound.description == "No such file or directory")
        #expect(SystemError(code: ENOSPC).isDiskFull)
    }

    /// As swift-nio's `IOError`: the failed call and what it was given, then the C library's words.
    @Test func errorsNameTheCallThatFailed() throws {
        let temp = try TemporaryFolder()
        let folder = try FileDescriptor.openFolder(temp.path)
        defer { folder.close() }
        do {
            _ = try folder.status(of: "missing.png")
            Issue.record("fstatat of a missing name succeeded")
        } catch {
            #expect(error.call == "fstatat" && error.path == "missing.png")
            #expect(error.description == "fstatat(missing.png) failed: No such file or directory")
            #expect(error == .notFound, "equal by errno, whichever call failed")
        }
        do {
            _ = try FileDescriptor.openForReading(temp.path("none"))
            Issue.record("open of a missing path succeeded")
        } catch {
            #expect(error.description == "open(\(temp.path("none"))) failed: No such file or directory")
        }
        do {
            try FileSystem.makeFolder(temp.path("none/deeper"))
            Issue.record("mkdir under a missing folder succeeded")
        } catch {
            #expect(error.description == "mkdir(\(temp.path("none/deeper"))) failed: No such file or directory")
        }
        #expect(SystemError(code: ENOSPC, call: "write").description == "write() failed: No space left on device")
    }
}
