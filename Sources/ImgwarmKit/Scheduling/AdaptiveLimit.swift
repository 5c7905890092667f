/// One host's concurrency limit under `--concurrency auto`, learnt from the latency and the
/// completed-request rate its responses show (docs/usage.md, "How many transfers").
///
/// The algorithm is TCP Vegas (Brakmo and Peterson, 1994) applied to requests, as Netflix's
/// concurrency-limits does in its `VegasLimit`, with Gradient2's multiplicative shrink and the
/// rate check of BBR's "full pipe" test:
///
/// * Vegas, because its signal is the one a server gives before it refuses anything: requests
///   queue there, so latency rises above the lowest seen while the rate stays flat. AIMD alone
///   only learns from failures (429, resets), i.e. after the server is already overloaded;
///   Gradient2 compares a short latency average with a long one, which drifts with the load it
///   is meant to judge (a limit that stays too high raises the long average too).
/// * Measured once per *round* (as Vegas once per round trip): completions of requests sent
///   since the round began (one sent before waited behind the previous limit's queue), half the
///   limit of them (and `minimumRoundCompletions`), over at least `minimumRoundSeconds`. Half,
///   because right after a doubling only the new half can be sent at once: waiting for the
///   whole limit's worth would take two round trips per doubling, not one. A round begins a
///   quarter of the base latency before the previous one ended (a decrease starts it afresh):
///   the answers that ended a round sent their successors a moment before its last one came,
///   and leaving those out cost a round trip per doubling (40 ms away over HTTP/1.1, 64 came
///   at 470 ms, now at 365 ms).
/// * An answer on a connection its request opened counts towards the round, but not its
///   latency: a 27 KB body takes two round trips on a new connection (TCP's initial window),
///   which Vegas would read as a queue. Over HTTP/1.1 every growth opens connections; leaving
///   their answers out of the count as well made a round wait for the old connections alone,
///   and a round trip more whenever one of them lagged. A round needs 2 latencies at least.
/// * Vegas's estimate of the requests queued at the server: `q = L × (1 − base / latency)`, with
///   L the transfers the round kept in flight, latency the round's mean (its slowest tenth left
///   out: an image list mixes 20 KB thumbnails with 2 MB photos, whose transfer times are
///   outliers, not load) and base the lowest round's lower quartile: the requests a server
///   answered without queueing, even in a round where others queued (a server that serves 4 at
///   a time answers 4 of 6 at once). Not the median: in such a round most requests do not wait,
///   and the median would not show the queue at all.
/// * `q < α` (and the round's mean within `latencySlack` seconds of the base counts as 0: this
///   machine's own delays): the limit grows, doubling while nothing has said stop (slow
///   start), then by an eighth (at least 1). It grows only when the round used its limit (a host
///   the run cannot keep busy gains nothing from more) and only while growing raises the
///   completed-request rate: 3 rounds of growth without a quarter more rate (BBR's test of a
///   full pipe: the bottleneck is the link or this machine) hold the limit for
///   `probeAfterRounds` rounds before it probes again. A round with answers on new connections
///   does not count towards the 3: the growth is still connecting (as BBR does not count
///   rounds its sender could not fill).
/// * `q > β`: latency rises with load; the limit shrinks multiplicatively, to `L × base / latency
///   + α` (Gradient2's gradient: what the host serves without queueing, and a little), by half
///   at most and a tenth at least.
/// * α = max(1, L / 10), β = max(3, L / 4): Vegas's 1 and 3 queued requests (TCP Vegas uses 2
///   and 4 packets) while the limit is small; a tenth and a quarter of it when it is large,
///   where a request's latency varies more than one queued request adds (Netflix scales them
///   with log10 L for the same reason).
/// * The first round only measures (with nothing to compare it with, a round whose requests
///   already queued would set the base).
/// * An overload signal (429, 503, a reset or a timeout) halves the limit at once, once per
///   round: the requests already in flight when it was halved cannot halve it again (as TCP
///   halves its window once per window of losses).
///
/// Against a server that serves K requests at a time with a fixed service time, K + n in flight
/// queue n: the limit settles at K + 1 or K + 2 (the unit tests simulate K = 4: 5 to 7). Against
/// a link 40 ms away that serves everything, latency stays flat and the limit doubles each round
/// up to the ceiling. A value type without clocks of its own: every call says what time it is,
/// so the unit tests drive it without HTTP (`AdaptiveLimitTests`).
struct AdaptiveLimit: Sendable {
    struct Parameters: Sendable {
        /// The first limit: SDWebImage's `maxConcurrentDownloads`. `6` by default.
        var initial = 6.0
        /// The most it may grow to (`--max-per-host`, or the HTTP/2 stream ceiling).
        var ceiling = 64.0
        /// Latency differences below this many seconds count as noise, not queueing: on a link
        /// a millisecond away, this machine's own event loop, busy with validation on 2 cores,
        /// delays answers by a few milliseconds; at 2 ms the limit shrank to 2 on loopback and
        /// 2,000 images over HTTP/2 took 40 % longer than with 200 streams, at 5 ms as long
        /// (docs/performance.md, "Adaptive concurrency"). `0.005` by default.
        var latencySlack = 0.005
        /// The shortest round, in seconds, so that a rate is measured over more than timer
        /// noise. `0.02` by default.
        var minimumRoundSeconds = 0.02
        /// Completions a round needs at least (a limit of 1 or 2 measures over more requests).
        /// `4` by default.
        var minimumRoundCompletions = 4
        /// Rounds a limit holds after a growth that bought no rate, before it probes again.
        /// `4` by default.
        var probeAfterRounds = 4
    }

