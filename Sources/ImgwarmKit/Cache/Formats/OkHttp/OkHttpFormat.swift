import ImgwarmSystem

/// OkHttp's HTTP cache (`okhttp3.Cache` over its DiskLruCache; docs/cache-formats-android.md,
/// "OkHttp"), which Picasso and Coil 1.x use as their only disk cache: a journal with app version
/// `201105` and two values per entry, `<MD5 of the canonical URL>.0` the request and response head
/// as `Cache.Entry.writeTo` writes it, `.1` the body as it came off the network. The request is the
/// client's (`requestProfile`: `Accept-Encoding: gzip` and OkHttp's `User-Agent`), so a
/// `Vary: Accept-Encoding` response matches what the app asks later.
public struct OkHttpFormat: KeyNamedFormat, IndexedCacheFormat, RequestProfileFormat, FreshnessRewritingFormat,
    KeyRefusingFormat
{
    /// Which app's cache: a preset names the folder and the client's version.
    public enum Preset: String, Sendable, CaseIterable {
        /// Any app's `Cache(File(cacheDir, "http_cache"), …)` (or `--disk-cache-path`), OkHttp 3.x.
        case okhttp
        /// Picasso 2.71828: `<cacheDir>/picasso-cache` (`Utils.createDefaultCacheDir`), OkHttp 3.x.
        case picasso
        /// Coil 1.x: `<cacheDir>/image_cache` (`CoilUtils.createDefaultCache`), OkHttp 4.x.
        case coil1
    }

    public let preset: Preset
    /// The `max-age` stored entries get instead of the response's caching headers (`--freshness`);
    /// nil: the headers as received.
    public private(set) var freshness: Int64?

    public init(_ preset: Preset = .okhttp) {
        self.preset = preset
    }

    public func fresh(forSeconds seconds: Int64) -> OkHttpFormat {
        var format = self
        format.freshness = seconds
        return format
    }

    /// The `<key>.0` this format writes for `response`, judged as `verify` judges it.
    public func isServedOffline(_ response: CacheIndexResponse, now: Timestamp) -> Bool {
        let entry = OkHttpEntry(profile: requestProfile, freshness: freshness)
        guard case .serves = entry.judge(hitWith: entry.contents(ofCompanion: "x.0", response: response), now: now)
        else { return false }
        return true
    }

    public var name: String { preset.rawValue }
    public var platforms: Set<AppContainer.Platform> { [.android] }

    public var library: String {
        switch preset {
        case .okhttp: return "OkHttp 3.x/4.x"
        case .picasso: return "Picasso 2.x (OkHttp 3.x)"
        case .coil1: return "Coil 1.x (OkHttp 4.x)"
        }
    }

    public var hasNamespace: Bool { false }
    /// `trimToSize` runs after every edit (`DiskLruCache.completeEdit`).
    public var trimsItselfToSizeLimit: Bool { true }

    public var folderName: String {
        switch preset {
        case .okhttp: return "http_cache"
        case .picasso: return "picasso-cache"
        case .coil1: return "image_cache"
        }
    }

    /// The `User-Agent` OkHttp's `BridgeInterceptor` adds (`Version.userAgent`): the version the
    /// preset's library ships with.
    public var requestProfile: RequestProfile {
        RequestProfile(userAgent: preset == .coil1 ? "okhttp/4.9.1" : "okhttp/3.12.13")
    }

    /// `Cache.VERSION` and `ENTRY_COUNT`; OkHttp 3.x's Java reader splits lengths as Java does,
    /// 4.x's as Kotlin; both rewrite the journal at 2,000 redundant lines when no fewer than the
    /// entries (`journalRebuildRequired`).
    public var layout: JournalIndex.Layout {
        JournalIndex.Layout(
            library: library, header: DiskLruJournal.Header(appVersion: 201105, valueCount: 2),
            dialect: preset == .coil1 ? .kotlinSplit : .javaSplit, dataIndex: 1, keyLength: 32,
            companionWriter: OkHttpEntry(profile: requestProfile, freshness: freshness))
    }

    public func folder(cachesRoot: String, namespace: String) -> String {
        CacheLocation.join(cachesRoot, folderName)
    }

    /// `Cache.key`: the MD5 of `HttpUrl.toString()` in hex (a URL `OkHttpURL` leaves as written
    /// when it does not canonicalize it).
    public func fileName(forKey key: String) -> String {
        MD5.digest(Array((OkHttpURL.canonical(key) ?? key).utf8)).hex + ".1"
    }

    /// An http(s) URL `HttpUrl.parse` refuses (`OkHttpURL.canonical` is nil): the app's
    /// `Request.Builder.url` throws, so OkHttp never requests it and has no entry for it. A key
    /// that is no http(s) URL (key filters) is named as written.
    public func refusal(forKey key: String) -> String? {
        let scheme = key.prefix(8).lowercased()
        guard scheme.hasPrefix("http://") || scheme.hasPrefix("https://"), OkHttpURL.canonical(key) == nil else {
            return nil
        }
        return
            "OkHttp's HttpUrl refuses this URL (a host it cannot canonicalize: an IPv6 literal it cannot decode, a name IDNA refuses, a character a Host header cannot carry; or a port outside 1-65535), so \(library) never requests or caches it"
    }

    public func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        DiskLruCacheNames.isEntryName(bytes, valueCount: 2, keyLength: 32)
    }

    public var entryNameShape: String { DiskLruCacheNames.md5Shape }

    public func timesOnHit(now: Timestamp) -> FileTimes { FileTimes() }

    /// Least recently used first by the journal's order, down to the app's `maxSize`: Picasso's
    /// default depends on the device (2 % of the disk within 5–50 MB), so there is no default and
    /// only the `--max-size` given trims.
    public var cleanRules: CleanRules {
        var rules = CleanRules.journalTrim(defaultMaxSize: 0)
        rules.limitDependsOnDevice = true
        return rules
    }

    public func makeIndex(for location: CacheLocation) -> any CacheIndex {
        JournalIndex(location: location, layout: layout)
    }
}
