/// Decides which URL starts next: higher priority first; within a priority first-in-first-out
/// (or last-in-first-out); retries once their back-off delay has passed. With `hosts`
/// (`--concurrency auto`), a URL whose host has no free slot waits there, and the next URL of
/// another host goes first.
final class Scheduler {
    private let spools: [EntrySpool]  // indexed by Priority.rank
    /// Retries waiting for their time, kept sorted by due time.
    private var delayed: [(due: Double, entry: PendingEntry)] = []
    let hosts: HostSlots?

    init(spools: [EntrySpool], hosts: HostSlots? = nil) {
        self.spools = spools
        self.hosts = hosts
    }

    /// URLs not yet started, retries and URLs waiting for their host included.
    var pendingCount: Int { spools.reduce(0) { $0 + $1.remaining } + delayed.count + (hosts?.waitingCount ?? 0) }

    var isEmpty: Bool { pendingCount == 0 }

    /// When the earliest waiting retry becomes due, if any.
    var nextRetryDue: Double? { delayed.first?.due }

    /// The next URL to start at monotonic time `now`, or nil when nothing is ready.
    /// `needsTransfer` is asked only of a URL whose host is full: one that needs no transfer (a
    /// cache hit) goes ahead rather than wait for a slot it will not use. It may note what it
    /// learnt on the entry (its file name), which the entry keeps.
    func next(now: Double, needsTransfer: (inout PendingEntry) -> Bool = { _ in true }) -> PendingEntry? {
        guard let hosts else { return nextInOrder(now: now) }
        if let ready = hosts.nextReady() { return ready }
        while hosts.waitingCount < HostSlots.waitingLimit, var entry = nextInOrder(now: now) {
            if entry.host.isEmpty { entry.host = HostSlots.key(entry.url) }
            if hosts.hasRoom(entry.host) || !needsTransfer(&entry) { return entry }
            hosts.wait(entry)
        }
        return nil
    }

    private func nextInOrder(now: Double) -> PendingEntry? {
        for rank in 0..<spools.count {
            // Due retries of a priority go before new URLs of the same priority.
            if let index = bestDueRetry(rank: rank, now: now) { return delayed.remove(at: index).entry }
            if let entry = spools[rank].next() { return entry }
        }
        return nil
    }

    private func bestDueRetry(rank: Int, now: Double) -> Int? {
        for (index, item) in delayed.enumerated() {
            if item.due > now { break }
            if item.entry.priority.rank == rank { return index }
        }
        return nil
    }

    /// Puts `entry` back to start again at monotonic time `due`.
    func retry(_ entry: PendingEntry, at due: Double) {
        let index = delayed.firstIndex { $0.due > due } ?? delayed.count
        delayed.insert((due, entry), at: index)
    }

    /// Hands every URL that has not started to `body` — retries waiting for their time, URLs
    /// waiting for their host, then the lists' queued URLs in order — and keeps none.
    func drain(_ body: (PendingEntry) -> Void) {
        for item in delayed { body(item.entry) }
        delayed.removeAll()
        while let entry = hosts?.takeAnyWaiting() { body(entry) }
        for spool in spools {
            while let entry = spool.next() { body(entry) }
        }
    }
}