    /// Why the limit changed.
    enum Cause: String, Sendable, Equatable {
        /// Latency stayed near the lowest seen while the rate grew.
        case grew = "latency steady"
        /// Latency rose with load: requests queued at the server.
        case latency = "latency rising with load"
        /// The server answered 429 or 503.
        case overloaded = "the server said it is busy"
        /// A connection was reset or lost, or a transfer timed out.
        case connection = "a connection failed or timed out"
        /// The host answered over HTTP/2: its streams start at one connection's worth.
        case multiplexes = "the host multiplexes (HTTP/2)"
    }

    var parameters: Parameters
    /// The limit, fractional between steps; transfers allowed are its whole part (at least 1).
    private(set) var limit: Double
    /// The highest whole limit reached.
    private(set) var peak: Int
    /// The lowest lower quartile of a round's latencies seen, in seconds.
    private(set) var baseline: Double?
    private var slowStart = true
    private var round = Round()
    /// BBR's "full pipe" test: the best round rate since the rate last grew by a quarter, and the
    /// rounds of growth since then.
    private var bestRate = 0.0
    private var flatRounds = 0
    private var holdRounds = 0
    /// The limit started multiplexing before any answer (the handshake said so): the first
    /// latency heard is the baseline, as the answer's would have been.
    private var baselineFromFirstAnswer = false
    /// Monotonic time of the latest decrease: an overload of a request started before it was
    /// already answered by it.
    private var decreasedAt = -Double.infinity

    private struct Round {
        var start: Double?
        /// Completions of requests sent during the round, on new connections too.
        var completions = 0
        /// Their latencies, on connections that were open before (a new connection's TCP slow
        /// start is not the server's queue).
        var latencies: [Double] = []
        /// Some of its completions opened their connection: the limit's last growth is still
        /// connecting, so a flat rate says nothing yet of a full pipe.
        var connecting = false
        /// The most transfers in flight at once during the round.
        var busiest = 0
        /// When its first counted request completed: the rate is measured between completions,
        /// not from the round's start (which would count one latency as idle time).
        var firstCompletion: Double?
    }

    init(_ parameters: Parameters = Parameters()) {
        self.parameters = parameters
        limit = min(parameters.initial, parameters.ceiling)
        peak = max(1, Int(limit))
    }

    /// How many transfers may be in flight now.
    var allowed: Int { max(1, Int(limit)) }

    /// The host multiplexes (HTTP/2): its streams share one connection's congestion window, so
    /// latency rises with every stream added once that window is the bottleneck (TCP's own queue,
    /// which TCP already governs), while the rate still grows until the link is full. Its limit
    /// grows while fewer than β requests queue (not α) and the rate grows.
    var multiplexed = false

    /// Raises (or lowers) the ceiling: a host found to multiplex may run more streams than an
    /// HTTP/1.1 host connections.
    mutating func setCeiling(_ ceiling: Double) {
        parameters.ceiling = max(1, ceiling)
        limit = min(limit, parameters.ceiling)
    }

    /// The host has shown it multiplexes: the limit jumps to `streams` (within `ceiling`) at
    /// once rather than doubling there a round trip at a time, since one HTTP/2 connection
    /// already carries that many streams at no cost to the server's connection table. The round
    /// at the new limit only measures (it sets the baseline afresh: the few requests before it
    /// say nothing of latency under that load); from there the limit grows and backs off as any
    /// other. `latency`, the answer that showed it (nil when the TLS handshake showed it: then
    /// the first answer heard), is the baseline until a round measures a lower one: the round at the new limit cannot set it, since against a server that queues
    /// every one of its requests waits behind the others, and Vegas would take that queue for the
    /// base. Returns `.multiplexes` when the limit rose.
    mutating func startMultiplexing(streams: Double, ceiling: Double, latency: Double?, now: Double) -> Cause? {
        multiplexed = true
        setCeiling(ceiling)
        let start = min(streams, parameters.ceiling)
        guard start > limit else { return nil }
        limit = start
        peak = max(peak, allowed)
        if let latency {
            baseline = min(baseline ?? latency, max(0, latency))
        } else {
            baselineFromFirstAnswer = baseline == nil
        }
        round = Round(start: now)
        return .multiplexes
    }

