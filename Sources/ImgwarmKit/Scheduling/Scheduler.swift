/// Decides which URL starts next: higher priority first; within a priority first-in-first-out
/// (or last-in-first-out); retries once their back-off delay has passed. Its `SlotPolicy` says
/// whether a transfer may start at all and whether a URL's host has room; a URL whose host has
/// none waits in `HostSlots`, and the next URL of another host goes first.
final class Scheduler {
    private let spools: [EntrySpool]  // indexed by Priority.rank
    /// Retries waiting for their time, kept sorted by due time.
    private var delayed: [(due: Double, entry: PendingEntry)] = []
    /// Who may start; nil in a dry run, where nothing does and every URL is handed out in order.
    let policy: SlotPolicy?
    private let waiting = HostSlots()

    init(spools: [EntrySpool], policy: SlotPolicy? = nil) {
        self.spools = spools
        self.policy = policy
    }

    /// URLs not yet started, retries and URLs waiting for their host included.
    var pendingCount: Int { spools.reduce(0) { $0 + $1.remaining } + delayed.count + waiting.waitingCount }

    var isEmpty: Bool { pendingCount == 0 }

    /// When the earliest waiting retry becomes due, if any.
    var nextRetryDue: Double? { delayed.first?.due }

    /// When the next thing that waits for time is due: a retry, or a URL of a paced host
    /// (`--max-rate-per-host`).
    func nextDue(now: Double) -> Double? {
        var due = delayed.first?.due
        if let policy, policy.configuration.maxRatePerHost > 0 {
            for key in waiting.hostsWaiting {
                if let start = policy.pacedStart(key, now: now) { due = min(due ?? start, start) }
            }
        }
        return due
    }

    /// The next URL to start at monotonic time `now`, or nil when nothing may start now
    /// (`validating` bodies wait in memory for validation). `needsTransfer` is asked only of a
    /// URL whose host has no room: one that needs no transfer (a cache hit) goes ahead rather
    /// than wait for a slot it will not use. It may note what it learnt on the entry (its file
    /// name), which the entry keeps.
    func next(
        now: Double, validating: Int = 0, needsTransfer: (inout PendingEntry) -> Bool = { _ in true }
    ) -> PendingEntry? {
        guard let policy else { return nextInOrder(now: now) }
        guard policy.hasRoom(validating: validating) else { return nil }
        if let ready = waiting.nextReady(hasRoom: { policy.hostHasRoom($0, now: now) }) { return ready }
        while waiting.waitingCount < HostSlots.waitingLimit, var entry = nextInOrder(now: now) {
            if entry.host.isEmpty { entry.host = HostSlots.key(entry.url) }
            if policy.hostHasRoom(entry.host, now: now) || !needsTransfer(&entry) { return entry }
            waiting.wait(entry)
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

    /// A transfer of `entry` started at `now`.
    func started(_ entry: PendingEntry, now: Double) {
        policy?.started(HostSlots.key(of: entry), now: now)
    }

    /// `host`'s connection agreed on HTTP/2 in its handshake at `now`, before any answer.
    func multiplexingShown(_ host: String, now: Double) -> [SlotPolicy.Event] {
        policy?.multiplexingShown(host, now: now) ?? []
    }

    /// A transfer of `entry` ended at `now`; returns what the run should hear. When its host
    /// turns out unavailable, the host's retries waiting for their time become due at once
    /// (they end without a request: `SlotPolicy.unavailability`).
    func finished(_ entry: PendingEntry, _ completion: SlotPolicy.Completion, now: Double) -> [SlotPolicy.Event] {
        guard let policy else { return [] }
        let key = HostSlots.key(of: entry)
        let events = policy.finished(key, completion, now: now)
        if events.contains(where: { if case .unavailable = $0 { true } else { false } }) {
            let (hers, others) = (
                delayed.filter { HostSlots.key(of: $0.entry) == key },
                delayed.filter { HostSlots.key(of: $0.entry) != key }
            )
            delayed = (hers.map { (now, $0.entry) } + others).sorted { $0.due < $1.due }
        }
        return events
    }

    /// Hands every URL that has not started to `body` — retries waiting for their time, URLs
    /// waiting for their host, then the lists' queued URLs in order — and keeps none.
    func drain(_ body: (PendingEntry) -> Void) {
        for item in delayed { body(item.entry) }
        delayed.removeAll()
        while let entry = waiting.takeAnyWaiting() { body(entry) }
        for spool in spools {
            while let entry = spool.next() { body(entry) }
        }
    }
}
