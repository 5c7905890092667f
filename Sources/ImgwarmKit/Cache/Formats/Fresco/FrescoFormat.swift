import ImgwarmSystem

/// Fresco's main disk cache (`DefaultDiskStorage` under `DiskStorageCache`;
/// docs/cache-formats-android.md, "Fresco"): `<cacheDir>/image_cache/v2.ols100.1/<shard>/<id>.cnt`,
/// `<id>` the URL-safe Base64 (no padding, no line breaks) of the SHA-1 of the key, `<shard>` the
/// Java `hashCode` of `<id>` modulo 100 without its sign: an integer up to 3.6 (`5`), a Kotlin
/// double from 3.7 on (`5.0`). A hit is the file; Fresco's read sets its modification time, and
/// eviction goes oldest modification time first above 40 MiB, down to 90 % of it.
public struct FrescoFormat: KeyNamedFormat, IndexedCacheFormat, LayoutFolderFormat {
    /// How the shard folder is written.
    public enum Shards: Sendable {
        /// Fresco 3.7 and later (`DefaultDiskStorage.kt`: `abs(...toDouble()).toString()`): `5.0`.
        case double
        /// Fresco 3.6 and earlier (`DefaultDiskStorage.java`: `String.valueOf(Math.abs(...))`): `5`.
        case integer
    }

    public let shards: Shards

    public init(_ shards: Shards = .double) {
        self.shards = shards
    }

    public var name: String { shards == .double ? "fresco" : "fresco3.6" }
    public var platforms: Set<AppContainer.Platform> { [.android] }
    public var library: String { shards == .double ? "Fresco 3.7+" : "Fresco 3.6 and earlier" }
    public var hasNamespace: Bool { false }

    /// `DiskCacheConfig.Builder`'s default base directory name.
    public static let folderName = "image_cache"
    /// `getVersionSubdirectoryName(1)`: `v2` (the layout), `ols100` (100 shards), `1` (the
    /// default `DiskCacheConfig` version).
    public static let versionFolder = "v2.ols100.1"
    /// `DiskCacheConfig.Builder`'s default `maxCacheSize`: 40 MiB.
    public static let defaultSizeLimit: UInt64 = 40 << 20

    public func folder(cachesRoot: String, namespace: String) -> String {
        CacheLocation.join(cachesRoot, FrescoFormat.folderName)
    }

    /// `CacheKeyUtil.secureHashKey`: `SecureHashUtil.makeSHA1HashBase64` of the key's UTF-8 bytes
    /// (`Base64.URL_SAFE | NO_PADDING | NO_WRAP`).
    public static func resourceID(forKey key: String) -> String {
        Base64URL.encodeWithoutPadding(Digest.sha1(key))
    }

    /// `getSubdirectoryPath`: `abs(resourceId.hashCode() % 100)`, Java's `%` keeping the
    /// dividend's sign, the hash over UTF-16 code units in 32-bit arithmetic.
    public func shard(ofResourceID id: String) -> String {
        var hash: Int32 = 0
        for unit in id.utf16 { hash = hash &* 31 &+ Int32(unit) }
        let bucket = abs(hash % 100)
        return shards == .double ? "\(bucket).0" : "\(bucket)"
    }

    public func fileName(forKey key: String) -> String {
        let id = FrescoFormat.resourceID(forKey: key)
        return "\(FrescoFormat.versionFolder)/\(shard(ofResourceID: id))/\(id).cnt"
    }

    /// In the cache folder itself only the version folder is Fresco's; regular files there are
    /// not (Fresco's purge deletes them).
    public func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.elementsEqual(FrescoFormat.versionFolder.utf8)
    }

    /// The version folder and its shard folders are where the entries live, not entries.
    public var layoutFolder: String { FrescoFormat.versionFolder }

    public var entryNameShape: String {
        "the folder \(FrescoFormat.versionFolder), whose shard folders hold the entries"
    }

    /// `DefaultDiskStorage.getResource` and `touch`: `setLastModified(now)`.
    public func timesOnHit(now: Timestamp) -> FileTimes { FileTimes(modification: .now) }

    public var cleanRules: CleanRules {
        var rules = CleanRules(expiry: .none, trimDate: .modification, measure: .logical)
        rules.keep = (9, 10)
        rules.order = .futureDatedThenOldest
        rules.defaultMaxSize = FrescoFormat.defaultSizeLimit
        return rules
    }

    public func makeIndex(for location: CacheLocation) -> any CacheIndex {
        FrescoTree(location: location, format: self)
    }
}

/// Base64 with the URL-safe alphabet (RFC 4648 §5), no padding, no line breaks.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encodeWithoutPadding(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let b0 = UInt32(bytes[index])
            let b1 = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let b2 = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            let available = min(3, bytes.count - index)
            for position in 0...available {
                out.append(alphabet[Int((group >> UInt32(18 - 6 * position)) & 63)])
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