    /// A transfer started at `now`; `inFlight` transfers of this host run, itself included.
    mutating func started(inFlight: Int, now: Double) {
        if round.start == nil { round.start = now }
        round.busiest = max(round.busiest, inFlight)
    }

    /// A response arrived `latency` seconds after its request went out, over a connection it
    /// opened when `freshConnection`; returns the new limit's cause when the round this
    /// completes changed it.
    mutating func completed(latency: Double, freshConnection: Bool = false, now: Double) -> Cause? {
        if baselineFromFirstAnswer {
            baselineFromFirstAnswer = false
            baseline = max(0, latency)
        }
        if round.start == nil { round.start = now - latency }
        // Only requests sent during the round measure it (Vegas times the packets of the current
        // window): one sent before waited behind the previous limit's queue.
        guard now - latency >= round.start! - 1e-9 else { return nil }
        round.completions += 1
        if freshConnection {
            round.connecting = true
        } else {
            round.latencies.append(max(0, latency))
        }
        if round.firstCompletion == nil { round.firstCompletion = now }
        let needed = max((allowed + 1) / 2, parameters.minimumRoundCompletions)
        guard let start = round.start, round.completions >= needed, round.latencies.count >= 2,
            now - start >= parameters.minimumRoundSeconds
        else { return nil }
        return endRound(now: now, start: start)
    }

    /// The server said it is busy, or a connection failed, for a request started at
    /// `startedAt`: the limit halves, unless a decrease already answered that request.
    mutating func overloaded(_ cause: Cause, startedAt: Double, now: Double) -> Cause? {
        guard startedAt >= decreasedAt else { return nil }
        let before = limit
        decrease(to: limit / 2, now: now)
        return limit < before ? cause : nil
    }

    private mutating func endRound(now: Double, start: Double) -> Cause? {
        let finished = round
        let sorted = finished.latencies.sorted()
        let kept = sorted.prefix(sorted.count - sorted.count / 10)
        let mean = kept.reduce(0, +) / Double(kept.count)
        let quartile = sorted[(sorted.count - 1) / 4]
        let rate = Double(finished.completions - 1) / max(now - (finished.firstCompletion ?? start), 1e-6)
        // The next round counts the requests sent in the last quarter of a latency, not only
        // from now: the completions that ended this round sent their successors a moment before
        // it ended, and leaving those out would make the next round wait a whole round trip more.
        // (A decrease starts its round afresh.)
        round = Round(start: now - min(quartile, baseline ?? quartile) / 4)
        guard let previous = baseline else {
            baseline = quartile
            return nil
        }
        let base = min(previous, quartile)
        baseline = base
        let p = parameters
        let used = Double(min(allowed, finished.busiest))
        let queued = mean - base <= p.latencySlack || mean <= 0 ? 0 : used * (1 - base / mean)
        let alpha = max(1, limit / 10)
        let beta = max(3, limit / 4)
        // A multiplexing host's streams share one connection's congestion window: while TCP opens
        // it, latency rises with the streams and so does the rate; a server's own queue raises
        // latency at a flat rate. A round whose rate grew by a quarter holds the limit.
        if queued > beta && multiplexed && rate >= bestRate * 1.25 {
            bestRate = rate
            return nil
        }
        if queued > beta {
            let target = limit * base / mean + alpha
            decrease(to: min(limit * 0.9, max(limit / 2, target)), now: now)
            return .latency
        }
        // A host the run could not keep busy tells nothing about more: hold.
        guard queued < (multiplexed ? beta : alpha), finished.busiest >= allowed, limit < p.ceiling else {
            return nil
        }
        if holdRounds > 0 {
            holdRounds -= 1
            return nil
        }
        // Growth pays while the rate grows: by a quarter within 3 rounds of growing, as BBR
        // judges its pipe full. One round is not enough to judge: the connections a growth
        // opens take a round trip to connect before their first request.
        if rate >= bestRate * 1.25 {
            bestRate = rate
            flatRounds = 0
        } else if !finished.connecting {
            flatRounds += 1
            if flatRounds >= 3 {
                slowStart = false
                flatRounds = 0
                bestRate = rate
                holdRounds = p.probeAfterRounds
                return nil
            }
        }
        let grown = slowStart ? limit * 2 : limit + max(1, limit / 8)
        limit = min(p.ceiling, grown)
        peak = max(peak, allowed)
        return .grew
    }

    private mutating func decrease(to value: Double, now: Double) {
        limit = max(1, value)
        slowStart = false
        bestRate = 0
        flatRounds = 0
        holdRounds = 0
        decreasedAt = now
        round = Round(start: now)
    }
}
