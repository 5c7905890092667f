/// `--max-rate-per-host N`: a host's requests start at most N a second, evenly spaced (a token
/// bucket of one: a server that asks for 2 a second gets one every half second, never a burst).
struct RequestPacer: Sendable {
    /// Seconds between two starts.
    let interval: Double
    /// Monotonic time the next request may start.
    private(set) var nextStart = -Double.infinity

    /// `perSecond` requests a second; nil when there is no limit (0 or less).
    init?(perSecond: Double) {
        guard perSecond > 0, perSecond.isFinite else { return nil }
        interval = 1 / perSecond
    }

    func mayStart(now: Double) -> Bool { now >= nextStart }

    /// A request started at `now`.
    mutating func started(now: Double) {
        nextStart = max(now, nextStart) + interval
        // Never earlier than one interval after this start, nor a debt from idle time.
        if nextStart < now + interval { nextStart = now + interval }
    }
}
