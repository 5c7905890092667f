import ImgwarmSystem

/// `imgwarm pack`: a cache as one pax archive laid out relative to an app's data container
/// (docs/pack.md). The first member is the manifest (`imgwarm-manifest.json`,
/// docs/pack-manifest.schema.json); then the cache folder and everything below it, and the files
/// its format keeps outside it (`OutsideFilesFormat`: flutter's database), by name. Several
/// formats' caches (`--cache-format a,b`) go into one archive, each folder where its library
/// keeps it, all members sorted by name.
///
/// Reads only, under the cache lock held exclusively (no prefetch renames a file or appends to a
/// journal meanwhile, no clean deletes; with several caches, every cache's lock, taken in the
/// order of their paths, so that two packs of overlapping lists never hold one each while
/// waiting for the other's): nothing is created, and reading a file leaves its access time as it
/// was. The same cache packs to the same bytes (`PaxArchive`).
public struct PackJob {
    public struct Configuration: Sendable {
        /// Whose container layout the archive follows.
        public var platform: AppContainer.Platform
        /// Seconds to wait for the cache lock another process holds (`--lock-timeout`).
        /// `CacheLock.defaultTimeout` by default.
        public var lockTimeout = CacheLock.defaultTimeout
        /// The app's bundle identifier: on iOS, for a format whose library reads the app's
        /// preferences (`AppPreferencesFormat`), the archive also holds its preferences file with
        /// what the library wants (`AppContainer.preferencesPath(bundleID:)`). Nil by default.
        public var bundleID: String?
        /// What stops the pack: a stop signal ends the wait for the lock and the writing, and the
        /// run fails with `Error.stopped`. Never by default.
        public var stop: StopSource = .never

        public init(platform: AppContainer.Platform) {
            self.platform = platform
        }
    }

    /// The manifest's name: the archive's first member, at its root.
    public static let manifestName = "imgwarm-manifest.json"

    /// What was packed.
    public struct Result {
        /// The files packed (the manifest not counted).
        public var files: Int
        /// Their bytes.
        public var bytes: UInt64
        /// The cache folder's path in the container (the first cache's, with several).
        public var containerFolder: String
        /// Each cache's part, in the order given: its folder here and in the container, its
        /// files (its outside files counted) and their bytes.
        public var caches: [(folder: String, containerFolder: String, files: Int, bytes: UInt64)]
        /// The manifest, as it is in the archive.
        public var manifest: [UInt8]
        /// What the manifest lists: each file's path in the archive, size and modification time.
        public var entries: [(path: String, size: UInt64, modified: Timestamp)]
    }

    /// Why nothing (or not all) could be packed.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case layout(ContainerLayoutError)
        /// The format's library is not used on the platform asked for: its name, the platform,
        /// the platforms it is used on.
        case otherPlatform(String, AppContainer.Platform, [AppContainer.Platform])
        /// A stop signal (its number) ended the pack.
        case stopped(Int32)
        /// There is no cache folder at the path.
        case noFolder(String)
        /// Something other than a folder (or a link to one) stands at the folder's path.
        case notAFolder(String)
        /// A file the format keeps outside its folder is missing: its path, its library.
        case missingOutsideFile(String, String)
        case locked(CacheLock.Timeout)
        /// Something in the folder that is neither a file nor a folder (a link): the app would not
        /// read it as an entry, and what it points to is not the cache's.
        case notPackable(String)
        case unreadable(String, SystemError)
        case read(PackReadError)

