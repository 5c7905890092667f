import ImgwarmSystem

/// The index a library keeps beside its entry files (a DiskLruCache journal): what it lists is
/// what the library serves, and the library discards the whole folder when it cannot read it
/// (docs/cache-formats-android.md). A format that has one makes it (`IndexedCacheFormat`); the
/// engine calls these hooks and names no format. What only some indexes do (make something in
/// the folder, write companion files, name the entries) is a capability the index adopts
/// (`FolderPreparingIndex`, `CompanionFilesIndex`, `EntryNamingIndex`).
///
/// One object serves one run over one folder, from any thread. Writes to the index happen in
/// `flush` only, under the shared cache lock the caller holds (docs/usage.md, "Running
/// unattended") and the index's own exclusive lock, so two processes lose nothing.
public protocol CacheIndex: AnyObject, Sendable {
    /// Reads the index as the library does when it opens the cache; writes nothing. Throws when
    /// the library would discard the folder. A folder without an index is an empty cache.
    func load() throws(CacheIndexError)

    /// nil when the index lists entry `name` (a file name of the format) as one the library
    /// serves and every other file that entry needs exists; else why the library misses it.
    func check(_ name: String) -> EntryMiss?

    /// True when `name` is the file of an entry that `CacheLocation.entryName(forKey:index:)` names (not
    /// the index itself, a companion or a file the library is still writing).
    func isEntryFile(_ name: String) -> Bool

    /// The entry files (as `CacheLocation.entryName(forKey:index:)` names them) of every entry the index lists as one
    /// the library serves, least recently used first.
    var listedNames: [String] { get }

    /// The names the index gives entries it serves that are not one plain name of the folder
    /// (a journal key or a row's `relativePath` such as `../x`): `listedNames` leaves them out,
    /// nothing opens them, and `verify` reports them. None by default.
    var unsafeNames: [String] { get }

    /// `name` was just stored, complete, under its name: list it at the next flush.
    func didStore(_ name: String)

    /// True while `name` was stored (`didStore`) but the index does not list it yet: its line or
    /// row waits for the next flush, and the library does not see the entry. False by default
    /// (an index that lists a store at once).
    func awaitsListing(_ name: String) -> Bool

    /// How many flushes so far listed what was stored before them: while it has not changed,
    /// nothing `awaitsListing` named has been listed since (a caller holding thousands of
    /// awaiting names asks again only when it moves). 0 by default (nothing ever awaits).
    var listingFlushes: Int { get }

    /// `name` was a hit: record the read as the library's own read does, at the next flush.
    func didRead(_ name: String)

    /// Writes what was recorded into the index. With `force` false, only when a batch is due and
    /// no other process is writing the index (it never waits); with `force`, waits up to
    /// `lockTimeout` seconds for the index lock.
    func flush(force: Bool, lockTimeout: Double) throws(CacheIndexError)

    /// The bytes the library counts against its size limit, as of the last load or flush.
    var accountedBytes: UInt64 { get }

    /// `clean` by the library's own rules: with `policy.maxSize` (or `removeAll`), entries go
    /// least recently used first as the library's trim removes them, the index first, then their
    /// files. The caller holds the cache lock exclusively. `observe` hears each removal.
    func clean(
        policy: DiskCache.CleanPolicy, dryRun: Bool, lockTimeout: Double, observe: (DiskCache.CleanEvent) -> Void
    ) throws(CacheIndexError) -> DiskCache.CleanResult
}

extension CacheIndex {
    public var unsafeNames: [String] { [] }

    public func awaitsListing(_ name: String) -> Bool { false }

    public var listingFlushes: Int { 0 }
}

/// What an index may keep of the download a stored entry came from (flutter_cache_manager's row):
/// the final response's head as the transfer read it, whole.
public struct CacheIndexResponse: Sendable, Equatable {
    public var key: String
    public var url: String
    public var headers: ResponseHeaders
    /// When the response arrived.
    public var receivedAt: Timestamp
    /// The body's length in bytes.
    public var length: Int

    /// The fields of `headers` an index reads (flutter_cache_manager's `eTag`, `validTill` and
    /// file extension).
    public var etag: String? { headers.etag }
    public var cacheControl: String? { headers.cacheControl }
    public var contentType: String? { headers.contentType }

    public init(key: String, url: String, headers: ResponseHeaders, receivedAt: Timestamp, length: Int) {
        (self.key, self.url, self.headers, self.receivedAt, self.length) = (key, url, headers, receivedAt, length)
    }
}

/// An index that cannot be read as the library reads it, or cannot be written.
public enum CacheIndexError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The library would discard the folder: imgwarm writes nothing there. `index` is what the
    /// library could not read ("its journal"), `repair` what gives the folder back to it.
    case unreadable(
        path: String, library: String, reason: String, index: String = "its journal",
        repair: String = "restore its journal")
    /// The library would not use its database (another schema or version, not a database):
    /// imgwarm writes nothing there.
    case refused(path: String, library: String, reason: String)
    /// The index could not be read or written.
    case system(path: String, SystemError)
    /// Another process held the index lock longer than the wait allowed.
    case locked(CacheLock.Timeout)
    /// The cache folder could not be read.
    case folder(DiskCacheError)
    /// Something else than a regular file stands at the index's name (`what`: "a FIFO", "a
    /// symbolic link"…): it was neither read nor waited on, and imgwarm changed nothing there.
    case notARegularFile(path: String, what: String)
    /// imgwarm does not use the index although the library might (`reason`: a journal line over
    /// imgwarm's limit, a journal another process kept changing): imgwarm changed nothing there.
    case notUsed(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let library, let reason, _, let repair):
            return
                "\(library) would not read \(path) (\(reason)) and would delete the whole cache folder when the app opens it: imgwarm changed nothing there; remove the folder or \(repair)"
        case .refused(let path, let library, let reason):
            return "\(library) would not use \(path) (\(reason)): imgwarm changed nothing there"
        case .system(let path, let error): return "cannot use \(path): \(error)"
        case .locked(let timeout): return timeout.description
        case .folder(let error): return error.description
        case .notUsed(let path, let reason):
            return "imgwarm did not use \(path): \(reason); it changed nothing there"
        case .notARegularFile(let path, let what):
            return
                "\(path) is \(what), not a regular file: imgwarm reads a library's journal or database only from a regular file, and changed nothing there"
        }
    }
}
