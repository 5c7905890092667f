/// What one format's library does that the others' do not, each a protocol the format (or its
/// index) adopts: `CacheFormat` and `CacheIndex` keep what every format answers, and the engine
/// finds a capability by asking for it (`format as? any ExpiryStampingFormat`), never through a
/// requirement every format answers with a default.

// MARK: - Formats

/// A format whose key names its entry (a digest of the key, and so on). A format whose index
/// names the entries instead (`EntryNamingIndex`: flutter_cache_manager) is not one. The engine
/// asks `CacheLocation.entryName(forKey:index:)`, which asks whichever names the entry.
public protocol KeyNamedFormat: CacheFormat {
    /// The name `key` gives its entry in the cache folder (a relative path: Fresco's has folders).
    func fileName(forKey key: String) -> String
}

/// A format whose files carry their own expiry date (Kingfisher: the modification time), so a
/// store or a hit stamps it `expiresIn` seconds ahead and `--expires-in` applies.
public protocol ExpiryStampingFormat: CacheFormat {
    /// Seconds a stored or read entry stays fresh.
    var expiresIn: Int64 { get }

    /// This format with entries fresh for `seconds` (`--expires-in`).
    func expiring(afterSeconds seconds: Int64) -> Self
}

/// A format whose entries keep the response's caching headers (OkHttp's `Cache-Control`), which
/// the app's client reads to decide whether to serve an entry without asking the network: a
/// prefetch may store `Cache-Control: max-age=<seconds>` instead (`--freshness`), as an app's
/// network interceptor rewrites it.
public protocol FreshnessRewritingFormat: CacheFormat {
    /// The `max-age` stored entries get; nil: the headers as received.
    var freshness: Int64? { get }

    /// This format storing `Cache-Control: max-age=<seconds>`.
    func fresh(forSeconds seconds: Int64) -> Self

    /// Whether the app's client serves an entry stored now from `response` without the network
    /// at `now` (OkHttp: its `CacheStrategy` finds the stored headers fresh).
    func isServedOffline(_ response: CacheIndexResponse, now: Timestamp) -> Bool
}

/// A format whose library keeps an index beside its files (a DiskLruCache journal, Fresco's
/// folder tree, flutter_cache_manager's database) that decides hits with `read`, records stores
/// and hits, and cleans (`CacheIndex`).
public protocol IndexedCacheFormat: CacheFormat {
    /// The index of `location`'s folder, not yet read (`CacheIndex.load`).
    func makeIndex(for location: CacheLocation) -> any CacheIndex
}

/// A format whose library keeps its database outside the cache folder (flutter_cache_manager's,
/// in the app's support folder), so `--database` names where it is.
public protocol ExternalDatabaseFormat: CacheFormat {
    /// This format with its database at `path`.
    func usingDatabase(atPath path: String) -> Self
}

/// A format whose entries live in a subfolder of its own layout (Fresco's version folder, whose
/// shard folders hold the entries): `stats`, `clean` and the metrics count the files below it,
/// not it or the folders in it. A format without one has every subfolder an entry, as
/// SDWebImage's `totalDiskCount` counts it.
public protocol LayoutFolderFormat: CacheFormat {
    /// The layout subfolder's name in the cache folder.
    var layoutFolder: String { get }
}

/// A format whose library may discard its whole folder at the app's launch for a reason outside
/// the folder (PINRemoteImage: a preference the app has not written yet), which no look at the
/// folder can tell: `verify` says it with its verdict.
public protocol LaunchCaveatFormat: CacheFormat {
    /// What the library does at launch and how to prevent it, in words.
    var launchCaveat: String { get }
}

/// A format whose library reads integers from the app's preferences before it uses its folder
/// (PINRemoteImage's version key: without it the library deletes the folder at launch), which
/// `pack --platform ios` can write as the app's preferences file (docs/pack.md).
public protocol AppPreferencesFormat: CacheFormat {
    /// The preferences the library wants, by key, in order.
    var appPreferences: [(key: String, value: Int)] { get }
}

