import ImgwarmSystem

/// Kingfisher's `DiskStorage` (docs/cache-formats.md, "Kingfisher"): `<root>/com.onevcat.Kingfisher.
/// ImageCache.<namespace>/`, one file per key named by the hex digest of the key, no extension:
/// SHA-256 from Kingfisher 8, MD5 up to 7.
///
/// A file's modification time is its expiry date and its creation date its last access. Stored
/// files get mtime = ceil(now + `expiresIn`); a file whose mtime is at or before now is expired,
/// a miss. A hit is re-stamped as Kingfisher's read does (`extendExpiration(.cacheTime)`):
/// mtime = ceil(now + the duration). Kingfisher takes the duration as mtime − creation date and
/// sets the creation date to now; Linux cannot set a creation date, so imgwarm takes the
/// duration from `expiresIn` (7 days, Kingfisher's default, unless `--expires-in` says otherwise).
public struct KingfisherFormat: KeyNamedFormat, ExpiryStampingFormat {
    public enum Digest: Sendable {
        /// Kingfisher 8.x (`String.kf.sha256`).
        case sha256
        /// Kingfisher 7.x and earlier (`String.kf.md5`).
        case md5
    }

    public let digest: Digest
    public let expiresIn: Int64

    /// Kingfisher's default `StorageExpiration.days(7)`.
    public static let defaultExpiry: Int64 = 7 * 86400

    public init(_ digest: Digest, expiresIn: Int64 = KingfisherFormat.defaultExpiry) {
        self.digest = digest
        self.expiresIn = expiresIn
    }

    public var name: String { digest == .sha256 ? "kingfisher" : "kingfisher7" }
    public var platforms: Set<AppContainer.Platform> { [.ios] }
    public var library: String { digest == .sha256 ? "Kingfisher 8.x" : "Kingfisher 7.x" }

    /// The prefix of `ImageCache`'s folder name; the cache's name (`--namespace`) follows it.
    public static let folderPrefix = "com.onevcat.Kingfisher.ImageCache."

    public func folder(cachesRoot: String, namespace: String) -> String {
        CacheLocation.join(cachesRoot, KingfisherFormat.folderPrefix + namespace)
    }

    public func fileName(forKey key: String) -> String {
        switch digest {
        case .sha256: return ImgwarmKit.Digest.sha256Hex(key)
        case .md5: return MD5.digest(Array(key.utf8)).hex
        }
    }

    private var hexDigits: Int { digest == .sha256 ? 64 : 32 }

    public func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool { isHexName(bytes, count: hexDigits) }

    public var entryNameShape: String { "\(hexDigits) hex digits, no extension" }

    public func read(_ info: FileStatus, now: Timestamp) -> EntryRead {
        let plain = EntryRead.plainFile(info)
        guard case .hit = plain else { return plain }
        // `FileMeta.expired`: the estimated expiration date is not after the reference date.
        return info.modified <= now ? .miss(.expired) : plain
    }

    public func timesOnStore(now: Timestamp) -> FileTimes {
        FileTimes(modification: .set(expiry(from: now)))
    }

    public func timesOnHit(now: Timestamp) -> FileTimes {
        FileTimes(modification: .set(expiry(from: now)))
    }

    /// `StorageExpiration.estimatedExpirationSinceNow.fileAttributeDate`: now + the duration,
    /// rounded up to a whole second.
    func expiry(from now: Timestamp) -> Timestamp {
        let seconds = now.seconds + expiresIn
        return Timestamp(seconds: now.nanoseconds > 0 ? seconds + 1 : seconds)
    }

    public func expiring(afterSeconds seconds: Int64) -> KingfisherFormat {
        KingfisherFormat(digest, expiresIn: seconds)
    }

    /// `removeExpiredValues`, then with `--max-size` `removeSizeExceededValues`: when the total of
    /// `fileSize` is at or above the limit, the oldest creation dates go until it is at most half.
    public var cleanRules: CleanRules {
        var rules = CleanRules(expiry: .stamped, trimDate: .creation, measure: .logical)
        rules.creationFallsBackToChange = true
        rules.startsAtLimit = true
        rules.stopsAtTarget = true
        rules.clearsOnlyEntryNames = true
        return rules
    }
}
