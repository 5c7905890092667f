/// Nuke 12/13's `DataCache` as `ImagePipeline.Configuration.withDataCache` makes it
/// (docs/cache-formats.md, "Nuke"): `<root>/com.github.kean.Nuke.DataCache/`, plain files named
/// by the SHA-1 hex of the key, no index. A hit sets the access date; the sweep trims, above
/// the size limit (150 MiB by default), the oldest access dates until the allocated total is at
/// most 70 % of it. Nothing expires by age.
public struct NukeFormat: KeyNamedFormat {
    public init() {}

    public var name: String { "nuke" }
    public var platforms: Set<AppContainer.Platform> { [.ios] }
    public var library: String { "Nuke 12/13 DataCache" }
    public var hasNamespace: Bool { false }

    /// The sweep runs by itself shortly after launch (docs/cache-formats.md, "Nuke").
    public var trimsItselfToSizeLimit: Bool { true }

    /// `withDataCache(name:)`'s default name, a folder of the caches directory.
    public static let folderName = "com.github.kean.Nuke.DataCache"

    /// `DataCache.sizeLimit`'s default: 150 MiB.
    public static let defaultSizeLimit: UInt64 = 150 << 20

    public func folder(cachesRoot: String, namespace: String) -> String {
        CacheLocation.join(cachesRoot, NukeFormat.folderName)
    }

    public func fileName(forKey key: String) -> String { Digest.sha1Hex(key) }

    public func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool { isHexName(bytes, count: 40) }

    public var entryNameShape: String { "40 hex digits, no extension" }

    /// `performSweep`: allocated sizes (`totalFileAllocatedSize`), most recently accessed kept,
    /// until the total is at most `Int(Double(sizeLimit) * trimRatio)`, `trimRatio` 0.7 (computed
    /// in floating point as Nuke does).
    public var cleanRules: CleanRules {
        var rules = CleanRules(expiry: .none, trimDate: .access, measure: .allocated)
        rules.trimRatio = 0.7
        rules.stopsAtTarget = true
        rules.defaultMaxSize = NukeFormat.defaultSizeLimit
        return rules
    }
}