/// A format whose library refuses some keys before any request (OkHttp: a URL its `HttpUrl`
/// cannot parse is never fetched, so never cached): such a line is invalid, with the reason.
public protocol KeyRefusingFormat: CacheFormat {
    /// Why the library never caches `key`; nil when it may.
    func refusal(forKey key: String) -> String?
}

/// A format whose library caches HTTP responses whole (OkHttp's `Cache`): the request must be the
/// app's client's (its `Accept-Encoding` and `User-Agent`, so a `Vary` matches) and the body is
/// stored as received; a prefetch fetches with this profile (`FetchConfiguration.profile`).
public protocol RequestProfileFormat: CacheFormat {
    var requestProfile: RequestProfile { get }
}

extension CacheLocation {
    /// The index the format keeps in this folder (`IndexedCacheFormat`), not yet read; nil for a
    /// plain-files cache.
    public func makeIndex() -> (any CacheIndex)? {
        (format as? any IndexedCacheFormat)?.makeIndex(for: self)
    }
}

// MARK: - Indexes

/// An index that needs something made in a folder it is to keep (Fresco's version folder,
/// flutter_cache_manager's database) once the folder exists and before anything is stored.
public protocol FolderPreparingIndex: CacheIndex {
    func prepare() throws(CacheIndexError)
}

/// An index whose entries need other files beside the one the entry's name names (Coil's
/// metadata file), each written empty before it.
public protocol CompanionFilesIndex: CacheIndex {
    /// The other files entry `name` needs.
    func companions(of name: String) -> [String]
}

/// An index whose entries say in a companion file when the library received them (OkHttp's
/// `OkHttp-Received-Millis` in `<key>.0`): `merge` keeps the copy of an entry received last by
/// it, not by the files' modification times (docs/merge.md).
public protocol ReceivedClockIndex: CompanionFilesIndex {
    /// When the entry whose first companion holds `companion` was received; nil when the index
    /// keeps no such time for it (or cannot read it).
    func receivedAt(companion: [UInt8]) -> Timestamp?
}

/// An index whose companion files hold what the library keeps of the response (OkHttp's
/// `<key>.0`: the request, the status line, the headers, the TLS session), written before the
/// entry instead of empty.
public protocol ResponseCompanionsIndex: CompanionFilesIndex {
    /// The bytes of `companion` (one of `companions(of: name)`) for entry `name` stored from
    /// `response` (nil: a local file, no response).
    func contents(ofCompanion companion: String, of name: String, response: CacheIndexResponse?) -> [UInt8]
}

/// An index whose companion files hold the response and that a `304 Not Modified` updates as the
/// library's own cache does (OkHttp's `Cache.update`: the stored headers merged with the 304's,
/// the times renewed), not only records as a read.
public protocol RevalidationUpdatingIndex: ResponseCompanionsIndex {
    /// The new bytes of `companion` of entry `name` after a 304's `response`, from the `stored`
    /// ones (at most `updateLimit` bytes are read); nil leaves it as it is.
    func updated(companion: String, of name: String, stored: [UInt8], response: CacheIndexResponse) -> [UInt8]?

    /// The most bytes of a stored companion `updated` is given; a larger one is left as it is.
    var updateLimit: Int { get }
}

/// An index that knows more of a hit than that it is one (OkHttp: whether the app serves it
/// without the network, and until when; whether it can read the entry's metadata at all), which
/// `verify` says.
public protocol HitJudgingIndex: CacheIndex {
    /// What the library does with hit `name` at `now`.
    func judge(hit name: String, now: Timestamp) -> HitJudgement
}

/// What a library does with an entry its index lists and whose files are there
/// (`HitJudgingIndex`).
public enum HitJudgement: Sendable, Equatable {
    /// It serves it; what to add, in words (nil: nothing).
    case serves(String?)
    /// It finds it but does not serve it without the network (OkHttp's `CacheStrategy` finds it
    /// stale): since when, and what the app does, in words.
    case stale(since: Timestamp, String)
    /// It does not read it as an entry (OkHttp: a `<key>.0` its reader refuses, or one past
    /// imgwarm's bounds): a miss, with why.
    case miss(EntryMiss, String)
}

