import ImgwarmSystem

/// An image library's disk cache as an app reads it: where its folder is, how an entry is named,
/// what its reader takes for a hit, which file times it keeps and how it trims itself
/// (docs/cache-formats.md; docs/cache-contract.md for SDWebImage's rules).
///
/// Each format is one type in its own folder under `Cache/Formats/`, registered once in
/// `CacheFormats.all`: the engine asks the format of its `CacheLocation` and names none. The
/// defaults below are the plain-files cache (SDWebImage, Nuke): a non-empty regular file is a
/// hit, a hit's access time is set, stored files keep the times writing gives them. What only
/// some libraries do is a capability the format adopts (`FormatCapabilities.swift`: an expiry it
/// stamps, an index, a database elsewhere), which the engine asks for; a new need of one format
/// is a new capability, not a requirement here.
public protocol CacheFormat: Sendable {
    /// Its `--cache-format` name, e.g. `sdwebimage`.
    var name: String { get }

    /// The library and versions whose cache this is, for messages, e.g. `SDWebImage 5.x`.
    var library: String { get }

    /// Whether `--namespace` names a part of the folder (false: the folder has one fixed name).
    var hasNamespace: Bool { get }

    /// The platforms whose apps use this library: where `pack` may lay its cache out, and
    /// (Android) what `push` and `pull` take.
    var platforms: Set<AppContainer.Platform> { get }

    /// The cache folder inside a caches root (the app's `Library/Caches` or `cacheDir`) for
    /// `namespace`, e.g. `<root>/com.hackemist.SDImageCache/default`.
    func folder(cachesRoot: String, namespace: String) -> String

    /// True when an entry of a folder named `bytes` (UTF-8) has the shape of one of this format's
    /// entry names: `clean` deletes only in a folder whose files all have it (the clean guard).
    func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool

    /// `isEntryName`'s shape in words, for the guard's message, e.g. `64 hex digits`.
    var entryNameShape: String { get }

    /// What the library's reader makes of the file at an entry's name (`info` from `lstat`) at `now`.
    func read(_ info: FileStatus, now: Timestamp) -> EntryRead

    /// Whether the library would use the cache folder at `path` as it stands (`imgwarm verify`).
    /// Reads only. A format with an index (a journal, a database) says here whether the library
    /// would wipe the folder.
    func judgeFolder(atPath path: String) -> FolderVerdict

    /// The times a stored file gets before it appears under its name.
    func timesOnStore(now: Timestamp) -> FileTimes

    /// The times the library's reader sets on a hit.
    func timesOnHit(now: Timestamp) -> FileTimes

    /// How `clean` expires and trims this cache as the library does.
    var cleanRules: CleanRules { get }

    /// True when the app trims the cache to a size limit on its own (Glide and Coil after a
    /// write, Nuke's sweep at launch): a prefetch that leaves it above the limit
    /// (`cleanRules.defaultMaxSize`, or the one given) says so. False by default.
    var trimsItselfToSizeLimit: Bool { get }

    /// The names the library's own API gives the entry count and the size `stats` prints, e.g.
    /// SDWebImage's `totalDiskCount` and `totalDiskSize`; nil (the default) when it has none.
    var statisticsNames: (entries: String, size: String)? { get }
}

extension CacheFormat {
    public var hasNamespace: Bool { true }

    public func read(_ info: FileStatus, now: Timestamp) -> EntryRead {
        EntryRead.plainFile(info)
    }

    /// The plain-files rule: a folder (or a link to one) is used, nothing there is an empty cache,
    /// anything else cannot be used; and a folder whose index (`IndexedCacheFormat`) the library
    /// would not read, it discards.
    public func judgeFolder(atPath path: String) -> FolderVerdict {
        let verdict = FolderVerdict.plainFolder(atPath: path)
        guard verdict == .usable, let index = CacheLocation(folder: path, format: self).makeIndex() else {
            return verdict
        }
        do {
            try index.load()
        } catch {
            if case .unreadable(_, let library, let reason, let index, _) = error {
                return .unusable("\(library) would not read \(index) (\(reason)) and would delete the folder")
            }
            return .unusable(error.description)
        }
        return verdict
    }

    public func timesOnStore(now: Timestamp) -> FileTimes { FileTimes() }

    public func timesOnHit(now: Timestamp) -> FileTimes { FileTimes(access: .now) }

    public var trimsItselfToSizeLimit: Bool { false }

    public var statisticsNames: (entries: String, size: String)? { nil }
}

/// What a library's reader makes of the file at an entry's name.
public enum EntryRead: Sendable, Equatable {
    /// The reader returns these bytes.
    case hit(size: Int)
    /// The reader finds nothing it uses, and why.
    case miss(EntryMiss)

    /// The plain-files rule: a non-empty regular file is a hit.
    public static func plainFile(_ info: FileStatus) -> EntryRead {
        switch info.kind {
        case .file: return info.size > 0 ? .hit(size: Int(info.size)) : .miss(.empty)
        case .directory: return .miss(.folder)
        default: return .miss(.notAFile)
        }
    }
}

