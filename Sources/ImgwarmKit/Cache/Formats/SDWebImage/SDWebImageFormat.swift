/// SDWebImage 5.x's disk cache (`SDImageCache`, `SDDiskCache`): `<root>/com.hackemist.SDImageCache/
/// <namespace>/`, one flat file per key named by `SDFileName` (docs/cache-contract.md §1, §2).
public struct SDWebImageFormat: CacheFormat {
    public init() {}

    public var name: String { "sdwebimage" }

    /// The folder SDWebImage's `SDImageCache` uses for its disk caches inside the caches root.
    public static let folderName = "com.hackemist.SDImageCache"

    public func folder(cachesRoot: String, namespace: String) -> String {
        CacheLocation.join(CacheLocation.join(cachesRoot, SDWebImageFormat.folderName), namespace)
    }

    public func fileName(forKey key: String) -> String { SDFileName.forKey(key) }

    public func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool { SDFileName.isCacheFileName(bytes: bytes) }
}
