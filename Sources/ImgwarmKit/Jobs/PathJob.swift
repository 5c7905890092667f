/// `imgwarm path`: the file of each key's entry, as the format's library finds it. A format whose
/// index names the entries (flutter_cache_manager's database) has its index read once; the others
/// name a key's file from the key alone, and nothing is read. Writes nothing.
public struct PathJob: Sendable {
    /// What the job answers for one argument.
    public enum Answer: Sendable, Equatable {
        /// The name of the key's entry in the cache folder (a relative path: Fresco's has folders).
        case name(String)
        /// The key filters made the key empty: there is no key to name.
        case emptyKey
        /// The format's index gives the key no entry, and why.
        case unnamed(UnnamedEntry)
        /// The format's library never stores this key (`KeyRefusingFormat`), and why.
        case refused(String)
    }

    public let location: CacheLocation
    /// The `--key-filter` filters each argument is taken through as a URL; empty: the argument is the key.
    public let keyFilters: KeyFilterChain
    /// The index that names the entries, as read; nil when the key names its entry.
    private let index: (any CacheIndex)?

    /// Reads the index when it names the entries; throws when it cannot be read as the library
    /// reads it (a DiskLruCache journal is not read: the key alone names its file).
    public init(location: CacheLocation, keyFilters: KeyFilterChain = KeyFilterChain()) throws(CacheIndexError) {
        self.location = location
        self.keyFilters = keyFilters
        guard let index = location.makeIndex(), index is any EntryNamingIndex else {
            index = nil
            return
        }
        try index.load()
        self.index = index
    }

    /// The name of the entry of `argument`'s key (`argument` through the key filters).
    public func name(for argument: String) -> Answer {
        let key = keyFilters.key(for: argument)
        if key.isEmpty && !keyFilters.filters.isEmpty { return .emptyKey }
        if let refusal = (location.format as? any KeyRefusingFormat)?.refusal(forKey: key) { return .refused(refusal) }
        do {
            return .name(try location.entryName(forKey: key, index: index))
        } catch {
            return .unnamed(error)
        }
    }
}
