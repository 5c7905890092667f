import ImgwarmSystem

/// Key → entry name, answered here only: `prefetch` (run and dry run), `verify`, `path` and
/// `CacheLocation.path(forKey:index:)` all ask `entryName(forKey:index:)`.
extension CacheLocation {
    /// The name of `key`'s entry in the folder, as the format's library finds it: the name its
    /// index gives the key when the index names the entries (`EntryNamingIndex`,
    /// flutter_cache_manager's row), else the name the key gives (`KeyNamedFormat`). `index` is
    /// the folder's index as read (`makeIndex()`, `load()`); a format whose index names the
    /// entries names none without it.
    public func entryName(forKey key: String, index: (any CacheIndex)?) throws(UnnamedEntry) -> String {
        if let naming = index as? any EntryNamingIndex {
            guard let name = naming.entryName(forKey: key) else { throw .notListed(library: format.library) }
            // A row may name `../x`: nothing opens it (docs/hardening.md).
            guard FileDescriptor.isPlainName(name) else { throw .notAFileOfTheFolder(library: format.library) }
            return name
        }
        guard let keyNamed = format as? any KeyNamedFormat else { throw .indexNotRead(library: format.library) }
        return keyNamed.fileName(forKey: key)
    }

    /// The path of `key`'s entry file (`entryName(forKey:index:)`).
    public func path(forKey key: String, index: (any CacheIndex)? = nil) throws(UnnamedEntry) -> String {
        CacheLocation.join(folder, try entryName(forKey: key, index: index))
    }
}

/// Why a key's entry has no name in a cache folder: the format's index names the entries
/// (flutter_cache_manager's database), and it gives this key none.
public enum UnnamedEntry: Error, Sendable, Equatable, CustomStringConvertible {
    /// The index lists no entry for the key: the library names a file only when it downloads it.
    case notListed(library: String)
    /// The index names a path for the key that is not a plain name of the folder (`../x`): imgwarm
    /// does not open it (docs/hardening.md).
    case notAFileOfTheFolder(library: String)
    /// The index that names the entries was not read, so no name is known.
    case indexNotRead(library: String)

    public var description: String {
        switch self {
        case .notListed(let library):
            return "no entry in the database for this key (\(library) names a file when it downloads it)"
        case .notAFileOfTheFolder(let library):
            return
                "\(library)'s database names a path for this key that is not a file of the cache folder: imgwarm does not open it"
        case .indexNotRead(let library):
            return "\(library) names its files in its database, which was not read"
        }
    }
}

/// The cache's part of a pending entry: the name its format gives the key's entry.
extension PendingEntry {
    /// The cache file name: `fileName` once settled, else the name the key gives (empty where
    /// the index names the entries: it was not asked).
    func cacheFileName(in location: CacheLocation) -> String {
        fileName.isEmpty ? ((try? location.entryName(forKey: key, index: nil)) ?? "") : fileName
    }

    /// Computes `fileName` in `location` (as its read `index` names the key's entry) if it is
    /// not yet, and returns it; empty while the index lists no entry for the key.
    mutating func settleFileName(in location: CacheLocation, index: (any CacheIndex)?) -> String {
        if fileName.isEmpty { fileName = (try? location.entryName(forKey: key, index: index)) ?? "" }
        return fileName
    }
}
