import Foundation
import ImgwarmSystem
import TestSupport
import Testing

/// `FolderWalk` (the walk under `clean`, `stats` and `scan`) reports every name of a folder once,
/// in `readdir`'s order, with what a plain `fstatat` says, whether a batch is split with the
/// helper thread or not.
@Suite struct FolderWalkTests {
    /// A folder of `count` files of different sizes and dates, a subfolder and a dangling link.
    static func makeFolder(_ temp: TemporaryFolder, count: Int) throws -> String {
        let folder = temp.path("walk")
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        for index in 0..<count {
            let path = folder + "/" + String(format: "%032x.jpg", index * 2_654_435_761 % 1_000_003)
            try Data(repeating: 0x41, count: index % 97).write(to: URL(fileURLWithPath: path))
            var times = [
                timespec(tv_sec: 1_700_000_000 + index, tv_nsec: index), timespec(tv_sec: 1_600_000_000, tv_nsec: 0),
            ]
            #expect(utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0)
        }
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "gone")
        return folder
    }

    /// What one thread's `readdir` and `fstatat` see: names in order, with their status.
    static func serial(_ directory: FileDescriptor) throws -> [(String, FileStatus)] {
        var result: [(String, FileStatus)] = []
        try directory.forEachEntry { entry in
            result.append((entry.displayName, try directory.status(of: entry.displayName)))
        }
        return result
    }

    @Test(arguments: [(2, 1), (64, 1000), (64, 1024), (FolderWalk.defaultBatchSize, 5000)])
    func walkSeesWhatOneThreadSees(batchSize: Int, count: Int) throws {
        let temp = try TemporaryFolder()
        let directory = try FileDescriptor.openFolder(try FolderWalkTests.makeFolder(temp, count: count))
        defer { directory.close() }
        let expected = try FolderWalkTests.serial(directory)
        #expect(expected.count == count + 2)
        var walked: [(String, FileStatus)] = []
        try FolderWalk.forEach(in: directory, batchSize: batchSize) { bytes, info in
            walked.append((String(decoding: bytes, as: UTF8.self), info))
        }
        #expect(walked.map(\.0) == expected.map(\.0))
        #expect(walked.map(\.1) == expected.map(\.1))
        #expect(walked.filter { $0.1.kind == .symlink }.count == 1)
        #expect(walked.filter { $0.1.kind == .directory }.count == 1)
    }

    /// An error thrown by the body ends the walk (and its helper) at once.
    @Test func anErrorFromTheBodyEndsTheWalk() throws {
        struct Stop: Error {}
        let temp = try TemporaryFolder()
        let directory = try FileDescriptor.openFolder(try FolderWalkTests.makeFolder(temp, count: 300))
        defer { directory.close() }
        var seen = 0
        #expect(throws: Stop.self) {
            try FolderWalk.forEach(in: directory, batchSize: 16) { _, _ in
                seen += 1
                if seen == 40 { throw Stop() }
            }
        }
        #expect(seen == 40)
    }
}