/// What a library makes of its cache folder as a whole (`imgwarm verify`, docs/usage.md).
public enum FolderVerdict: Sendable, Equatable {
    /// The library uses the folder: each entry is judged on its own.
    case usable
    /// There is no folder: the library starts an empty cache, and every key misses.
    case absent
    /// The folder is there but the index that lists its entries is not (flutter_cache_manager's
    /// database), for this reason in words: the library starts an empty index, and every key
    /// misses as one it does not list.
    case empty(String)
    /// The library cannot use the folder, or would discard it, for this reason (in words).
    case unusable(String)

    /// The plain-files rule: `stat` (a link to a folder is followed, as the library's file
    /// manager does) says a folder, nothing, or something the library cannot use.
    public static func plainFolder(atPath path: String) -> FolderVerdict {
        do {
            let info = try FileSystem.status(ofPath: path)
            return info.kind == .directory ? .usable : .unusable("it is not a folder")
        } catch {
            if error.isNotFound { return .absent }
            if let file = FileSystem.nonFolder(onPath: path) { return .unusable("\(file) is not a folder") }
            return .unusable("it cannot be read (\(error))")
        }
    }
}

/// Why an entry is a miss (`imgwarm verify`'s reasons, docs/verify-report.schema.json).
public enum EntryMiss: String, Sendable, Codable, CaseIterable {
    /// No file under the entry's name.
    case absent
    /// An empty file: no image for the reader.
    case empty
    /// A folder stands where the file should; nothing can be stored there.
    case folder
    /// A symbolic link or another kind of file the library does not read.
    case notAFile = "not-a-file"
    /// The entry's expiry date has passed (Kingfisher: its modification time is at or before now;
    /// flutter_cache_manager: its row's `validTill` is before now).
    case expired
    /// The bytes are not an image the library would decode.
    case notAnImage = "not-an-image"
    /// imgwarm cannot open or read the file (its permissions), so it cannot say the library could.
    case unreadable
    /// The library's index (a journal) does not list the entry as one it serves.
    case notIndexed = "not-indexed"
    /// The library cannot read the entry's metadata (OkHttp's `<key>.0`: a file its reader
    /// refuses, or one past imgwarm's bounds), so it does not serve the entry.
    case badMetadata = "bad-metadata"

    /// In words, for `verify`'s lines.
    public var description: String {
        switch self {
        case .absent: return "no file"
        case .empty: return "the file is empty"
        case .folder: return "a folder stands where the file should be"
        case .notAFile: return "not a regular file"
        case .expired:
            return "expired (its expiry date has passed: Kingfisher's modification time, flutter's validTill)"
        case .notAnImage: return "the bytes are not an image"
        case .unreadable: return "the file cannot be read"
        case .notIndexed: return "the library's index (its journal or database) does not list it"
        case .badMetadata: return "the library cannot read the entry's metadata (OkHttp's <key>.0)"
        }
    }
}

/// The formats imgwarm writes, by name.
public enum CacheFormats {
    /// Every format: the one place that lists them.
    public static let all: [any CacheFormat] = [
        SDWebImageFormat(), KingfisherFormat(.sha256), KingfisherFormat(.md5), NukeFormat(),
        GlideFormat(), CoilFormat(major: 3), CoilFormat(major: 2),
        FrescoFormat(.double), FrescoFormat(.integer), FlutterFormat(),
        OkHttpFormat(.okhttp), OkHttpFormat(.picasso), OkHttpFormat(.coil1), PINRemoteImageFormat(),
    ]

    /// The format when none is given (`--cache-format` left out): the first of `all`, SDWebImage's.
    public static var standard: any CacheFormat { all[0] }

    /// The format named `name`, if there is one.
    public static func named(_ name: String) -> (any CacheFormat)? {
        all.first { $0.name == name }
    }

    /// Every name, in `all`'s order.
    public static var names: [String] { all.map(\.name) }
}

/// True when `bytes` are `count` lower-case hex digits and nothing else: the entry names of the
/// formats that name files by a bare digest.
func isHexName(_ bytes: UnsafeBufferPointer<UInt8>, count: Int) -> Bool {
    bytes.count == count
        && bytes.allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
        }
}

extension CacheFormats {
    /// `format` reading its database at `path` (`--database`): only a format whose library keeps
    /// one outside the cache folder (`ExternalDatabaseFormat`) takes it. The one place that
    /// decides it; a front end words the error.
    public static func format(_ format: any CacheFormat, withDatabaseAt path: String) throws(OptionNotApplicable)
        -> any CacheFormat
    {
        guard let external = format as? any ExternalDatabaseFormat else {
            throw OptionNotApplicable(
                setting: .databasePath, format: format.name,
                appliesTo: all.filter { $0 is any ExternalDatabaseFormat }.map(\.name))
        }
        return external.usingDatabase(atPath: path)
    }

    /// The formats whose library `platform`'s apps use, in `all`'s order.
    public static func names(on platform: AppContainer.Platform) -> [String] {
        all.filter { $0.platforms.contains(platform) }.map(\.name)
    }
}
