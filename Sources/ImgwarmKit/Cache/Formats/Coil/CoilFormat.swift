import ImgwarmSystem

/// Coil's disk cache (`RealDiskCache` over its Okio DiskLruCache; docs/cache-formats-android.md,
/// "Coil"): a journal with two values per entry, `<SHA-256 of the key>.0` the metadata and `.1`
/// the bytes. imgwarm leaves the metadata empty: Coil's network fetcher serves an entry with
/// empty metadata as one "written manually", without a cache-control check. Coil 3 keeps it in
/// `<cacheDir>/coil3_disk_cache` with app version `3`; Coil 2 in `<cacheDir>/image_cache` with `1`.
public struct CoilFormat: KeyNamedFormat, IndexedCacheFormat {
    /// The major version: `3` or `2`.
    public let major: Int

    public init(major: Int = 3) {
        self.major = major
    }

    public var name: String { major == 2 ? "coil2" : "coil" }
    public var platforms: Set<AppContainer.Platform> { [.android] }

    /// `trimToSize` runs after a write, a flush or a close (docs/cache-formats-android.md).
    public var trimsItselfToSizeLimit: Bool { true }
    public var library: String { major == 2 ? "Coil 2.x" : "Coil 3.x" }
    public var hasNamespace: Bool { false }

    /// The folder each version's default disk cache uses in the app's cache folder.
    public var folderName: String { major == 2 ? "image_cache" : "coil3_disk_cache" }
    /// The upper bound of Coil's default size (2 % of the free space within 10–250 MiB).
    public static let defaultSizeLimit: UInt64 = 250 << 20

    /// `RealDiskCache`'s `appVersion` (3 in Coil 3, 1 in Coil 2) and `valueCount` 2; its
    /// `DiskLruCache` rewrites the journal after 2,000 operations (`journalRewriteRequired`).
    public var layout: JournalIndex.Layout {
        JournalIndex.Layout(
            library: library, header: DiskLruJournal.Header(appVersion: major == 2 ? 1 : 3, valueCount: 2),
            dialect: .kotlinSplit, dataIndex: 1, rebuild: .redundantOnly)
    }

    public func folder(cachesRoot: String, namespace: String) -> String {
        CacheLocation.join(cachesRoot, folderName)
    }

    public func fileName(forKey key: String) -> String { Digest.sha256Hex(key) + ".1" }

    public func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        DiskLruCacheNames.isEntryName(bytes, valueCount: 2)
    }

    public var entryNameShape: String { DiskLruCacheNames.shape }

    public func timesOnHit(now: Timestamp) -> FileTimes { FileTimes() }

    public var cleanRules: CleanRules {
        CleanRules.journalTrim(defaultMaxSize: CoilFormat.defaultSizeLimit)
    }

    public func makeIndex(for location: CacheLocation) -> any CacheIndex {
        JournalIndex(location: location, layout: layout)
    }
}
