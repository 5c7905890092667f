import ImgwarmSystem

/// Runs a prefetch's state writes on a thread of their own, in the order they were queued, so
/// the download loop never waits for SQLite, nor for another process holding the database's
/// write lock (a `clean`, another prefetch's batch): downloads and stores go on, only the
/// records wait. (On 2 cores shared with the server it saves no time: docs/performance.md,
/// "Where the CPU goes".)
///
/// Writes are grouped into transactions committed every `batch` writes or `interval` seconds:
/// SQLite then costs little per URL, and the write lock, which other imgwarm processes sharing
/// the database wait for, is not held much longer than a second. The writer takes what is queued
/// every `pause` seconds, or as soon as `wakeAt` writes wait, so queueing a write rarely wakes it.
///
/// The first failed write rolls its transaction back and ends writing: `failure` says why (the
/// download loop then starts nothing new and the run fails), and later writes are dropped. A `read`
/// sees every write queued before it.
///
/// The thread, `imgwarm-state` (`run`), owns the `StateStore` connection and its batched
/// transaction while downloads run. The loop queues writes (closures); its few reads (`--refresh`
/// validators, the blacklist) go through `read`, which first applies what is still queued. Another
/// process holding the write lock thus holds up this thread, never the downloads; a write that
/// fails (the lock held past `--lock-timeout`) stops new downloads
/// (`StateAndRetryTests.downloadsGoOnWhileTheStateIsLocked`).
final class StateWriter: @unchecked Sendable {
    typealias Write = @Sendable (StateStore) throws(StateError) -> Void

    static let batch = 500
    static let interval = 1.0
    static let pause = 0.02
    static let wakeAt = 256
    /// Past this many queued writes `submit` waits, so the queue stays small while SQLite waits
    /// for another process's lock (up to `--lock-timeout`).
    static let limit = 8192

    /// Released by `finish`, so the connection closes when its owner lets it go (the WAL is
    /// checkpointed and removed then) and not whenever this thread's last reference goes.
    private var store: StateStore?
    private let condition = Condition()
    // Guarded by `condition`.
    private var queue: [Write] = []
    /// The writer thread is using the store outside the lock.
    private var writing = false
    private var closed = false
    private var running = true
    private var failed: StateError?
    // Touched only by the store's user of the moment: the writer thread while `writing`, or a
    // `read` holding the lock.
    private var uncommitted = 0
    private var committedAt = Monotonic.now()

    init(store: StateStore) {
        self.store = store
        startThread(name: "imgwarm-state") { [self] in run() }
    }

    /// Why writing stopped, once a write failed.
    var failure: StateError? { condition.withLock { failed } }

    /// Queues a write (dropped once writing has failed or `finish` was called).
    func submit(_ write: @escaping Write) {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= StateWriter.limit && failed == nil && !closed { condition.wait() }
        guard failed == nil, !closed else { return }
        queue.append(write)
        if queue.count == StateWriter.wakeAt { condition.broadcast() }
    }

    /// Runs `body` on the store once every write queued so far is done (here, on the calling
    /// thread, when the writer has not taken them yet).
    func read<T>(_ body: (StateStore) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        while writing { condition.wait() }
        let writes = take()
        if failed == nil { failed = apply(writes, commitNow: false) }
        guard let store else { preconditionFailure("StateWriter.read after finish") }
        return body(store)
    }

    /// Applies what is queued, commits, and ends the thread; returns why writing failed, if it did.
    func finish() -> StateError? {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        condition.broadcast()
        while running { condition.wait() }
        store = nil
        return failed
    }

    private func run() {
        condition.lock()
        while true {
            if !closed && queue.count < StateWriter.wakeAt {
                condition.wait(until: Monotonic.now() + StateWriter.pause)
            }
            let writes = take()
            let last = closed  // nothing can be queued after this
            if failed == nil && (!writes.isEmpty || uncommitted > 0 || last) {
                writing = true
                condition.broadcast()  // room in the queue for a waiting `submit`
                condition.unlock()
                let failure = apply(writes, commitNow: last)
                condition.lock()
                writing = false
                if failed == nil { failed = failure }
                condition.broadcast()  // for a waiting `read`
            }
            if last || failed != nil { break }
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }

    private func take() -> [Write] {
        let writes = queue
        queue = []
        return writes
    }

    /// Applies `writes`, committing as the policy says (and at the end with `commitNow`); the
    /// first failure rolls back the open transaction and is returned.
    private func apply(_ writes: [Write], commitNow: Bool) -> StateError? {
        guard let store else { return nil }
        do throws(StateError) {
            for write in writes {
                try store.begin()
                try write(store)
                uncommitted += 1
                if uncommitted >= StateWriter.batch { try commit() }
            }
            if uncommitted > 0 && (commitNow || Monotonic.now() - committedAt >= StateWriter.interval) {
                try commit()
            }
            return nil
        } catch {
            store.rollback()
            return error
        }
    }

    private func commit() throws(StateError) {
        try store?.commit()  // nil only after `finish`, when nothing is left to commit
        uncommitted = 0
        committedAt = Monotonic.now()
    }
}