/// An index that, not the key, names the entries (flutter_cache_manager: a row per key names its
/// file, and every download gets a new name), and keeps what it needs of each response.
public protocol EntryNamingIndex: CacheIndex {
    /// The name of `key`'s entry as the index holds it (which may be no plain name of the folder,
    /// `../x`: `CacheLocation.entryName(forKey:index:)` refuses it); nil when the index lists no
    /// entry for the key.
    func entryName(forKey key: String) -> String?

    /// The name a download of an entry now named `name` is stored under.
    func storeName(for name: String, response: CacheIndexResponse) -> String

    /// `name` was just stored, complete, from `response`: list it at the next flush.
    func didStore(_ name: String, response: CacheIndexResponse)

    /// `name` was a hit that the server confirmed (a 304 to a conditional request) with
    /// `response`: record it as the library records a 304 (flutter_cache_manager: new
    /// `validTill` and `eTag`).
    func didRevalidate(_ name: String, response: CacheIndexResponse)
}

extension CacheIndex {
    /// `name` was a hit, confirmed by a 304's `response` when there was one: an index that keeps
    /// responses (`EntryNamingIndex`) records the 304, any other the read.
    func recordRead(_ name: String, revalidatedBy response: CacheIndexResponse?) {
        if let response, let naming = self as? any EntryNamingIndex {
            naming.didRevalidate(name, response: response)
        } else {
            didRead(name)
        }
    }

    /// `name` was just stored, from `response` when there was one: an index that keeps responses
    /// (`EntryNamingIndex`) lists it with the response, any other by its name.
    func recordStore(_ name: String, response: CacheIndexResponse?) {
        if let response, let naming = self as? any EntryNamingIndex {
            naming.didStore(name, response: response)
        } else {
            didStore(name)
        }
    }
}

/// An index whose rows keep what the library knows of each entry beside its file
/// (flutter_cache_manager's `cacheObject`: URL, eTag, `validTill`, `touched`, length), which
/// `merge` copies with the entry; `touched` decides between two copies (docs/merge.md).
public protocol RowCopyingIndex: EntryNamingIndex {
    /// Every row of the index, read whole from where the library keeps them (reads only).
    func copiedRows() throws(CacheIndexError) -> [CacheIndexRow]

    /// When the library last used `key`'s entry (`touched`); nil when it lists none.
    func lastUsed(key: String) -> Timestamp?

    /// `name` was just stored, complete, a copy of `row`'s entry from another cache: list it with
    /// the row's own values (its `touched` too, not now) at the next flush.
    func didCopy(_ name: String, row: CacheIndexRow)
}

/// One row of an index that keeps rows (`RowCopyingIndex`), times in milliseconds since 1970.
public struct CacheIndexRow: Sendable, Equatable {
    public var key: String
    public var url: String
    /// The file it names.
    public var relativePath: String
    public var eTag: String?
    public var validTill: Int64
    public var touched: Int64
    public var length: Int64?

    public init(
        key: String, url: String, relativePath: String, eTag: String?, validTill: Int64, touched: Int64,
        length: Int64?
    ) {
        (self.key, self.url, self.relativePath, self.eTag) = (key, url, relativePath, eTag)
        (self.validTill, self.touched, self.length) = (validTill, touched, length)
    }

    /// `touched` as a time.
    public var lastUsed: Timestamp {
        Timestamp(seconds: touched / 1000, nanoseconds: (touched % 1000) * 1_000_000)
    }
}

/// A format whose library keeps files of the cache outside its folder (flutter_cache_manager's
/// database, in the app's support folder): `imgwarm pack` lays them out in the app's container
/// beside the folder (docs/pack.md).
public protocol OutsideFilesFormat: CacheFormat {
    /// The files the cache at `location` keeps outside its folder, with where the app keeps each.
    func outsideFiles(of location: CacheLocation) -> [AppContainer.OutsideFile]
}
