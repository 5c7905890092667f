/// A host's circuit breaker (docs/usage.md, "How many transfers"): after `threshold` rounds of
/// connection failures or timeouts in a row, with no response from the host between them, or
/// `busyThreshold` rounds of `429`/`503` answers in a row, with no other answer between them,
/// the host is unavailable for the rest of the run, and its waiting URLs end at once
/// (`host-unavailable`) instead of each waiting out its own timeouts and retries.
///
/// It counts observations, not transfers. A failure counts only if its request started after
/// the previous counted failure ended (a *round*): the six URLs at the head of a list that hang
/// until `--timeout` went out together and time out together, and say once, not six times, that
/// the host did not answer in time; the requests sent after that say whether it still does not.
/// The same holds for busy answers. Under `--concurrency auto` a round is at most the host's
/// limit of requests, which halves with each: 6, 3, then one at a time.
///
/// Nor does a failure count when its request started before the host's latest response: when a
/// server restarts and drops the 30 requests it was serving, those 30 started before the
/// responses that came just before, and say nothing about the server since; the retries that
/// follow do.
struct HostBreaker: Sendable {
    /// Why the breaker opened.
    enum Trip: Sendable, Equatable {
        /// Rounds of connection failures or timeouts, and what the last one said.
        case connections(rounds: Int, last: String)
        /// Rounds of busy answers, and the last one's status.
        case busy(rounds: Int, status: Int)

        /// In words, after "<host> is unavailable: ".
        var reason: String {
            switch self {
            case .connections(let rounds, let last):
                "its connections failed or timed out in \(rounds) rounds in a row, with no answer between (the last: \(last))"
            case .busy(let rounds, let status):
                "it answered only 429 or 503 (busy) in \(rounds) rounds in a row (the last: HTTP \(status))"
            }
        }
    }

    /// Rounds of one kind of bad news in a row.
    private struct Streak: Sendable {
        var rounds = 0
        /// Monotonic time the latest counted one ended.
        var countedEnd = -Double.infinity
        /// Monotonic time of the latest news that ended the streak.
        var goodNews = -Double.infinity

        /// Bad news of a request started at `startedAt`, at `now`: true when it counts, i.e. the
        /// request started after the latest good news and after the previous counted bad news.
        mutating func count(startedAt: Double, now: Double) -> Bool {
            guard startedAt >= max(goodNews, countedEnd) else { return false }
            rounds += 1
            countedEnd = now
            return true
        }

        mutating func reset(now: Double) {
            rounds = 0
            goodNews = now
        }
    }

    let threshold: Int
    let busyThreshold: Int
    private var failures = Streak()
    private var busy = Streak()
    private(set) var trip: Trip?
    var isOpen: Bool { trip != nil }

    init(
        threshold: Int = SlotPolicy.Configuration.breakerThreshold,
        busyThreshold: Int = SlotPolicy.Configuration.busyBreakerThreshold
    ) {
        self.threshold = max(1, threshold)
        self.busyThreshold = max(1, busyThreshold)
    }

    /// Rounds of connection failures in a row so far.
    var failureRounds: Int { failures.rounds }
    /// Rounds of busy answers in a row so far.
    var busyRounds: Int { busy.rounds }

    /// The host answered `status` at `now` to a request started at `startedAt`: it is
    /// reachable; a `429` or `503` is busy news, any other status ends a busy streak. True when
    /// this opens the breaker (once).
    mutating func responded(status: Int, startedAt: Double, now: Double) -> Bool {
        guard !isOpen else { return false }
        failures.reset(now: now)
        guard status == 429 || status == 503 else {
            busy.reset(now: now)
            return false
        }
        guard busy.count(startedAt: startedAt, now: now), busy.rounds >= busyThreshold else { return false }
        trip = .busy(rounds: busy.rounds, status: status)
        return true
    }

    /// A connection to the host failed or timed out at `now`, for a request started at
    /// `startedAt`; true when this opens the breaker (once).
    mutating func connectionFailed(startedAt: Double, now: Double, message: String) -> Bool {
        guard !isOpen, failures.count(startedAt: startedAt, now: now), failures.rounds >= threshold else {
            return false
        }
        trip = .connections(rounds: failures.rounds, last: message)
        return true
    }
}
