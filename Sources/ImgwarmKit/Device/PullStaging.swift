import Archive
import ImgwarmSystem

/// Where `pull` lays out what the device sends (docs/hardening.md, "The device boundary"): a
/// private folder (`mkdtemp`, 0700) beside the output, on the same file system, filled member by
/// member and renamed into place only once the stream was whole.
///
/// The device's tar stream is parsed by libarchive (`TarReader`) and never handed to a program
/// that restores what it finds (GNU tar, run as root, restores device nodes, FIFOs, setuid files
/// and other users' folders). Every member is judged first (`judge`): only regular files and
/// folders, without setuid, setgid or sticky bits, whose name is relative, has no `.`, `..` or
/// empty part, and lies in the format's folders (or is a folder on the way to one). Each is then
/// created here through `openat` relative to the staging folder, never through a link
/// (`O_NOFOLLOW`; a file `O_CREAT | O_EXCL`), files 0600 and folders 0700, owned by the user
/// running imgwarm, with the member's modification and access times (`futimens`; folders once
/// everything in them is written).
final class PullStaging {
    /// A member refused: its name (as sent, not escaped) and why, in words for the message.
    struct Refusal: Error, Equatable {
        var member = ""
        var reason: String
    }

    /// The staging folder's path.
    let path: String
    private let root: FileDescriptor
    /// The container paths pulled, as components: folders (the cache folder) and single files
    /// (flutter's database).
    private let folders: [[String]]
    private let files: [[String]]
    /// Each folder made, with the times to give it at the end.
    private var folderTimes: [(components: [String], times: FileTimes)] = []
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)

    /// A new private folder in `parent`.
    init(in parent: String, folders: [String], files: [String]) throws(SystemError) {
        path = try FileSystem.makePrivateFolder(in: parent, prefix: ".imgwarm-pull-")
        do {
            root = try FileDescriptor.openFolder(path)
        } catch {
            try? FileSystem.removeTree(path)
            throw error
        }
        self.folders = folders.map { $0.split(separator: "/").map(String.init) }
        self.files = files.map { $0.split(separator: "/").map(String.init) }
    }

    deinit { root.close() }

    /// Removes the staging folder and everything in it.
    func discard() {
        try? FileSystem.removeTree(path)
    }

    /// The components of `member`'s name when it may be created, else why not.
    static func judge(_ member: TarMember, folders: [[String]], files: [[String]]) -> Result<[String], Refusal> {
        switch member.kind {
        case .file, .directory: break
        case .symbolicLink: return .failure(Refusal(reason: "a symbolic link"))
        case .hardLink: return .failure(Refusal(reason: "a hard link"))
        case .other(let type):
            switch type {
            case 0o020000: return .failure(Refusal(reason: "a character device"))
            case 0o060000: return .failure(Refusal(reason: "a block device"))
            case 0o010000: return .failure(Refusal(reason: "a FIFO"))
            case 0o140000: return .failure(Refusal(reason: "a socket"))
            default: return .failure(Refusal(reason: "neither a file nor a folder"))
            }
        }
        if member.mode & 0o4000 != 0 { return .failure(Refusal(reason: "a setuid member")) }
        if member.mode & 0o2000 != 0 { return .failure(Refusal(reason: "a setgid member")) }
        if member.mode & 0o1000 != 0 { return .failure(Refusal(reason: "a member with the sticky bit")) }
        guard var name = String(validating: member.path, as: UTF8.self) else {
            return .failure(Refusal(reason: "a name that is not UTF-8"))
        }
        if name.hasPrefix("/") { return .failure(Refusal(reason: "an absolute name")) }
        if name.hasPrefix("./") { name.removeFirst(2) }
        if member.kind == .directory, name.hasSuffix("/") { name.removeLast() }
        let components = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if components.contains("..") { return .failure(Refusal(reason: "a name with '..'")) }
        if components.contains(where: { $0.isEmpty || $0 == "." || $0.utf8.contains(0) }) {
            return .failure(Refusal(reason: "a name with an empty or '.' part"))
        }
        let isFolder = member.kind == .directory
        for folder in folders {
            if components.starts(with: folder) && (components.count > folder.count || isFolder) {
                return .success(components)
            }
            if isFolder && folder.starts(with: components) { return .success(components) }
        }
        for file in files {
            if components == file && !isFolder { return .success(components) }
            if isFolder && file.starts(with: components) && components.count < file.count {
                return .success(components)
            }
        }
        return .failure(Refusal(reason: "outside the cache's folders"))
    }

    /// Creates every member `reader` reads, in order; the stream must end with its
    /// end-of-archive blocks (`TarReader.Failure.format` otherwise). A refused member ends it
    /// (`Refusal`, naming the member).
    func fill(from reader: TarReader) throws {
        while let member = try reader.next() {
            do {
                try add(member, from: reader)
            } catch var refusal as Refusal {
                refusal.member = String(decoding: member.path, as: UTF8.self)
                throw refusal
            }
        }
        guard reader.endedWithTrailer else {
            throw TarReader.Failure.format("the stream ended without its end-of-archive blocks")
        }
    }

    /// Creates `member` (its data read from `reader`) in the staging folder.
    func add(_ member: TarMember, from reader: TarReader) throws {
        let components = try PullStaging.judge(member, folders: folders, files: files).get()
        let times = FileTimes(
            access: member.accessed.map { .set(Timestamp(seconds: $0.seconds, nanoseconds: $0.nanoseconds)) }
                ?? member.modified.map { .set(Timestamp(seconds: $0.seconds, nanoseconds: $0.nanoseconds)) } ?? .keep,
            modification: member.modified.map { .set(Timestamp(seconds: $0.seconds, nanoseconds: $0.nanoseconds)) }
                ?? .keep)
        let parent = try openParent(of: components)
        defer { if parent != root { parent.close() } }
        let name = components[components.count - 1]
        if member.kind == .directory {
            try makeFolder(name, in: parent)
            folderTimes.append((components, times))
            return
        }
        let file: FileDescriptor
        do {
            file = try parent.createFile(name, permissions: 0o600)
        } catch {
            if error.isAlreadyThere { throw Refusal(reason: "a name that appears twice") }
            throw error
        }
        do {
            while true {
                let count = try buffer.withUnsafeMutableBytes { try reader.readData(into: $0) }
                if count == 0 { break }
                try buffer.withUnsafeBytes { try file.writeAll(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            }
            try file.setTimes(times)
        } catch {
            file.close()
            throw error
        }
        try file.closeAfterWriting()
    }

    /// The folder that holds `components`' last name, each folder on the way opened without
    /// following a link, and (`making`) made (0700) where missing.
    private func openParent(of components: [String], making: Bool = true) throws -> FileDescriptor {
        var folder = root
        for name in components.dropLast() {
            let next: FileDescriptor
            do {
                next = try folder.openFolder(name)
            } catch {
                guard error.isNotFound && making else {
                    if folder != root { folder.close() }
                    // ENOTDIR, ELOOP: a file stands where a folder is named.
                    throw Refusal(reason: "a name that passes through a non-folder")
                }
                do {
                    try makeFolder(name, in: folder)
                    next = try folder.openFolder(name)
                } catch {
                    if folder != root { folder.close() }
                    throw error
                }
            }
            if folder != root { folder.close() }
            folder = next
        }
        return folder
    }

    /// Makes the folder `name` in `folder`; a folder already there is fine, anything else is not.
    private func makeFolder(_ name: String, in folder: FileDescriptor) throws {
        do {
            try folder.makeFolder(name, permissions: 0o700)
        } catch {
            guard error.isAlreadyThere else { throw error }
            guard (try? folder.status(of: name))?.kind == .directory else {
                throw Refusal(reason: "a folder where a file stands")
            }
        }
    }

    /// Gives each folder its member's times (the deepest first: setting a folder's times does not
    /// change its parent's), then checks that every path of `expected` (container paths) arrived,
    /// a folder or a file as asked: the first missing one, else nil.
    func finish(expecting expected: [(path: String, isFolder: Bool)]) throws -> String? {
        for (components, times) in folderTimes.sorted(by: { $0.components.count > $1.components.count }) {
            let parent = try openParent(of: components)
            defer { if parent != root { parent.close() } }
            try parent.setTimes(of: components[components.count - 1], times)
        }
        for (path, isFolder) in expected {
            let components = path.split(separator: "/").map(String.init)
            guard let parent = try? openParent(of: components, making: false) else { return path }
            defer { if parent != root { parent.close() } }
            let kind = (try? parent.status(of: components[components.count - 1]))?.kind
            if kind != (isFolder ? .directory : .file) { return path }
        }
        return nil
    }
}
