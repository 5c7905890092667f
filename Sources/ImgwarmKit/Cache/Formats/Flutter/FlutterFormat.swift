import ImgwarmSystem

/// flutter_cache_manager 3.x's cache (cached_network_image's `DefaultCacheManager`;
/// docs/cache-formats-android.md, "flutter_cache_manager"): files in `libCachedImageData/` under
/// the caches root (Android `cacheDir`, iOS `Library/Caches`), each named by a version 1 UUID and
/// an extension, and a row per key in the SQLite database `libCachedImageData.db`, which on a
/// device lives in the app's support folder; here beside the files folder unless `--database`
/// names it. The key names no file: its index names them (`EntryNamingIndex`), and a key
/// without a row has no name until a download gives it one.
public struct FlutterFormat: IndexedCacheFormat, ExternalDatabaseFormat {
    /// The database's path; nil: `<parent of the folder>/libCachedImageData.db`.
    public var databasePath: String?

    public init(databasePath: String? = nil) {
        self.databasePath = databasePath
    }

    public var name: String { "flutter" }
    public var platforms: Set<AppContainer.Platform> { [.ios, .android] }
    public var library: String { "flutter_cache_manager 3.x" }
    public var hasNamespace: Bool { false }

    /// `DefaultCacheManager.key`: the files folder's name and the database's (plus `.db`).
    public static let folderName = FlutterDatabase.cacheKey

    public func folder(cachesRoot: String, namespace: String) -> String {
        CacheLocation.join(cachesRoot, FlutterFormat.folderName)
    }

    public func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        FlutterFileName.isName(String(decoding: bytes, as: UTF8.self))
    }

    public var entryNameShape: String { "a version 1 UUID and an extension" }

    /// The library's read sets no file time (it writes `touched` in its row).
    public func timesOnHit(now: Timestamp) -> FileTimes { FileTimes() }

    public var cleanRules: CleanRules {
        CleanRules(
            expiry: .index(
                "flutter_cache_manager's cleanup removes rows untouched for 30 days and, beyond 200 objects, the least recently touched of those untouched for a day, rows and files together (its batches of 100 repeated until none is left)"
            ), trimDate: .modification, measure: .logical)
    }

    /// The database's path for a files folder.
    public func databasePath(forFolder folder: String) -> String {
        if let databasePath { return CacheLocation.absolute(databasePath) }
        let (parent, _) = CacheLocation.split(folder)
        return CacheLocation.join(parent, FlutterFormat.folderName + ".db")
    }

    public func makeIndex(for location: CacheLocation) -> any CacheIndex {
        FlutterIndex(location: location, databasePath: databasePath(forFolder: location.folder))
    }

    public func usingDatabase(atPath path: String) -> FlutterFormat {
        FlutterFormat(databasePath: path)
    }

    /// The folder as the plain-files rule judges it, then the database as sqflite would open it
    /// (none: the library creates an empty one, and every key misses).
    public func judgeFolder(atPath path: String) -> FolderVerdict {
        let verdict = FolderVerdict.plainFolder(atPath: path)
        guard verdict == .usable else { return verdict }
        let database = databasePath(forFolder: path)
        guard FileSystem.exists(database) else {
            return .empty(
                "there is no database at \(database) (\(Setting.databasePath) names another), so it would start an empty one"
            )
        }
        do {
            _ = try FlutterDatabase(path: database, create: false, readOnly: true)
        } catch {
            switch error {
            case .unusable(let reason): return .unusable("flutter_cache_manager would not use \(database): \(reason)")
            case .notARegularFile: return .unusable(FlutterIndex.indexError(error, path: database).description)
            default: return .unusable("cannot read \(database): \(error)")
            }
        }
        return verdict
    }
}

extension FlutterFormat: OutsideFilesFormat {
    /// The database, which the library opens in the app's support folder
    /// (docs/cache-formats-android.md, "flutter_cache_manager").
    public func outsideFiles(of location: CacheLocation) -> [AppContainer.OutsideFile] {
        [
            AppContainer.OutsideFile(
                path: databasePath(forFolder: location.folder), folder: .support, name: FlutterFormat.folderName + ".db"
            )
        ]
    }
}
