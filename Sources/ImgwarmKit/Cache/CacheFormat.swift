/// An image library's disk cache as an app reads it: where its folder is and how an entry is
/// named (SPEC §11 in the contract; docs/cache-contract.md for SDWebImage's rules).
///
/// Each format is one type in its own folder under `Cache/Formats/`, registered once in
/// `CacheFormats.all`: the engine asks the format of its `CacheLocation` and names none. What a
/// format does differently beyond names and folders (expiry stamping, an index such as a journal
/// or a database, its clean order) joins this protocol with the format that first needs it.
public protocol CacheFormat: Sendable {
    /// Its `--cache-format` name, e.g. `sdwebimage`.
    var name: String { get }

    /// The cache folder inside a caches root (the app's `Library/Caches` or `cacheDir`) for
    /// `namespace`, e.g. `<root>/com.hackemist.SDImageCache/default`.
    func folder(cachesRoot: String, namespace: String) -> String

    /// The name of `key`'s entry in the cache folder.
    func fileName(forKey key: String) -> String

    /// True when an entry of a folder named `bytes` (UTF-8) has the shape of one of this format's
    /// entry names: `clean` deletes only in a folder whose files all have it (the clean guard).
    func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool
}

/// The formats imgwarm writes, by name.
public enum CacheFormats {
    /// Every format: the one place that lists them.
    public static let all: [any CacheFormat] = [SDWebImageFormat()]

    /// The format named `name`, if there is one.
    public static func named(_ name: String) -> (any CacheFormat)? {
        all.first { $0.name == name }
    }
}
