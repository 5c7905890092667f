import ImgwarmSystem

/// What a prefetch reads on threads of its own while it reads its lists: the cache's index
/// (`CacheIndexPreload`) and SQLite's check of the state database (`StateStore.quickCheck`),
/// each as long as the lists' reading itself in a hits-only pass over 100,000 cached lines
/// (docs/performance.md). Both only read: a run stopped before its first download has opened
/// and created nothing. A dry run reads neither ahead.
///
/// The two threads are `imgwarm-index` and `imgwarm-check`. They own nothing after they end: the
/// store's opening takes the index as read (`CacheStore(location:preloaded:)`), and the state
/// database's opening skips its check for the same file (told by device and inode).
final class PrefetchReadAhead: Sendable {
    let index: CacheIndexPreload?
    private let stateCheck: Background<StateStore.CheckedFile?>

    init(location: CacheLocation, statePath: String) {
        index = CacheIndexPreload.start(location)
        stateCheck = Background(name: "imgwarm-check") { StateStore.quickCheck(path: statePath) }
    }

    /// The state database as the check found it intact, once the check ended.
    var checkedState: StateStore.CheckedFile? { stateCheck.wait() }
}
