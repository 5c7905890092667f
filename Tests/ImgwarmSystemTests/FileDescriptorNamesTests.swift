import Foundation
import ImgwarmSystem
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The calls that take names read from a cache folder's index (docs/hardening.md): only one plain
/// name, nothing but a regular file read, imgwarm's temporary name removed and never followed.
@Suite struct FileDescriptorNamesTests {
    @Test func plainNames() {
        for name in ["journal", "a.0", "..0", ".hidden", "x y", String(repeating: "k", count: 200)] {
            #expect(FileDescriptor.isPlainName(name), "\(name)")
        }
        for name in ["", ".", "..", "a/b", "../x", "/etc", "x/", "a\u{0}b", "\u{0}"] {
            #expect(!FileDescriptor.isPlainName(name), "\(name.debugDescription)")
        }
    }

    /// `removeEntry` and `openRegularFile` refuse a climbing name before any call: the file it
    /// would reach stays.
    @Test func climbingNamesAreRefused() throws {
        let temp = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: temp.path("cache"), withIntermediateDirectories: true)
        let victim = try temp.write("victim.0", Data("keep".utf8))
        let folder = try FileDescriptor.openFolder(temp.path("cache"))
        defer { folder.close() }
        #expect(throws: SystemError(code: EINVAL)) { try folder.removeEntry("../victim.0") }
        #expect(throws: SystemError(code: EINVAL)) { try folder.removeEntryIfPresent("../victim.0") }
        #expect(throws: SystemError(code: EINVAL)) { _ = try folder.openRegularFile("../victim.0") }
        #expect(throws: SystemError(code: EINVAL)) {
            try folder.replaceFile("../victim.0", with: [1], through: "journal.tmp")
        }
        #expect(FileManager.default.contents(atPath: victim) == Data("keep".utf8))
    }

    /// A regular file opens; a FIFO, a link, a folder and nothing are told apart without
    /// reading or waiting.
    @Test func onlyRegularFilesOpen() throws {
        let temp = try TemporaryFolder()
        _ = try temp.write("cache/file", Data("abc".utf8))
        #expect(mkfifo(temp.path("cache/fifo"), 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: temp.path("cache/link"), withDestinationPath: "file")
        try FileManager.default.createDirectory(atPath: temp.path("cache/sub"), withIntermediateDirectories: true)
        let folder = try FileDescriptor.openFolder(temp.path("cache"))
        defer { folder.close() }
        func described(_ opening: RegularFileOpening) -> String {
            switch opening {
            case .opened(let file, let info):
                file.close()
                return "file \(info.size)"
            case .absent: return "absent"
            case .other(let what): return what
            }
        }
        #expect(described(try folder.openRegularFile("file")) == "file 3")
        #expect(described(try folder.openRegularFile("fifo")) == "a FIFO")
        #expect(described(try folder.openRegularFile("link")) == "a symbolic link")
        #expect(described(try folder.openRegularFile("sub")) == "a folder")
        #expect(described(try folder.openRegularFile("none")) == "absent")
        #expect(described(try FileDescriptor.openRegularFile(atPath: temp.path("cache/fifo"))) == "a FIFO")
        #expect(described(try FileDescriptor.openRegularFile(atPath: temp.path("cache/link"))) == "a symbolic link")
        #expect(described(try FileDescriptor.openRegularFile(atPath: "/dev/zero")) == "a character device")
    }

    /// Whatever stands at the temporary name (a link to a file outside, a FIFO) is removed, not
    /// followed or opened; the new file is renamed over the target.
    @Test(arguments: ["link", "fifo", "file"]) func replaceFileRemovesWhatStandsAtTheTemporaryName(_ kind: String)
        throws
    {
        let temp = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: temp.path("cache"), withIntermediateDirectories: true)
        let outside = try temp.write("outside", Data("keep".utf8))
        let temporary = temp.path("cache/journal.tmp")
        switch kind {
        case "link": try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: outside)
        case "fifo": #expect(mkfifo(temporary, 0o644) == 0)
        default: _ = try temp.write("cache/journal.tmp", Data("left by a crash".utf8))
        }
        let folder = try FileDescriptor.openFolder(temp.path("cache"))
        defer { folder.close() }
        try folder.replaceFile("journal", with: Array("new\n".utf8), through: "journal.tmp")
        #expect(FileManager.default.contents(atPath: temp.path("cache/journal")) == Data("new\n".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path("cache")) == ["journal"])
        #expect(FileManager.default.contents(atPath: outside) == Data("keep".utf8))
        #expect(try folder.status(of: "journal").kind == .file)
    }
}
