import ImgwarmSystem

/// Glide 4.x/5.x's disk cache (`DiskLruCacheWrapper` over its copy of DiskLruCache;
/// docs/cache-formats-android.md, "Glide"): `<cacheDir>/image_manager_disk_cache/`, a journal
/// with app version `1` and one value per entry, the entry `<SHA-256 of the key>.0` holding the
/// bytes. A hit is a `CLEAN` line and the file; Glide's read appends `READ` and sets no file time.
/// Trimmed least recently used first above 250 MiB.
public struct GlideFormat: KeyNamedFormat, IndexedCacheFormat {
    public init() {}

    public var name: String { "glide" }
    public var platforms: Set<AppContainer.Platform> { [.android] }

    /// `trimToSize` runs after a write, a flush or a close (docs/cache-formats-android.md).
    public var trimsItselfToSizeLimit: Bool { true }
    public var library: String { "Glide 4.x/5.x" }
    public var hasNamespace: Bool { false }

    /// `DiskCache.Factory.DEFAULT_DISK_CACHE_DIR`.
    public static let folderName = "image_manager_disk_cache"
    /// `DiskCache.Factory.DEFAULT_DISK_CACHE_SIZE`: 250 MiB.
    public static let defaultSizeLimit: UInt64 = 250 << 20
    /// `DiskLruCacheWrapper`'s `APP_VERSION` and `VALUE_COUNT`.
    public static let layout = JournalIndex.Layout(
        library: "Glide", header: DiskLruJournal.Header(appVersion: 1, valueCount: 1), dialect: .javaSplit, dataIndex: 0
    )

    public func folder(cachesRoot: String, namespace: String) -> String {
        CacheLocation.join(cachesRoot, GlideFormat.folderName)
    }

    public func fileName(forKey key: String) -> String { Digest.sha256Hex(key) + ".0" }

    public func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        DiskLruCacheNames.isEntryName(bytes, valueCount: 1)
    }

    public var entryNameShape: String { DiskLruCacheNames.shape }

    public func timesOnHit(now: Timestamp) -> FileTimes { FileTimes() }

    public var cleanRules: CleanRules {
        CleanRules.journalTrim(defaultMaxSize: GlideFormat.defaultSizeLimit)
    }

    public func makeIndex(for location: CacheLocation) -> any CacheIndex {
        JournalIndex(location: location, layout: GlideFormat.layout)
    }
}
