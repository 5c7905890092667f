import CImgwarmSys
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes cache files the way a reader may never catch half-done: the bytes go to a temporary
/// file in imgwarm's private folder (same file system, outside the cache folder), then
/// `rename(2)` puts the complete file in place (SPEC §1).
public final class CacheStore: Sendable {
    public let location: CacheLocation
    /// Where temporary files go: `<private folder>/tmp`, or the cache folder itself (hidden
    /// names) when the private folder is on another file system.
    public let temporaryFolder: String
    private let folderDescriptor: Int32
    private let temporaryDescriptor: Int32
    /// Prefix of temporary file names: empty, or `.imgwarm-` when they live in the cache folder.
    public let temporaryPrefix: String
    private let counter = Mutex(0)
    /// Whether the cache folder's file system offers O_TMPFILE (learned on first use).
    private let anonymousFiles = Mutex<Bool?>(nil)

    /// Opens (creating when missing) the cache folder and the temporary folder, and checks that
    /// both can be written. Throws before any download when they cannot.
    public init(location: CacheLocation) throws(CacheStoreError) {
        self.location = location
        try CacheStore.makeFolders(location.folder)
        let folder = open(location.folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw .unusable(location.folder, errno) }
        var temporary = location.privateFolder + "/tmp"
        var prefix = ""
        do {
            try CacheStore.makeFolders(temporary)
        } catch {
            close(folder)
            throw error
        }
        var folderInfo = stat(), temporaryInfo = stat()
        fstat(folder, &folderInfo)
        stat(temporary, &temporaryInfo)
        if folderInfo.st_dev != temporaryInfo.st_dev {
            // A rename cannot cross file systems: fall back to hidden names in the folder itself.
            temporary = location.folder
            prefix = ".imgwarm-"
        }
        let temporaryFD = open(temporary, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard temporaryFD >= 0 else {
            let code = errno
            close(folder)
            throw .unusable(temporary, code)
        }
        folderDescriptor = folder
        temporaryDescriptor = temporaryFD
        presentNames = CacheStore.snapshot(folder)
        temporaryFolder = temporary
        temporaryPrefix = prefix
        // Both must be writable: try it, as root bypasses the permission bits but not a
        // read-only mount.
        for (descriptor, path) in [(temporaryFD, temporary), (folder, location.folder)] {
            let probe = ".imgwarm-probe-\(getpid())"
            let file = openat(descriptor, probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard file >= 0 else {
                let code = errno
                close(folder)
                close(temporaryFD)
                throw .notWritable(path, code)
            }
            close(file)
            unlinkat(descriptor, probe, 0)
        }
    }

    deinit {
        close(folderDescriptor)
        close(temporaryDescriptor)
    }

    /// Removes temporary files left by imgwarm processes that no longer run (after `kill -9`,
    /// a crash, a second Ctrl-C), or older than a day; returns how many went.
    @discardableResult
    public func removeStaleTemporaryFiles(now: Timestamp = .now()) -> Int {
        guard let directory = fdopendir(dup(temporaryDescriptor)) else { return 0 }
        defer { closedir(directory) }
        rewinddir(directory)
        var removed = 0
        let me = getpid()
        while let record = readdir(directory) {
            guard let name = DiskCache.validName(of: record), name.hasPrefix(temporaryPrefix),
                name.hasSuffix(".tmp") || name.hasSuffix(".part")
            else { continue }
            let rest = name.dropFirst(temporaryPrefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]), pid != me else { continue }
            var info = stat()
            guard fstatat(temporaryDescriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            let gone = kill(pid, 0) != 0 && errno == ESRCH
            let old = Int64(info.st_mtim.tv_sec) < now.seconds - 86400
            if (gone || old) && unlinkat(temporaryDescriptor, name, 0) == 0 { removed += 1 }
        }
        return removed
    }

    /// True when the temporary folder is the cache folder (see `init`).
    public var usesHiddenTemporaryFiles: Bool { !temporaryPrefix.isEmpty }

    private static func makeFolders(_ path: String) throws(CacheStoreError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(path) }
            return
        }
        let (parent, _) = CacheLocation.split(path)
        if parent != path && parent != "/" { try makeFolders(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw .unusable(path, errno) }
    }

    // MARK: Hits

    /// The names present when the run started, as the digests their hex prefixes spell; nil when
    /// the folder was too large to list cheaply. A name absent from it is a miss without a system
    /// call (a file written since by another process is fetched again, and the link replaces
    /// it); a name present is still checked with `fstatat`, so a file removed since is a miss.
    private let presentNames: FingerprintSet?

    /// Folders whose directory file is larger than this (roughly 200,000 entries) are not listed.
    static let snapshotLimit = 8 << 20

    private static func snapshot(_ descriptor: Int32) -> FingerprintSet? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, Int(info.st_size) <= snapshotLimit,
            let directory = fdopendir(dup(descriptor))
        else { return nil }
        defer { closedir(directory) }
        var names = FingerprintSet(minimumCapacity: Int(info.st_size) / 40)
        while let record = readdir(directory) {
            let found: MD5.Digest? = withUnsafePointer(to: record.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: UInt8.self, capacity: 256) { bytes in
                    CacheStore.digest(ofNameBytes: bytes, count: strnlen(UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self), 256))
                }
            }
            if let found { names.insert(found) }
        }
        return names
    }

    /// The digest a cache file name starts with (32 lower-case hex digits), or nil.
    static func digest(ofName name: String) -> MD5.Digest? {
        var name = name
        return name.withUTF8 { bytes in
            bytes.count >= 32 ? CacheStore.digest(ofNameBytes: bytes.baseAddress!, count: bytes.count) : nil
        }
    }

    private static func digest(ofNameBytes bytes: UnsafePointer<UInt8>, count: Int) -> MD5.Digest? {
        guard count >= 32, count == 32 || bytes[32] == UInt8(ascii: ".") else { return nil }
        var words: [UInt32] = [0, 0, 0, 0]
        for index in 0..<32 {
            let c = bytes[index]
            let value: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt32(c - UInt8(ascii: "a") + 10)
            default: return nil
            }
            // Each word holds 4 bytes, little-endian, as MD5.Digest stores them.
            let byteIndex = index / 2
            let shift = UInt32((byteIndex % 4) * 8 + (index % 2 == 0 ? 4 : 0))
            words[byteIndex / 4] |= value << shift
        }
        return MD5.Digest(a: words[0], b: words[1], c: words[2], d: words[3])
    }

    /// What is at a cache file name.
    public enum Lookup: Sendable, Equatable {
        /// A non-empty regular file: a cache hit.
        case hit(size: Int)
        /// Nothing usable (absent, empty, or not a regular file other than a folder).
        case miss
        /// A folder stands where the file should: it can never be written.
        case blocked
    }

    public func lookup(_ name: String) -> Lookup {
        if let snapshot = presentNames, let digest = CacheStore.digest(ofName: name), !snapshot.contains(digest) {
            return .miss
        }
        var info = stat()
        guard fstatat(folderDescriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return .miss }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return info.st_size > 0 ? .hit(size: Int(info.st_size)) : .miss
        case S_IFDIR: return .blocked
        default: return .miss
        }
    }

    /// Sets the file's access time to now: a cache hit counts as a read (SPEC §3), whatever the
    /// mount's atime policy.
    @discardableResult
    public func touch(_ name: String) -> Bool {
        imgwarm_set_atime_at(folderDescriptor, name, timespec(), 1) == 0
    }

    // MARK: Writing

    /// A fresh temporary file name (unique in this process).
    public func temporaryName() -> String {
        let serial = counter.withLock { value -> Int in
            value += 1
            return value
        }
        return "\(temporaryPrefix)\(getpid())-\(serial).tmp"
    }

    /// Writes `bytes` under `name`, atomically; nothing is left behind on failure.
    ///
    /// The fast way: an unnamed file (O_TMPFILE) in the cache folder, written, then linked under
    /// its name: one directory operation, never visible half-written, and nothing to clean up after
    /// a crash. A name already taken (a refresh replacing a file, another process) goes through a
    /// temporary name in the private folder and a `rename(2)`, which replaces atomically.
    /// `publish` runs the final directory change (under the cache lock, for the caller).
    public func store(_ bytes: UnsafeRawBufferPointer, as name: String, publish: (() throws(StoreFailure) -> Void) throws(StoreFailure) -> Void = { try $0() }) throws(StoreFailure) {
        guard anonymousFiles.withLock({ $0 }) != false else {
            let temporary = try writeTemporary(bytes)
            do throws(StoreFailure) {
                try publish { () throws(StoreFailure) in try moveIntoPlace(temporaryName: temporary, name: name) }
            } catch {
                discard(temporaryName: temporary)
                throw error
            }
            return
        }
        let file = imgwarm_open_anonymous(folderDescriptor, 0o644)
        if file < 0 {
            let code = errno
            if code == EOPNOTSUPP || code == EISDIR || code == EINVAL || code == ENOENT {
                anonymousFiles.withLock { $0 = false }
                return try store(bytes, as: name, publish: publish)
            }
            throw StoreFailure(code: code, step: "create a file")
        }
        anonymousFiles.withLock { $0 = true }
        defer { close(file) }
        try CacheStore.writeAll(file, bytes)
        try publish { () throws(StoreFailure) in
            if imgwarm_link_anonymous(file, folderDescriptor, name) == 0 { return }
            guard errno == EEXIST else { throw StoreFailure(code: errno, step: "move the file into the cache") }
            // Replace: link under a temporary name in the private folder, then rename over.
            let temporary = temporaryName()
            guard imgwarm_link_anonymous(file, temporaryDescriptor, temporary) == 0 else {
                throw StoreFailure(code: errno, step: "move the file into the cache")
            }
            try moveIntoPlace(temporaryName: temporary, name: name)
        }
    }

    private static func writeAll(_ file: Int32, _ bytes: UnsafeRawBufferPointer) throws(StoreFailure) {
        var offset = 0
        while offset < bytes.count {
            let written = write(file, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw StoreFailure(code: errno, step: "write")
            }
            offset += written
        }
    }

    /// Writes `bytes` to a new temporary file and returns its name (in `temporaryFolder`).
    public func writeTemporary(_ bytes: UnsafeRawBufferPointer) throws(StoreFailure) -> String {
        let temporary = temporaryName()
        let file = openat(temporaryDescriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw StoreFailure(code: errno, step: "create a temporary file") }
        do throws(StoreFailure) {
            try CacheStore.writeAll(file, bytes)
        } catch {
            close(file)
            unlinkat(temporaryDescriptor, temporary, 0)
            throw error
        }
        if close(file) != 0 {
            let code = errno
            unlinkat(temporaryDescriptor, temporary, 0)
            throw StoreFailure(code: code, step: "write")
        }
        return temporary
    }

    /// Renames a complete temporary file (a name inside `temporaryFolder`) to `name`.
    public func moveIntoPlace(temporaryName: String, name: String) throws(StoreFailure) {
        if renameat(temporaryDescriptor, temporaryName, folderDescriptor, name) != 0 {
            let code = errno
            unlinkat(temporaryDescriptor, temporaryName, 0)
            throw StoreFailure(code: code, step: "move the file into the cache")
        }
    }

    /// Removes a temporary file that will not be used.
    public func discard(temporaryName: String) {
        unlinkat(temporaryDescriptor, temporaryName, 0)
    }
}

/// The cache folder or its private folder cannot be used: the run stops (exit code 3).
public enum CacheStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case notADirectory(String)
    case unusable(String, Int32)
    case notWritable(String, Int32)

    public var description: String {
        switch self {
        case .notADirectory(let path): return "\(path) is not a folder"
        case .unusable(let path, let code): return "cannot use \(path): \(SystemError.message(code))"
        case .notWritable(let path, let code): return "cannot write in \(path): \(SystemError.message(code))"
        }
    }
}

/// Storing one file failed (a per-URL failure; a full disk also ends the run).
public struct StoreFailure: Error, Sendable, CustomStringConvertible {
    public var code: Int32
    public var step: String
    /// Set when the failure is a cache lock wait that ran out.
    public var lockTimeout: CacheLock.Timeout?

    public init(code: Int32, step: String, lockTimeout: CacheLock.Timeout? = nil) {
        self.code = code
        self.step = step
        self.lockTimeout = lockTimeout
    }

    /// True when nothing more can be written: disk full or out of quota.
    public var isDiskFull: Bool { code == ENOSPC || code == EDQUOT }

    public var description: String {
        if let lockTimeout { return lockTimeout.description }
        return "cannot \(step): \(SystemError.message(code))"
    }
}
