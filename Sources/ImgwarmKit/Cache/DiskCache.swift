#if canImport(Glibc)
import Glibc
#endif
import CImgwarmSys

/// Which file date drives expiry and trimming (SDWebImage's `SDImageCacheConfigExpireType`).
/// `access` by default, SDWebImage's default since 5.20.
public enum ExpireType: String, CaseIterable, Codable, Sendable {
    case access, modification, creation, change
}

/// One entry directly inside the disk cache folder, as `lstat` (and `statx` for birth) see it.
public struct CacheEntry: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable { case file, directory, symlink, other }

    public var name: String
    public var kind: Kind
    /// `st_size`: what SDWebImage's `totalDiskSize` adds up.
    public var logicalSize: UInt64
    /// `st_blocks × 512`: what SDWebImage's trim pass adds up.
    public var allocatedSize: UInt64
    /// The date of the chosen expire type.
    public var date: Timestamp
    public var device: UInt64
    public var inode: UInt64

    /// Names starting with `.` are hidden; SDWebImage's expiry enumerator skips them.
    public var isHidden: Bool { name.utf8.first == UInt8(ascii: ".") }
}

/// Totals of a folder as SDWebImage's `totalDiskSize` / `totalDiskCount` compute them: every entry
/// at any depth, hidden ones and subfolders included, symbolic links counted but not followed.
public struct DiskTotals: Codable, Equatable, Sendable {
    /// SDWebImage's `totalDiskCount`.
    public var entries: Int = 0
    /// SDWebImage's `totalDiskSize`: the sum of `st_size`.
    public var logicalBytes: UInt64 = 0
    /// The sum of `st_blocks × 512`: the space the entries take on disk.
    public var allocatedBytes: UInt64 = 0

    public init(entries: Int = 0, logicalBytes: UInt64 = 0, allocatedBytes: UInt64 = 0) {
        self.entries = entries
        self.logicalBytes = logicalBytes
        self.allocatedBytes = allocatedBytes
    }

    mutating func add(logical: UInt64, allocated: UInt64) {
        entries += 1
        logicalBytes &+= logical
        allocatedBytes &+= allocated
    }

    mutating func subtract(logical: UInt64, allocated: UInt64) {
        entries -= 1
        logicalBytes &-= min(logical, logicalBytes)
        allocatedBytes &-= min(allocated, allocatedBytes)
    }
}

/// A run-level problem with the disk cache folder. Per-file trouble is data, not an error.
public enum DiskCacheError: Error, Equatable, Sendable, CustomStringConvertible {
    case notADirectory(String)
    case unreadable(String, Int32)
    case noBirthTime(String)
    /// Another imgwarm held the cache lock longer than the wait allowed.
    case locked(String)
    /// `clean` will not delete here: the folder is protected or does not look like a disk cache.
    case refused(String)

    public var description: String {
        switch self {
        case .notADirectory(let path):
            return "\(path) is not a folder"
        case .unreadable(let path, let code):
            return "cannot read \(path): \(SystemError.message(code))"
        case .locked(let message), .refused(let message):
            return message
        case .noBirthTime(let path):
            return "the file system of \(path) records no creation (birth) time; "
                + "use --expire-type modification, access or change"
        }
    }
}

/// The disk cache folder: scanning, statistics and SDWebImage's expiry and trim pass.
public struct DiskCache: Sendable {
    public let location: CacheLocation

    public init(location: CacheLocation) {
        self.location = location
    }

    /// What a scan of the folder found.
    public struct Scan: Sendable {
        /// False when the folder does not exist (then everything else is empty).
        public var exists = true
        /// Every entry directly inside the folder.
        public var entries: [CacheEntry] = []
        /// SDWebImage's totals over the whole tree.
        public var totals = DiskTotals()
    }

    /// Reads every entry of the folder, without following symbolic links inside it (the folder
    /// itself may be a link to a folder: it is followed, as prefetch does).
    ///
    /// Subfolders are entered only to count their entries into `totals` (SDWebImage's
    /// `totalDiskCount` descends too); their contents never appear in `entries`.
    public func scan(expireType: ExpireType) throws(DiskCacheError) -> Scan {
        let folder = location.folder
        var info = stat()
        if stat(folder, &info) != 0 {
            if errno == ENOENT { return Scan(exists: false) }
            throw .unreadable(folder, errno)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(folder) }
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(folder, errno) }
        guard let directory = fdopendir(descriptor) else {
            let code = errno
            close(descriptor)
            throw .unreadable(folder, code)
        }
        defer { closedir(directory) }

        var scan = Scan()
        while let record = readdir(directory) {
            // A name that is not UTF-8 cannot be a name imgwarm or SDWebImage wrote: it is counted,
            // never deleted.
            let rawName = DiskCache.name(of: record)
            if rawName == "." || rawName == ".." { continue }
            var entryInfo = stat()
            guard fstatat(descriptor, rawName, &entryInfo, AT_SYMLINK_NOFOLLOW) == 0 else { continue }  // raced away
            let validName = DiskCache.validName(of: record)
            let name = validName ?? rawName
            let kind = validName == nil ? .other : DiskCache.kind(of: entryInfo)
            let date: Timestamp
            if expireType == .creation && kind == .file {
                var birth = timespec()
                switch imgwarm_birth_time(descriptor, name, &birth) {
                case 0: date = Timestamp(birth)
                case 1: throw .noBirthTime(folder)
                default: continue
                }
            } else {
                date = DiskCache.date(of: entryInfo, expireType)
            }
            let entry = CacheEntry(
                name: name, kind: kind, logicalSize: UInt64(entryInfo.st_size),
                allocatedSize: UInt64(entryInfo.st_blocks) * 512, date: date,
                device: UInt64(entryInfo.st_dev), inode: UInt64(entryInfo.st_ino))
            scan.entries.append(entry)
            scan.totals.add(logical: entry.logicalSize, allocated: entry.allocatedSize)
            if kind == .directory {
                DiskCache.addTree(parent: descriptor, name: name, to: &scan.totals)
            }
        }
        return scan
    }

    /// Adds the entries below the subfolder `name` to `totals`, depth first, links not followed.
    private static func addTree(parent: Int32, name: String, to totals: inout DiskTotals) {
        let descriptor = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0, let directory = fdopendir(descriptor) else {
            if descriptor >= 0 { close(descriptor) }
            return
        }
        defer { closedir(directory) }
        while let record = readdir(directory) {
            let child = DiskCache.name(of: record)
            if child == "." || child == ".." { continue }
            var info = stat()
            guard fstatat(descriptor, child, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            totals.add(logical: UInt64(info.st_size), allocated: UInt64(info.st_blocks) * 512)
            if info.st_mode & S_IFMT == S_IFDIR {
                addTree(parent: descriptor, name: child, to: &totals)
            }
        }
    }

    static func name(of record: UnsafeMutablePointer<dirent>) -> String {
        withUnsafePointer(to: record.pointee.d_name) { pointer in
            pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
    }

    static func validName(of record: UnsafeMutablePointer<dirent>) -> String? {
        withUnsafePointer(to: record.pointee.d_name) { pointer in
            pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(validatingCString: $0) }
        }
    }

    static func kind(of info: stat) -> CacheEntry.Kind {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }

    static func date(of info: stat, _ type: ExpireType) -> Timestamp {
        switch type {
        case .access: return Timestamp(info.st_atim)
        case .modification: return Timestamp(info.st_mtim)
        case .change, .creation: return Timestamp(info.st_ctim)
        }
    }
}

/// Messages for `errno` values.
public enum SystemError {
    public static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
