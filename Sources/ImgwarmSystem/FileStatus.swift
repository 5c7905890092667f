#if canImport(Glibc)
    import Glibc
#endif

/// What `stat` says about one file, in Swift terms.
public struct FileStatus: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable { case file, directory, symlink, other }

    public var kind: Kind
    /// `st_size`: the logical size in bytes.
    public var size: UInt64
    /// `st_blocks × 512`: the space the file takes on disk.
    public var allocatedSize: UInt64
    public var accessed: Timestamp
    public var modified: Timestamp
    /// The inode change time (`ctime`).
    public var changed: Timestamp
    public var device: UInt64
    public var inode: UInt64
    public var owner: UInt32
    /// The permission bits (`st_mode & 0o7777`).
    public var permissions: UInt32

    /// What `info` (from `stat`, `fstat` or `fstatat`) says; this layer makes the calls.
    init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .file
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        size = UInt64(max(0, info.st_size))
        allocatedSize = UInt64(max(0, info.st_blocks)) * 512
        accessed = Timestamp(info.st_atim)
        modified = Timestamp(info.st_mtim)
        changed = Timestamp(info.st_ctim)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        owner = info.st_uid
        permissions = UInt32(info.st_mode & 0o7777)
    }
}

/// New access and modification times for a file (`futimens`, `utimensat`).
public struct FileTimes: Sendable, Equatable {
    public enum Change: Sendable, Equatable {
        /// Left as it is.
        case keep
        /// Set to the current time.
        case now
        case set(Timestamp)

        var cValue: (timespec, Int32) {
            switch self {
            case .keep: return (timespec(), 0)
            case .now: return (timespec(), 1)
            case .set(let time): return (time.timeValue, 2)
            }
        }
    }

    public var access: Change
    public var modification: Change

    public init(access: Change = .keep, modification: Change = .keep) {
        self.access = access
        self.modification = modification
    }
}
