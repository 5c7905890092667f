import ImgwarmSystem

/// `imgwarm blacklist list|remove|clear`: the persisted blacklist of one cache's state database
/// (docs/cache-contract.md §5). It creates nothing: without a database there is nothing
/// blacklisted, and `missing` says what was not there.
public final class BlacklistJob {
    public struct Configuration: Sendable {
        /// The state database; nil for the default.
        public var statePath: String?
        /// Seconds to wait for another process's lock on the state database. `30` by default.
        public var lockTimeout = CacheLock.defaultTimeout

        public init() {}
    }

    /// What was not there when the job opened.
    public enum Missing: Sendable, Equatable {
        /// The cache folder exists, its state database does not: no prefetch has used it yet.
        case stateDatabase
        /// Neither the cache folder nor its state database exists.
        case cacheAndStateDatabase
    }

    public let location: CacheLocation
    /// The state database read (or that would be).
    public let statePath: String
    /// Nil when the database exists and is open.
    public let missing: Missing?
    private let store: StateStore?

    /// Opens the state database when it exists, read-only unless `forWriting`; creates nothing.
    /// Throws when the database exists and cannot be opened.
    public init(location: CacheLocation, configuration: Configuration, forWriting: Bool) throws(StateError) {
        self.location = location
        let path = StateStore.path(configuration.statePath, for: location)
        guard FileSystem.existsFollowingLinks(path) else {
            let cacheExists = (try? FileSystem.status(ofPath: location.folder)) != nil
            statePath = path
            missing = cacheExists ? .stateDatabase : .cacheAndStateDatabase
            store = nil
            return
        }
        let store = try StateStore(path: path, busyTimeout: configuration.lockTimeout, readOnly: !forWriting)
        self.store = store
        statePath = store.path
        missing = nil
    }

    /// The blacklisted URLs, oldest failure first; none without a database.
    public func entries() throws(StateError) -> [StateStore.BlacklistEntry] {
        try store?.blacklistEntries() ?? []
    }

    /// What `remove` did with one URL.
    public enum Removal: Sendable, Equatable {
        /// Taken off the blacklist (the URL as stored, which `list` shows with `user:***@`).
        case removed(String)
        /// Not on the blacklist.
        case notListed
        /// The URL as `list` shows it (`user:***@host`) stands for several entries: none removed.
        case ambiguous(Int)
    }

    /// Takes `url` off the blacklist: the URL as fetched, or as `list` shows it, with the password
    /// hidden (`https://user:***@host/x.png`), when exactly one entry shows so.
    public func remove(_ url: String) throws(StateError) -> Removal {
        guard let store else { return .notListed }
        if try store.unblacklist(url) { return .removed(url) }
        guard Redaction.redact(url) == url, url.contains(":***@") else { return .notListed }
        let shownSo = try store.blacklistEntries().map(\.url).filter { Redaction.redact($0) == url }
        guard shownSo.count == 1, let stored = shownSo.first else {
            return shownSo.isEmpty ? .notListed : .ambiguous(shownSo.count)
        }
        return try store.unblacklist(stored) ? .removed(stored) : .notListed
    }

    /// Empties the blacklist; returns how many entries it held.
    public func clear() throws(StateError) -> Int {
        try store?.clearBlacklist() ?? 0
    }
}
