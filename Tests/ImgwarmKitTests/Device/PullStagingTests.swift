import Archive
import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// What `pull` makes of a device's tar stream (docs/hardening.md, "The device boundary"), in
/// process: hand-made streams (`TarBuilder`) of every hostile and broken kind are refused by
/// name, and a whole one becomes files 0600 and folders 0700 of this user with the members' times.
@Suite struct PullStagingTests {
    static let folder = "cache/image_manager_disk_cache"
    static let database = "files/libCachedImageData.db"

    /// A stream's bytes, read a few at a time (as a pipe gives them).
    final class Bytes: TarSource {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            let count = min(buffer.count, bytes.count - offset, 700)
            buffer.copyBytes(from: bytes[offset..<offset + count])
            offset += count
            return count
        }
    }

    /// Fills a new staging folder in `temp` from `bytes`; the error, if any.
    static func fill(_ bytes: [UInt8], in temp: TemporaryFolder) throws -> (PullStaging, (any Error)?) {
        let staging = try PullStaging(in: temp.path, folders: [folder], files: [database])
        do {
            try staging.fill(from: TarReader(source: Bytes(bytes)))
            return (staging, nil)
        } catch {
            return (staging, error)
        }
    }

    /// A whole stream as toybox's `tar -c` of the cache folder writes it.
    static func wholeStream(extra: (inout TarBuilder) -> Void = { _ in }) -> TarBuilder {
        var tar = TarBuilder()
        tar.add(folder + "/", kind: .directory, mode: 0o771, modified: 1_700_000_100)
        tar.add(
            folder + "/journal", data: Array("libcore.io.DiskLruCache\n".utf8), mode: 0o660, modified: 1_700_000_000)
        tar.add(folder + "/abc.0", data: [UInt8](repeating: 7, count: 1500), modified: 1_700_000_050)
        extra(&tar)
        return tar
    }

    @Test func aWholeStreamBecomesPrivateFilesWithTheMembersTimes() throws {
        let temp = try TemporaryFolder()
        var tar = Self.wholeStream()
        tar.finish()
        let (staging, error) = try Self.fill(tar.bytes, in: temp)
        #expect(error == nil, "\(String(describing: error))")
        #expect(try staging.finish(expecting: [(Self.folder, true)]) == nil)
        let journal = try FileSystem.status(ofPath: staging.path + "/" + Self.folder + "/journal")
        #expect(journal.kind == .file && journal.permissions & 0o7777 == 0o600 && journal.owner == FileSystem.userID)
        #expect(journal.modified.seconds == 1_700_000_000)
        #expect(journal.accessed.seconds == 1_700_000_000)
        let entry = try FileSystem.status(ofPath: staging.path + "/" + Self.folder + "/abc.0")
        #expect(entry.size == 1500 && entry.modified.seconds == 1_700_000_050)
        let folder = try FileSystem.status(ofPath: staging.path + "/" + Self.folder)
        #expect(folder.permissions & 0o7777 == 0o700)
        #expect(folder.modified.seconds == 1_700_000_100, "a folder's time is set after its files are written")
        #expect((try FileSystem.status(ofPath: staging.path)).permissions & 0o777 == 0o700)
        staging.discard()
        #expect(!FileSystem.exists(staging.path))
    }

    /// Each hostile member, and the words its refusal must have.
    static let hostile: [(String, @Sendable (inout TarBuilder) -> Void, String)] = [
        (
            "a device node", { $0.add(folder + "/mem", kind: .characterDevice, mode: 0o666, device: (1, 1)) },
            "character device"
        ),
        ("a block device", { $0.add(folder + "/sda", kind: .blockDevice, device: (8, 0)) }, "block device"),
        ("a FIFO", { $0.add(folder + "/pipe", kind: .fifo) }, "a FIFO"),
        ("a symbolic link out", { $0.add(folder + "/out", kind: .symbolicLink, link: "/etc") }, "a symbolic link"),
        ("the cache folder as a link", { $0.add("cache/other", kind: .symbolicLink, link: "/tmp") }, "a symbolic link"),
        ("a hard link", { $0.add(folder + "/hard", kind: .hardLink, link: "/etc/passwd") }, "a hard link"),
        ("a setuid file", { $0.add(folder + "/suid", data: [1], mode: 0o4755) }, "setuid"),
        ("a setgid folder", { $0.add(folder + "/sgid/", kind: .directory, mode: 0o2775) }, "setgid"),
        ("a sticky folder", { $0.add(folder + "/tmp/", kind: .directory, mode: 0o1777) }, "sticky"),
        ("an absolute name", { $0.add("/etc/cron.d/x", data: [1]) }, "an absolute name"),
        ("a climbing name", { $0.add(folder + "/../../x", data: [1]) }, "'..'"),
        ("a name outside the folders", { $0.add("files/evil.sh", data: [1]) }, "outside the cache's folders"),
        ("another cache folder", { $0.add("cache/other/x", data: [1]) }, "outside the cache's folders"),
        ("the folder as a file", { $0.add(folder, data: [1]) }, "outside the cache's folders"),
        ("a name through a file", { $0.add(folder + "/abc.0/x", data: [1]) }, "passes through a non-folder"),
        ("a name twice", { $0.add(folder + "/abc.0", data: [2]) }, "appears twice"),
        ("an empty part", { $0.add(folder + "//x", data: [1]) }, "an empty or '.' part"),
    ]

    @Test(arguments: hostile.indices)
    func aHostileMemberIsRefusedByName(index: Int) throws {
        let (what, add, words) = Self.hostile[index]
        let temp = try TemporaryFolder()
        var tar = Self.wholeStream(extra: add)
        tar.finish()
        let (staging, error) = try Self.fill(tar.bytes, in: temp)
        let refusal = try #require(error as? PullStaging.Refusal, "\(what): \(String(describing: error))")
        #expect(refusal.reason.contains(words), "\(what): \(refusal.reason)")
        #expect(!refusal.member.isEmpty, "\(what)")
        // Nothing but files and folders was made, and nothing outside the staging folder.
        let made = try FileManager.default.subpathsOfDirectory(atPath: staging.path)
        for path in made {
            let info = try FileSystem.status(ofPath: staging.path + "/" + path, followingLinks: false)
            #expect(info.kind == .file || info.kind == .directory, "\(what): \(path) is \(info.kind)")
            #expect(info.permissions & 0o7000 == 0, "\(what): \(path)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).count == 1, "\(what)")
        staging.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty, "\(what)")
    }

    /// A stream cut between two members (libarchive alone takes it for a whole one), after one
    /// block of zeros, or inside a member's data is incomplete.
    @Test(arguments: ["between members", "after one block of zeros", "inside a member", "empty"])
    func aCutStreamIsIncomplete(cut: String) throws {
        let temp = try TemporaryFolder()
        var bytes = Self.wholeStream().bytes
        switch cut {
        case "between members": break
        case "after one block of zeros": bytes += [UInt8](repeating: 0, count: 512)
        case "inside a member": bytes = Array(bytes.prefix(bytes.count - 700))
        default: bytes = []
        }
        let (staging, error) = try Self.fill(bytes, in: temp)
        defer { staging.discard() }
        #expect(error is TarReader.Failure, "\(cut): \(String(describing: error))")
    }

    /// flutter's parts: its cache folder and the database file outside it; the database as a
    /// folder is refused, and a stream without it is found missing.
    @Test func flutterTakesItsDatabaseAsAFileOnly() throws {
        let temp = try TemporaryFolder()
        let folders = ["cache/libCachedImageData"]
        var tar = TarBuilder()
        tar.add("cache/libCachedImageData/a.png", data: [1, 2, 3])
        tar.add(Self.database + "/", kind: .directory)
        tar.finish()
        let staging = try PullStaging(in: temp.path, folders: folders, files: [Self.database])
        defer { staging.discard() }
        #expect(throws: PullStaging.Refusal.self) { try staging.fill(from: TarReader(source: Bytes(tar.bytes))) }

        var partial = TarBuilder()
        partial.add("cache/libCachedImageData/a.png", data: [1, 2, 3])
        partial.finish()
        let second = try PullStaging(in: temp.path, folders: folders, files: [Self.database])
        defer { second.discard() }
        try second.fill(from: TarReader(source: Bytes(partial.bytes)))
        #expect(try second.finish(expecting: [(folders[0], true), (Self.database, false)]) == Self.database)
    }
}

/// pack's opening of a member: a FIFO or a link swapped in after the folder was walked is refused
/// (`notPackable`), never opened blocking nor followed.
@Suite struct PackMemberOpeningTests {
    @Test(arguments: ["fifo", "link", "folder"])
    func aMemberSwappedAfterTheWalkIsRefused(swap: String) throws {
        let temp = try TemporaryFolder()
        let path = temp.path("entry.0")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        let walked = try FileSystem.status(ofPath: path, followingLinks: false)
        try FileManager.default.removeItem(atPath: path)
        switch swap {
        case "fifo": #expect(mkfifo(path, 0o600) == 0)
        case "link": try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/etc/hostname")
        default: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        #expect(throws: PackJob.Error.notPackable(path)) {
            _ = try PackJob.openMember(temp.path, "entry.0", as: walked)
        }
    }

    @Test func theFileWalkedOpens() throws {
        let temp = try TemporaryFolder()
        let path = temp.path("entry.0")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        let walked = try FileSystem.status(ofPath: path, followingLinks: false)
        let opened = try PackJob.openMember(temp.path, "entry.0", as: walked)
        opened.file.close()
    }
}
