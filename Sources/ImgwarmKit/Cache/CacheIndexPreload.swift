import ImgwarmSystem

/// A cache folder's index read on a thread of its own while the run reads its lists: the two
/// are independent, and each took about a tenth of a hits-only pass over 100,000 cached lines
/// (Glide's journal, flutter_cache_manager's rows: docs/performance.md, issue 39). It only
/// reads (`CacheIndex.load` writes nothing), so a run that stops before its first download has
/// still opened and created nothing; the store takes the index it read (`CacheStore(location:
/// preloaded:)`), which answers as a read at that moment would have, since an index a process
/// changes later is read again when imgwarm writes it.
public final class CacheIndexPreload: Sendable {
    private let read: Background<Result<any CacheIndex, CacheIndexError>>

    private init(_ index: any CacheIndex) {
        read = Background(name: "imgwarm-index") {
            do throws(CacheIndexError) {
                try index.load()
                return .success(index)
            } catch {
                return .failure(error)
            }
        }
    }

    /// Starts reading `location`'s index; nil for a format without one, or where something
    /// other than a folder stands at the folder's path (the store names it).
    public static func start(_ location: CacheLocation) -> CacheIndexPreload? {
        guard FileSystem.nonFolder(onPath: location.folder) == nil, let index = location.makeIndex() else {
            return nil
        }
        return CacheIndexPreload(index)
    }

    /// Waits for the read to end: the index as read, or why the library would not use it.
    public func wait() -> Result<any CacheIndex, CacheIndexError> { read.wait() }
}
