import ImgwarmSystem

/// A prefetch's access to the state database: opening it, writes through the writer thread
/// (`StateWriter`), reads after the writes queued so far, the records `--refresh` reads and the
/// blacklist, which an empty database spares a query per URL. Reports a failure once
/// (`writerFailure`, `finish`); it is the job that halts on it.
final class PrefetchState {
    let path: String
    private let fetch: FetchConfiguration
    private let blacklistTTL: Expiry
    /// The state database (nil in a dry run without one).
    private(set) var store: StateStore?
    /// Owns `store` while downloads run: writes go through it, and reads too.
    private var writer: StateWriter?
    /// Set once a write failed: later writes are dropped.
    private var failed = false
    /// `fetch.clientFingerprint`, computed once.
    private(set) lazy var clientFingerprint = fetch.clientFingerprint
    /// When the blacklist was last found empty (monotonic seconds; `blacklistMayHoldEntriesNow`).
    private var blacklistCheckedAt = 0.0
    /// False while the blacklist is known to be empty: a download then needs no DELETE.
    private(set) var blacklistMayHoldEntries = true

    init(path: String, fetch: FetchConfiguration, blacklistTTL: Expiry) {
        self.path = path
        self.fetch = fetch
        self.blacklistTTL = blacklistTTL
    }

    /// Opens the database before any download; a damaged one is rebuilt, and `warn` told where
    /// the old one went. `checked`: the file SQLite's check found intact while the lists were read.
    func open(busyTimeout: Double, checked: StateStore.CheckedFile? = nil, warn: (String) -> Void) throws(StateError) {
        let opened = try StateStore(path: path, busyTimeout: busyTimeout, checked: checked)
        if let aside = opened.movedAside {
            warn(
                "the state database \(path) was damaged: moved aside to \(aside) and rebuilt (cache files are untouched)"
            )
        }
        try opened.checkWritable()
        blacklistMayHoldEntries = try opened.hasBlacklistEntries()
        blacklistCheckedAt = Monotonic.now()
        store = opened
    }

    /// Starts the writer thread: from now on writes and reads go through it.
    func startWriting() {
        writer = store.map(StateWriter.init)
    }

    /// Opens an existing database to read (a dry run writes nothing).
    func openExisting() throws(StateError) {
        store = try StateStore.openExisting(path: path)
    }

    /// Queues a write for the writer thread (grouped into transactions, committed every 500
    /// writes or second); nothing once a write failed.
    func write(_ body: @escaping StateWriter.Write) {
        guard !failed else { return }
        writer?.submit(body)
    }

    /// Reads the state after every write queued so far; nil without a state database.
    func read<T>(_ body: (StateStore) -> T?) -> T? {
        if let writer { return writer.read(body) }
        return store.flatMap(body)
    }

    /// The failure of a write on the writer thread, the first time it is asked after it happened.
    func writerFailure() -> StateError? {
        guard !failed, let failure = writer?.failure else { return nil }
        failed = true
        return failure
    }

    /// Logs the run (its `totals`, from `startedAt` to now), then lets the writer commit
    /// everything and stop; returns a failure not reported before.
    func finish(totals: PrefetchTotals, startedAt: Timestamp, interrupted: Bool) -> StateError? {
        guard let writer else { return nil }
        let run = StateStore.RunRecord(
            command: "prefetch", startedAt: startedAt.secondsSinceEpoch, finishedAt: Timestamp.now().secondsSinceEpoch,
            totals: StateStore.RunRecord.Totals(
                lines: totals.lines, downloaded: totals.downloaded + totals.copied, cached: totals.cached,
                revalidated: totals.revalidated, failed: totals.failed, blacklisted: totals.blacklisted,
                invalid: totals.invalid),
            interrupted: interrupted)
        write { state throws(StateError) in try state.recordRun(run) }
        let failure = writer.finish()
        self.writer = nil
        guard !failed, let failure else { return nil }
        failed = true
        return failure
    }

    func record(forKey key: String) -> StateStore.Record? {
        read { state in try? state.record(forKey: key) }
    }

    /// Notes that the blacklist holds an entry now (this run listed one).
    func noteBlacklisted() {
        blacklistMayHoldEntries = true
    }

    /// Whether the blacklist may hold entries now. An empty blacklist is looked at again at most
    /// once a second: another process (a prefetch beside this one) may blacklist URLs meanwhile.
    func blacklistMayHoldEntriesNow() -> Bool {
        if blacklistMayHoldEntries { return true }
        let now = Monotonic.now()
        guard now - blacklistCheckedAt >= 1 else { return false }
        blacklistCheckedAt = now
        blacklistMayHoldEntries = read { state in (try? state.hasBlacklistEntries()) ?? true } ?? false
        return blacklistMayHoldEntries
    }

    /// The blacklist entry in force for `url` (the blacklist is by URL, not key), if any.
    func activeBlacklistEntry(url: String) -> StateStore.BlacklistEntry? {
        let now = Timestamp.now().secondsSinceEpoch
        let (ttl, client) = (blacklistTTL, clientFingerprint)
        return read { state in try? state.blacklistEntry(forURL: url, now: now, ttl: ttl, client: client) }
    }
}
