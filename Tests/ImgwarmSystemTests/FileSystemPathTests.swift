import Foundation
import ImgwarmSystem
import TestSupport
import Testing

/// `FileSystem.nonFolder(onPath:)`: what stands where a folder should be.
@Suite struct FileSystemPathTests {
    @Test func findsTheFileOnThePath() throws {
        let temp = try TemporaryFolder()
        let file = try temp.write("somefile", Data("x".utf8))
        try FileManager.default.createDirectory(atPath: temp.path("a/b"), withIntermediateDirectories: true)
        #expect(FileSystem.nonFolder(onPath: file) == file, "the path itself")
        #expect(FileSystem.nonFolder(onPath: file + "/c/d") == file, "a leading path")
        #expect(FileSystem.nonFolder(onPath: temp.path("a/b")) == nil, "folders all the way")
        #expect(FileSystem.nonFolder(onPath: temp.path("a/missing/c")) == nil, "missing: made later")
        // A link to a folder is a folder; a link to a file is not.
        try FileManager.default.createSymbolicLink(atPath: temp.path("to-a"), withDestinationPath: temp.path("a"))
        try FileManager.default.createSymbolicLink(atPath: temp.path("to-file"), withDestinationPath: file)
        #expect(FileSystem.nonFolder(onPath: temp.path("to-a/b")) == nil)
        #expect(FileSystem.nonFolder(onPath: temp.path("to-file/c")) == temp.path("to-file"))
    }
}
