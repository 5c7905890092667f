/// A host's circuit breaker (docs/usage.md, "How many transfers"): after `threshold` connection
/// failures or timeouts in a row, with no response from the host between them, the host is
/// unavailable for the rest of the run, and its waiting URLs end at once (`host-unavailable`)
/// instead of each waiting out its own timeouts and retries.
///
/// "In a row" counts only attempts started after the host's latest response: when a server
/// restarts and drops the 30 requests it was serving, those 30 started before the responses
/// that came just before, and say nothing about the server since; the retries that follow do.
struct HostBreaker: Sendable {
    let threshold: Int
    private(set) var failuresInARow = 0
    /// Monotonic time of the host's latest response (any HTTP status).
    private var lastResponse = -Double.infinity
    /// What the latest counted failure said.
    private(set) var lastFailure = ""
    private(set) var isOpen = false

    init(threshold: Int = SlotPolicy.Configuration.breakerThreshold) {
        self.threshold = max(1, threshold)
    }

    /// The host answered (whatever the status) a request: it is reachable.
    mutating func responded(now: Double) {
        guard !isOpen else { return }
        failuresInARow = 0
        lastResponse = now
    }

    /// A connection to the host failed or timed out for a request started at `startedAt`;
    /// true when this opens the breaker (once).
    mutating func connectionFailed(startedAt: Double, message: String) -> Bool {
        guard !isOpen, startedAt >= lastResponse else { return false }
        failuresInARow += 1
        lastFailure = message
        if failuresInARow >= threshold {
            isOpen = true
            return true
        }
        return false
    }
}