        public var description: String {
            switch self {
            case .layout(let error): return error.description
            case .otherPlatform(let format, let platform, let platforms):
                return
                    "\(format) is a cache of \(platforms.map(\.rawValue).joined(separator: " and ")) apps, not \(platform.rawValue): use the \(platform.rawValue) formats (\(CacheFormats.names(on: platform).joined(separator: ", "))) or \(Setting.platform) \(platforms.map(\.rawValue).joined(separator: "/"))"
            case .stopped(let signal):
                return "stopped by \(StopSignals.name(of: signal)): nothing was written"
            case .noFolder(let path):
                return
                    "there is no cache folder at \(path): prefetch into it first, or name the folder with \(Setting.cacheDir) or \(Setting.diskCachePath)"
            case .notAFolder(let path): return "\(path) is not a folder"
            case .missingOutsideFile(let path, let library):
                return
                    "there is no \(path): \(library) would not find the folder's entries without it (\(Setting.databasePath) names another)"
            case .locked(let timeout): return timeout.description
            case .notPackable(let path):
                return
                    "\(path) is neither a file nor a folder (a link, a FIFO, a device?): the app does not read it; remove it and pack again"
            case .unreadable(let path, let error): return "cannot read \(path): \(error)"
            case .read(let error): return error.description
            }
        }
    }

    /// The caches packed, in the order given (several: `--cache-format a,b`).
    let locations: [CacheLocation]
    let configuration: Configuration

    public init(location: CacheLocation, configuration: Configuration) {
        self.init(locations: [location], configuration: configuration)
    }

    /// A pack of several caches into one archive (their folders, as `CacheLocation.resolve`
    /// gives them, are apart).
    public init(locations: [CacheLocation], configuration: Configuration) {
        self.locations = locations
        self.configuration = configuration
    }

    /// One member of the archive, where it is read from.
    struct Member {
        var path: String
        var isFolder: Bool
        var info: FileStatus
        /// The folder it is in on this machine, and its name there.
        var source: (folder: String, name: String)
        /// The cache it belongs to: its index in `locations`.
        var cache = 0
    }

    /// A cache checked for packing: its folder in the container, the folder's status, the files
    /// its format keeps outside it.
    struct Part {
        var location: CacheLocation
        var containerFolder: String
        var folderInfo: FileStatus
        var outside: [AppContainer.OutsideFile]
    }

    /// Checks the folders, takes the locks and writes the archive to `sink`.
    public func run(sink: @escaping PaxArchive.Sink) throws(Error) -> Result {
        // Every cache's layout and platform first: a format of the other platform is refused
        // before anything is read.
        var containerFolders: [String] = []
        for location in locations {
            do {
                containerFolders.append(try location.containerPath(on: configuration.platform))
            } catch {
                throw .layout(error)
            }
            guard location.format.platforms.contains(configuration.platform) else {
                throw .otherPlatform(
                    location.format.name, configuration.platform,
                    AppContainer.Platform.allCases.filter(location.format.platforms.contains))
            }
        }
        var parts: [Part] = []
        for (location, containerFolder) in zip(locations, containerFolders) {
            parts.append(try check(location, as: containerFolder))
        }
        let locks = try lockAll()
        defer { for lock in locks { lock.unlock() } }
        var members: [Member] = []
        // The keys the state database beside each cache records, by entry name (none without one).
        var keys: [String: String] = [:]
        for (cache, part) in parts.enumerated() {
            try collect(part, cache: cache, into: &members)
            if let state = try? StateStore.openExisting(path: StateStore.defaultPath(for: part.location)) {
                try? state.forEachKeyAndFileName { key, name in keys[part.containerFolder + "/" + name] = key }
            }
        }
        members.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        let manifest = PackManifest.document(
            members: members, keys: keys, platform: configuration.platform,
            caches: parts.map { ($0.location, $0.containerFolder) })
        // Each write first asks whether a stop came: a large file stops within one chunk.
        let stop = configuration.stop
        let stoppable: PaxArchive.Sink = { bytes throws(SystemError) in
            if stop.signal != 0 { throw SystemError(code: PackJob.interrupted) }
            try sink(bytes)
        }
        do {
            return try write(members, manifest: manifest, parts: parts, to: stoppable)
        } catch {
            if stop.signal != 0 { throw .stopped(stop.signal) }
            throw error
        }
    }

    /// Checks that `location`'s folder is a folder and its outside files are there.
    private func check(_ location: CacheLocation, as containerFolder: String) throws(Error) -> Part {
        let folderInfo: FileStatus
        do {
            folderInfo = try FileSystem.status(ofPath: location.folder)
        } catch {
            throw error.isNotFound ? .noFolder(location.folder) : .unreadable(location.folder, error)
        }
        guard folderInfo.kind == .directory else { throw .notAFolder(location.folder) }
        let outside = (location.format as? any OutsideFilesFormat)?.outsideFiles(of: location) ?? []
        for file in outside where !FileSystem.exists(file.path) {
            throw .missingOutsideFile(file.path, location.format.library)
        }
        return Part(location: location, containerFolder: containerFolder, folderInfo: folderInfo, outside: outside)
    }

    /// Takes every cache's lock exclusively, in the order of the locks' paths (two packs of
    /// overlapping lists take them in one order, and never hold one each while waiting for the
    /// other's); on a failure, those taken are released.
    private func lockAll() throws(Error) -> [CacheLock] {
        // Without a private folder no imgwarm can be writing here, and no lock is needed (as clean).
        let locks = locations.compactMap { try? CacheLock(location: $0) }.sorted {
            $0.path.utf8.lexicographicallyPrecedes($1.path.utf8)
        }
        for (taken, lock) in locks.enumerated() {
            do {
                try lock.lockExclusive(
                    timeout: configuration.lockTimeout, untilStop: configuration.stop.descriptor != nil)
            } catch {
                for held in locks.prefix(taken) { held.unlock() }
                if configuration.stop.signal != 0 { throw .stopped(configuration.stop.signal) }
                throw .locked(error)
            }
        }
        return locks
    }

    /// Adds `part`'s folder, everything below it and its outside files to `members`.
    private func collect(_ part: Part, cache: Int, into members: inout [Member]) throws(Error) {
        let location = part.location
        let start = members.count
        members.append(
            Member(path: part.containerFolder, isFolder: true, info: part.folderInfo, source: (location.folder, ".")))
        try walk(location.folder, as: part.containerFolder, into: &members)
        for file in part.outside {
            let (parent, name) = CacheLocation.split(file.path)
            let info: FileStatus
            do {
                info = try FileSystem.status(ofPath: file.path, followingLinks: false)
            } catch {
                throw .unreadable(file.path, error)
            }
            guard info.kind == .file else { throw .notPackable(file.path) }
            let folder = AppContainer.path(of: file.folder, on: configuration.platform)
            members.append(Member(path: folder + "/" + file.name, isFolder: false, info: info, source: (parent, name)))
        }
        for index in start..<members.count { members[index].cache = cache }
    }

    /// `EINTR`: what a write fails with once a stop came.
    static let interrupted: Int32 = 4

    /// Adds every name below `folder` (which is `path` in the archive), folders before what they hold.
    private func walk(_ folder: String, as path: String, into members: inout [Member]) throws(Error) {
        var names: [String] = []
        do {
            let directory = try FileDescriptor.openFolder(folder)
            defer { directory.close() }
            try directory.forEachEntry { entry in
                guard let name = entry.name else {
                    throw Error.notPackable(CacheLocation.join(folder, entry.displayName))
                }
                names.append(name)
            }
        } catch let error as Error {
            throw error
        } catch let error as SystemError {
            throw .unreadable(folder, error)
        } catch {
            throw .unreadable(folder, SystemError(code: 5))
        }
        for name in names {
            let full = CacheLocation.join(folder, name)
            let info: FileStatus
            do {
                info = try FileSystem.status(ofPath: full, followingLinks: false)
            } catch {
                throw .unreadable(full, error)
            }
            switch info.kind {
            case .file:
                members.append(Member(path: path + "/" + name, isFolder: false, info: info, source: (folder, name)))
            case .directory:
                members.append(Member(path: path + "/" + name, isFolder: true, info: info, source: (folder, name)))
                try walk(full, as: path + "/" + name, into: &members)
            default:
                throw .notPackable(full)
            }
        }
    }

    /// The app's preferences file the archive holds last, if any (`Configuration.bundleID`):
    /// what the formats whose library reads them want (each key once, the first format's value).
    private var preferences: (path: String, bytes: [UInt8])? {
        guard configuration.platform == .ios, let bundleID = configuration.bundleID else { return nil }
        var values: [(key: String, value: Int)] = []
        for location in locations {
            for value in (location.format as? any AppPreferencesFormat)?.appPreferences ?? []
            where !values.contains(where: { $0.key == value.key }) {
                values.append(value)
            }
        }
        guard !values.isEmpty else { return nil }
        return (AppContainer.preferencesPath(bundleID: bundleID), AppContainer.preferencesPlist(values))
    }

    private func write(
        _ members: [Member], manifest: [UInt8], parts: [Part], to sink: @escaping PaxArchive.Sink
    ) throws(Error) -> Result {
        var archive = PaxArchive(sink: sink)
        // The manifest's times are the newest member's, so that it too is the same each time.
        let newest = members.map(\.info.modified).max() ?? Timestamp(seconds: 0)
        var caches = parts.map {
            (folder: $0.location.folder, containerFolder: $0.containerFolder, files: 0, bytes: UInt64(0))
        }
        do {
            try archive.addFile(path: PackJob.manifestName, bytes: manifest, modified: newest, accessed: newest)
            for member in members {
                if member.isFolder {
                    // A folder's access time moves as it is listed: its modification time stands in.
                    try archive.addFolder(
                        path: member.path, modified: member.info.modified, accessed: member.info.modified)
                } else {
                    try addFile(member, to: &archive)
                    caches[member.cache].files += 1
                    caches[member.cache].bytes += member.info.size
                }
            }
            if let preferences {
                try archive.addFile(
                    path: preferences.path, bytes: preferences.bytes, modified: newest, accessed: newest)
            }
            try archive.finish()
        } catch let error as Error {
            throw error
        } catch let error as SystemError {
            throw .read(.output(error))
        } catch {
            throw .read(.output(SystemError(code: 5)))
        }
        let entries = members.filter { !$0.isFolder }.map { ($0.path, $0.info.size, $0.info.modified) }
        return Result(
            files: caches.reduce(0) { $0 + $1.files }, bytes: caches.reduce(0) { $0 + $1.bytes },
            containerFolder: caches.first?.containerFolder ?? "", caches: caches, manifest: manifest, entries: entries)
    }

    /// Opens the file `name` of `folder` to pack it: its type was read without following a link
    /// (`fstatat`, `walked`); it is opened without following one and without waiting
    /// (`O_NOFOLLOW | O_NONBLOCK`: opening a FIFO would block, and opening a device node runs its
    /// driver), then checked again on the descriptor: the same device and inode, a regular file.
    /// Anything swapped in since the walk is refused (`notPackable`), never read.
    static func openMember(_ folder: String, _ name: String, as walked: FileStatus) throws(Error) -> (
        file: FileDescriptor, restoreAccessTime: Timestamp?
    ) {
        let full = CacheLocation.join(folder, name)
        let opened: (file: FileDescriptor, restoreAccessTime: Timestamp?)
        do {
            let parent = try FileDescriptor.openFolder(folder)
            defer { parent.close() }
            let now = try parent.status(of: name)
            guard now.kind == .file, now.device == walked.device, now.inode == walked.inode else {
                throw Error.notPackable(full)
            }
            opened = try parent.openForReadingUntouched(name, waiting: false)
        } catch let error as Error {
            throw error
        } catch let error as SystemError {
            // A link swapped in: O_NOFOLLOW refuses it (ELOOP).
            if error.code == 40 { throw .notPackable(full) }
            throw .unreadable(full, error)
        } catch {
            throw .unreadable(full, SystemError(code: 5))
        }
        let info = try? opened.file.status()
        guard let info, info.kind == .file, info.device == walked.device, info.inode == walked.inode else {
            opened.file.close()
            throw .notPackable(full)
        }
        return opened
    }

    private func addFile(_ member: Member, to archive: inout PaxArchive) throws(Error) {
        let full = CacheLocation.join(member.source.folder, member.source.name)
        let opened = try PackJob.openMember(member.source.folder, member.source.name, as: member.info)
        defer {
            if let time = opened.restoreAccessTime { try? opened.file.setAccessTime(time) }
            opened.file.close()
        }
        do {
            try archive.addFile(
                path: member.path, size: member.info.size, from: opened.file, modified: member.info.modified,
                accessed: member.info.accessed)
        } catch {
            if case .changedSize = error { throw .read(.changedSize(full)) }
            if case .input(_, let cause) = error { throw .unreadable(full, cause) }
            throw .read(error)
        }
    }
}
