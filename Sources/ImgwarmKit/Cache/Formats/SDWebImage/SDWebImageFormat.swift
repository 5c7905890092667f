/// SDWebImage 5.x's disk cache (`SDImageCache`, `SDDiskCache`): `<root>/com.hackemist.SDImageCache/
/// <namespace>/`, one flat file per key named by `SDFileName` (docs/cache-contract.md §1, §2).
/// A hit is a non-empty file, and reading it sets its access time (§3); `clean` is SDWebImage's
/// `removeExpiredData` (§3).
public struct SDWebImageFormat: KeyNamedFormat {
    public init() {}

    public var name: String { "sdwebimage" }
    public var platforms: Set<AppContainer.Platform> { [.ios] }
    public var library: String { "SDWebImage 5.x" }

    /// The folder SDWebImage's `SDImageCache` uses for its disk caches inside the caches root.
    public static let folderName = "com.hackemist.SDImageCache"

    public func folder(cachesRoot: String, namespace: String) -> String {
        CacheLocation.join(CacheLocation.join(cachesRoot, SDWebImageFormat.folderName), namespace)
    }

    public func fileName(forKey key: String) -> String { SDFileName.forKey(key) }

    public func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool { SDFileName.isCacheFileName(bytes: bytes) }

    public var entryNameShape: String { "32 hex digits and an extension" }

    public var statisticsNames: (entries: String, size: String)? {
        ("SDWebImage's totalDiskCount", "SDWebImage's totalDiskSize")
    }

    /// `removeExpiredData`: files whose `--expire-type` date is `--max-age` old, then, above
    /// `--max-size` (allocated bytes), the oldest until the total is below half of it.
    public var cleanRules: CleanRules { CleanRules(expiry: .age, trimDate: nil, measure: .allocated) }
}
