import ImgwarmSystem

/// Which file date drives expiry and trimming (SDWebImage's `SDImageCacheConfigExpireType`).
/// `access` by default, SDWebImage's default since 5.20.
public enum ExpireType: String, CaseIterable, Codable, Sendable {
    case access, modification, creation, change
}

/// One entry directly inside the disk cache folder, as `lstat` (and `statx` for birth) see it.
public struct CacheEntry: Sendable, Equatable {
    public typealias Kind = FileStatus.Kind

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
    public var isHidden: Bool { CacheEntry.isHidden(name: name.utf8) }

    static func isHidden<Bytes: Sequence<UInt8>>(name: Bytes) -> Bool {
        var bytes = name.makeIterator()
        return bytes.next() == UInt8(ascii: ".")
    }
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
    case unreadable(String, SystemError)
    case noBirthTime(String)
    /// Another imgwarm held the cache lock longer than the wait allowed.
    case locked(CacheLock.Timeout)
    /// `clean` will not delete here: the folder is `what` (`/`, the home folder, a caches root),
    /// not a disk cache folder.
    case protectedFolder(String, what: String)
    /// `clean` will not delete here: `count` files do not have cache file names of the format
    /// whose names look like `shape` (`names`: the first three).
    case foreignFolder(String, names: [String], count: Int, shape: String = CacheFormats.standard.entryNameShape)
    /// The format's index (a journal) is one the library would not read, or could not be used.
    indirect case index(CacheIndexError)

    public var description: String {
        switch self {
        case .notADirectory(let path):
            return "\(path) is not a folder"
        case .unreadable(let path, let error):
            return "cannot read \(path): \(error)"
        case .locked(let timeout):
            return timeout.description
        case .index(let error):
            return error.description
        case .protectedFolder(let folder, let what):
            return "refusing to clean \(folder): it is \(what), not a disk cache folder; "
                + "name the cache folder itself, e.g. \(Setting.diskCachePath) ~/.cache/com.hackemist.SDImageCache/default"
        case .foreignFolder(let folder, let names, let count, let shape):
            let named = names.map { "'\($0)'" }.joined(separator: ", ")
            let more = count > 3 ? " and \(count - 3) more" : ""
            return "refusing to clean \(folder): it does not look like an image disk cache (\(named)\(more) "
                + "\(count == 1 ? "is not a cache file name" : "are not cache file names"): \(shape)); "
                + "nothing was deleted. Check the folder, or add \(Setting.force) to clean it anyway"
        case .noBirthTime(let path):
            return "the file system of \(path) records no creation (birth) time; "
                + "use \(Setting.expireType) modification, access or change"
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
        guard let directory = try openExistingFolder() else { return Scan(exists: false) }
        defer { directory.close() }
        var scan = Scan()
        try walk(directory, expireType: expireType) { entry in
            scan.entries.append(entry)
            scan.totals.add(logical: entry.logicalSize, allocated: entry.allocatedSize)
        } folders: { name, info in
            scan.entries.append(
                CacheEntry(
                    name: name, kind: .directory, logicalSize: info.size, allocatedSize: info.allocatedSize,
                    date: DiskCache.date(of: info, expireType), device: info.device, inode: info.inode))
            addSubfolder(parent: directory, name: name, info: info, to: &scan.totals)
        }
        return scan
    }

    /// SDWebImage's totals of the folder (`totalDiskCount`, `totalDiskSize`) in one walk that
    /// keeps no entry; nil when the folder does not exist.
    public func totals() throws(DiskCacheError) -> DiskTotals? {
        guard let directory = try openExistingFolder() else { return nil }
        defer { directory.close() }
        var totals = DiskTotals()
        try walk(directory, expireType: .modification) { entry in
            totals.add(logical: entry.logicalSize, allocated: entry.allocatedSize)
        } folders: { name, info in
            addSubfolder(parent: directory, name: name, info: info, to: &totals)
        }
        return totals
    }

    /// Opens the cache folder (following a link to it); nil when it does not exist.
    func openExistingFolder() throws(DiskCacheError) -> FileDescriptor? {
        let folder = location.folder
        let status: FileStatus
        do {
            status = try FileSystem.status(ofPath: folder)
        } catch {
            if error.isNotFound { return nil }
            // A file on the way (`--cache-dir somefile`): named as prefetch names it.
            if let file = FileSystem.nonFolder(onPath: folder) { throw .notADirectory(file) }
            throw .unreadable(folder, error)
        }
        guard status.kind == .directory else { throw .notADirectory(folder) }
        return try openFolder()
    }

    /// One entry met by `walkEntries`, valid only during its call: the name's bytes (no String
    /// is made for it unless asked: a folder of millions of files mostly needs none), its status
    /// and the date of the walk's expire type.
    struct WalkedEntry {
        let nameBytes: UnsafeBufferPointer<UInt8>
        /// `.other` for a name that is not UTF-8 (never deleted).
        let kind: CacheEntry.Kind
        let info: FileStatus
        let date: Timestamp

        var isHidden: Bool { CacheEntry.isHidden(name: nameBytes) }

        /// The entry with its name as a String.
        func entry() -> CacheEntry {
            CacheEntry(
                name: String(decoding: nameBytes, as: UTF8.self), kind: kind, logicalSize: info.size,
                allocatedSize: info.allocatedSize, date: date, device: info.device, inode: info.inode)
        }

        static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            bytes.allSatisfy { $0 < 0x80 } || String(validating: bytes, as: UTF8.self) != nil
        }
    }

