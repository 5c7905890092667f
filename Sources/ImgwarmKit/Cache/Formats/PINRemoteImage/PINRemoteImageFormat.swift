import ImgwarmSystem

/// PINRemoteImage 3.x's default disk cache, a PINCache 3.x `PINDiskCache` (docs/cache-formats.md,
/// "PINRemoteImage"): `<root>/com.pinterest.PINDiskCache.PINRemoteImageManagerCache/`, one file
/// of the image's raw bytes per key, named by `PINDiskCacheKey` (the key percent-encoded; a key
/// longer than 200 UTF-16 units is first replaced by its MD5). No index.
///
/// A hit sets the file's modification date to now (`fileURLForKey:updateFileModificationDate:`,
/// the cache being no TTL cache): the modification date is the last use, and the size trim
/// (`trimDiskToSizeByEvictionStrategy`, least recently used first) goes by it. The app trims by
/// itself at launch and after every write, above `byteLimit` (50 MiB by default), until the
/// allocated total is at most the limit. Nothing expires by age unless the app sets an
/// `ageLimit` (then by creation date).
///
/// PINRemoteImage deletes the whole folder on a launch that does not find its version key in the
/// app's preferences (`LaunchCaveatFormat`): a seeded folder survives only in an app that has run
/// once already, or with the key written beside it.
public struct PINRemoteImageFormat: KeyNamedFormat, LaunchCaveatFormat, AppPreferencesFormat, KeyRefusingFormat {
    public init() {}

    public var name: String { "pinremoteimage" }
    public var platforms: Set<AppContainer.Platform> { [.ios] }
    public var library: String { "PINRemoteImage 3.x (PINCache)" }
    public var hasNamespace: Bool { false }

    /// `PINDiskCachePrefix` + "." + `kPINRemoteImageDiskCacheName`: the folder in the caches root.
    public static let folderName = "com.pinterest.PINDiskCache.PINRemoteImageManagerCache"

    /// `PINDiskCacheDefaultByteLimit`: 50 MiB.
    public static let defaultByteLimit: UInt64 = 50 * 1024 * 1024

    /// The preference `defaultImageCacheEnablingTtl:` checks at every launch, and the value it wants.
    public static let versionKey = "kPINRemoteImageDiskCacheVersionKey"
    public static let version = 1

    public var trimsItselfToSizeLimit: Bool { true }

    public func folder(cachesRoot: String, namespace: String) -> String {
        CacheLocation.join(cachesRoot, PINRemoteImageFormat.folderName)
    }

    public func fileName(forKey key: String) -> String { PINCacheFileName.forKey(key) }

    public func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool { PINCacheFileName.isEncoded(bytes) }

    public var entryNameShape: String {
        "a percent-encoded key: ASCII only, no '.', ':' or '/', '%' only before two hex digits"
    }

    /// A key of at most 200 UTF-16 units (not turned into an MD5) whose encoded name passes the
    /// 255 bytes a file name may have: PINDiskCache's write of it fails ("File name too long"), so
    /// the app never has it; imgwarm neither fetches nor names it.
    public func refusal(forKey key: String) -> String? {
        let name = PINCacheFileName.forKey(key)
        guard name.utf8.count > PINCacheFileName.maxNameBytes else { return nil }
        return
            "PINDiskCache's file name for this key (the key percent-encoded) is \(name.utf8.count) bytes, more than the \(PINCacheFileName.maxNameBytes) a file name may have, so \(library) cannot store it (keys over \(PINCacheFileName.maxKeyLength) UTF-16 units become an MD5; this one is \(key.utf16.count))"
    }

    /// A hit's modification date becomes now (the read's `asynchronouslySetFileModificationDate:`).
    public func timesOnHit(now: Timestamp) -> FileTimes { FileTimes(modification: .now) }

    /// `trimDiskToSizeByEvictionStrategy:` with the default least-recently-used strategy: above
    /// the limit (allocated bytes, `NSURLTotalFileAllocatedSizeKey`), the oldest modification
    /// dates go until the total is at most the limit. No age pass: `trimToAgeLimitRecursively`
    /// runs only once the app calls `setAgeLimit:`.
    public var cleanRules: CleanRules {
        var rules = CleanRules(expiry: .none, trimDate: .modification, measure: .allocated)
        rules.keep = (1, 1)
        rules.stopsAtTarget = true
        rules.defaultMaxSize = PINRemoteImageFormat.defaultByteLimit
        return rules
    }

    public var appPreferences: [(key: String, value: Int)] {
        [(PINRemoteImageFormat.versionKey, PINRemoteImageFormat.version)]
    }

    public var launchCaveat: String {
        "PINRemoteImage deletes this folder when the app launches without \(PINRemoteImageFormat.versionKey) = "
            + "\(PINRemoteImageFormat.version) in its preferences (Library/Preferences/<bundle id>.plist): copy the "
            + "folder into an app that has run once, or write the key with it (docs/cache-formats.md, \"PINRemoteImage\")"
    }
}