    /// One walk of the folder: calls `body` for every entry but folders, with the date of
    /// `expireType`, in directory order. Non-UTF-8 names come as `.other` (never deleted);
    /// a name that is not UTF-8 cannot be one imgwarm or SDWebImage wrote.
    func walk(
        _ directory: FileDescriptor, expireType: ExpireType,
        _ body: (CacheEntry) throws(DiskCacheError) -> Void,
        folders: ((String, FileStatus) -> Void)? = nil
    ) throws(DiskCacheError) {
        try walkEntries(
            directory, expireType: expireType, { walked throws(DiskCacheError) in try body(walked.entry()) },
            folders: folders)
    }

    /// `walk` without a String per entry: `body` gets the name's bytes and makes a `CacheEntry`
    /// only where it needs one. One `readdir` and one `fstatat` per entry (`FolderWalk`, which
    /// shares the `fstatat` calls with a helper thread).
    ///
    /// Without birth times on the file system, `.creation` is an error, unless `noBirthTime` is
    /// given: then it is called and the change time stands in.
    func walkEntries(
        _ directory: FileDescriptor, expireType: ExpireType,
        _ body: (WalkedEntry) throws(DiskCacheError) -> Void,
        folders: ((String, FileStatus) -> Void)? = nil,
        noBirthTime: (() -> Void)? = nil
    ) throws(DiskCacheError) {
        let folder = location.folder
        do {
            try FolderWalk.forEach(in: directory) { bytes, info in
                let kind = WalkedEntry.isUTF8(bytes) ? info.kind : .other
                if kind == .directory {
                    folders?(String(decoding: bytes, as: UTF8.self), info)
                    return
                }
                let date: Timestamp
                if expireType == .creation && kind == .file {
                    let birth: Timestamp?
                    let name = String(decoding: bytes, as: UTF8.self)
                    do { birth = try directory.birthTime(of: name) } catch { return }  // raced away
                    if let birth {
                        date = birth
                    } else if let noBirthTime {
                        noBirthTime()
                        date = info.changed
                    } else {
                        throw DiskCacheError.noBirthTime(folder)
                    }
                } else {
                    date = DiskCache.date(of: info, expireType)
                }
                try body(WalkedEntry(nameBytes: bytes, kind: kind, info: info, date: date))
            }
        } catch let error as DiskCacheError {
            throw error
        } catch {
            throw .unreadable(folder, (error as? SystemError) ?? SystemError(code: 0))
        }
    }

    /// Adds the subfolder `name` of the cache folder (`info` its status) and the entries below it
    /// to `totals`; for the format's layout folder (`LayoutFolderFormat`), only the files and
    /// links below it. Returns false for the layout folder.
    @discardableResult
    func addSubfolder(parent: FileDescriptor, name: String, info: FileStatus, to totals: inout DiskTotals) -> Bool {
        let isLayout = name == (location.format as? any LayoutFolderFormat)?.layoutFolder
        if !isLayout { totals.add(logical: info.size, allocated: info.allocatedSize) }
        DiskCache.addTree(parent: parent, name: name, to: &totals, countingFolders: !isLayout)
        return !isLayout
    }

    /// Adds the entries below the subfolder `name` to `totals`, depth first, links not followed;
    /// the folders among them only when `countingFolders`.
    static func addTree(parent: FileDescriptor, name: String, to totals: inout DiskTotals, countingFolders: Bool = true)
    {
        guard let directory = try? parent.openFolder(name) else { return }
        defer { directory.close() }
        try? directory.forEachEntry { record in
            guard let info = try? directory.status(of: record.displayName) else { return }
            if info.kind == .directory {
                if countingFolders { totals.add(logical: info.size, allocated: info.allocatedSize) }
                addTree(parent: directory, name: record.displayName, to: &totals, countingFolders: countingFolders)
            } else {
                totals.add(logical: info.size, allocated: info.allocatedSize)
            }
        }
    }

    static func date(of info: FileStatus, _ type: ExpireType) -> Timestamp {
        switch type {
        case .access: return info.accessed
        case .modification: return info.modified
        case .change, .creation: return info.changed
        }
    }

    /// Opens the cache folder (following a link to it); the caller closes the descriptor.
    public func openFolder() throws(DiskCacheError) -> FileDescriptor {
        do {
            return try FileDescriptor.openFolder(location.folder)
        } catch {
            throw .unreadable(location.folder, error)
        }
    }
}
