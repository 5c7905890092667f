import Testing

@testable import ImgwarmKit

/// The adaptive limit without HTTP: a small simulation of a server 40 ms away (or on loopback)
/// that serves `capacity` requests at a time for `service` seconds each, first come first
/// served, while the client keeps `allowed` requests in flight.
@Suite struct AdaptiveLimitTests {
    struct Run {
        var limit: AdaptiveLimit
        /// `allowed` after each completion.
        var allowed: [Int] = []
        /// Seconds the whole run took.
        var duration = 0.0
    }

    static func simulate(
        capacity: Int?, service: Double, rtt: Double, count: Int, limit: AdaptiveLimit = AdaptiveLimit()
    ) -> Run {
        var run = Run(limit: limit)
        var slots = [Double](repeating: 0, count: capacity ?? 1)
        var inFlight: [(done: Double, sent: Double)] = []
        var sent = 0
        var now = 0.0
        while sent < count || !inFlight.isEmpty {
            while sent < count && inFlight.count < run.limit.allowed {
                let arrival = now + rtt / 2
                var start = arrival
                if capacity != nil {
                    let slot = slots.indices.min { slots[$0] < slots[$1] }!
                    start = max(arrival, slots[slot])
                    slots[slot] = start + service
                }
                inFlight.append((start + service + rtt / 2, now))
                sent += 1
                run.limit.started(inFlight: inFlight.count, now: now)
            }
            let next = inFlight.indices.min { inFlight[$0].done < inFlight[$1].done }!
            let request = inFlight.remove(at: next)
            now = request.done
            _ = run.limit.completed(latency: now - request.sent, now: now)
            run.allowed.append(run.limit.allowed)
        }
        run.duration = now
        return run
    }

    @Test func aServerOfFourSettlesBetweenFourAndEight() {
        let run = Self.simulate(capacity: 4, service: 0.05, rtt: 0, count: 2000)
        let warm = run.allowed.dropFirst(40)
        #expect(warm.allSatisfy { $0 <= 8 }, "\(Array(warm.prefix(80)))")
        #expect(run.limit.peak <= 8, "the peak, warm-up included: \(run.limit.peak): \(Array(run.allowed.prefix(60)))")
        // Within 1.1 times what exactly 4 in flight take (2000 × 50 ms / 4 = 25 s).
        #expect(run.duration <= 25 * 1.1, "\(run.duration) s; limits \(Array(warm.prefix(80)))")
    }

    @Test func aServerFortyMillisecondsAwayThatServesEverythingGetsTheCeiling() {
        let run = Self.simulate(capacity: nil, service: 0.002, rtt: 0.04, count: 2000)
        #expect(run.limit.peak == 64)
        #expect(run.limit.allowed == 64)
        // 6, then doubling a round at a time: 64 within the first 200 completions.
        #expect(run.allowed.prefix(200).contains(64), "\(Array(run.allowed.prefix(200)))")
        #expect(run.duration < 2.0, "\(run.duration) s")
    }

    @Test func theFirstRoundOnlyMeasures() {
        var limit = AdaptiveLimit()
        for i in 0..<6 { limit.started(inFlight: i + 1, now: 0) }
        for _ in 0..<6 { #expect(limit.completed(latency: 0.04, now: 0.04) == nil) }
        #expect(limit.allowed == 6)
        #expect(limit.baseline == 0.04)
    }

    /// A round's measurement ends with the completion that makes it whole; the requests the
    /// same batch of answers sent a moment earlier belong to the next round, which then ends one
    /// round trip later, not two.
    @Test func requestsSentAsTheRoundEndedCountInTheNext() {
        var limit = AdaptiveLimit()
        for i in 0..<6 { limit.started(inFlight: i + 1, now: 0) }
        // The baseline round: three answers at 46 ms send their successors at once, the fourth
        // (at 47 ms) ends the round.
        for _ in 0..<3 {
            #expect(limit.completed(latency: 0.046, now: 0.046) == nil)
            limit.started(inFlight: 6, now: 0.046)
        }
        #expect(limit.completed(latency: 0.047, now: 0.047) == nil)
        #expect(limit.baseline == 0.046)
        for _ in 0..<3 { limit.started(inFlight: 6, now: 0.047) }
        // Their answers: the three sent at 46 ms count too, and the fourth answer grows the limit.
        var causes: [AdaptiveLimit.Cause?] = []
        for _ in 0..<3 { causes.append(limit.completed(latency: 0.047, now: 0.093)) }
        causes.append(limit.completed(latency: 0.047, now: 0.094))
        #expect(causes.last == .grew, "\(causes)")
        #expect(limit.allowed == 12)
    }

    /// An answer on a connection the request opened counts towards its round, but its latency
    /// (the new connection's TCP slow start, two round trips for a 27 KB body) is not taken for
    /// a queue at the server.
    @Test func newConnectionsCountButTheirLatencyDoesNot() {
        var limit = AdaptiveLimit()
        for i in 0..<6 { limit.started(inFlight: i + 1, now: 0) }
        for _ in 0..<6 { _ = limit.completed(latency: 0.04, now: 0.04) }
        #expect(limit.baseline == 0.04)
        for _ in 0..<6 { limit.started(inFlight: 6, now: 0.04) }
        // Two answers on warm connections, then four on new ones, twice as slow.
        #expect(limit.completed(latency: 0.04, now: 0.08) == nil)
        #expect(limit.completed(latency: 0.04, now: 0.08) == nil)
        var cause: AdaptiveLimit.Cause?
        for _ in 0..<4 { cause = limit.completed(latency: 0.08, freshConnection: true, now: 0.12) ?? cause }
        #expect(cause == .grew)
        #expect(limit.allowed == 12)
        // Answers on new connections alone end no round: nothing measured the server's queue.
        for _ in 0..<12 { limit.started(inFlight: 12, now: 0.12) }
        for _ in 0..<12 { #expect(limit.completed(latency: 0.08, freshConnection: true, now: 0.2) == nil) }
        #expect(limit.allowed == 12)
    }

    @Test func overloadHalvesOncePerRound() {
        var limit = AdaptiveLimit()
        for i in 0..<6 { limit.started(inFlight: i + 1, now: 1) }
        #expect(limit.overloaded(.overloaded, startedAt: 1, now: 2) == .overloaded)
        #expect(limit.allowed == 3)
        // Another answer to a request sent before the halving: already answered.
        #expect(limit.overloaded(.overloaded, startedAt: 1.5, now: 2.1) == nil)
        #expect(limit.allowed == 3)
        // One sent after it halves again; never below 1.
        #expect(limit.overloaded(.connection, startedAt: 2.2, now: 3) == .connection)
        #expect(limit.overloaded(.connection, startedAt: 3.1, now: 4) == .connection)
        #expect(limit.overloaded(.connection, startedAt: 4.1, now: 5) == nil)
        #expect(limit.allowed == 1)
    }

    @Test func latencyRisingWithLoadShrinksIt() {
        var limit = AdaptiveLimit()
        var now = 0.0
        func round(_ latency: Double) -> AdaptiveLimit.Cause? {
            var cause: AdaptiveLimit.Cause?
            let n = limit.allowed
            for i in 0..<n { limit.started(inFlight: i + 1, now: now) }
            now += latency
            for _ in 0..<max(n, 4) { cause = limit.completed(latency: latency, now: now) ?? cause }
            return cause
        }
        #expect(round(0.1) == nil)  // the baseline
        #expect(round(0.1) == .grew)
        #expect(limit.allowed == 12)
        #expect(round(0.3) == .latency)
        #expect(limit.allowed == 6, "12 × max(0.5, 1.2 × 0.1 / 0.3)")
        #expect(round(0.1) == .grew)
        #expect(limit.allowed == 7, "after a decrease it grows by an eighth (at least 1), no more doubling")
    }

    @Test func aHostTheRunCannotKeepBusyDoesNotGrow() {
        var limit = AdaptiveLimit()
        var now = 0.0
        for _ in 0..<10 {
            limit.started(inFlight: 2, now: now)
            now += 0.05
            for _ in 0..<6 { _ = limit.completed(latency: 0.05, now: now) }
        }
        #expect(limit.allowed == 6)
    }

    @Test func growthThatBuysNoRateStopsAndHolds() {
        // The client, not the server, is the bottleneck: a completion every 10 ms whatever the
        // limit, at a flat latency. Three doublings bring no rate (6 → 48), then the limit holds
        // for 4 rounds before it probes again by an eighth.
        var limit = AdaptiveLimit()
        var now = 0.0
        var history: [Int] = []
        for _ in 0..<400 {
            limit.started(inFlight: limit.allowed, now: now)
            now += 0.01
            _ = limit.completed(latency: 0.03, now: now)
            history.append(limit.allowed)
        }
        #expect(history.prefix(140).allSatisfy { $0 <= 48 }, "\(history)")
        #expect(history.prefix(140).contains(48))
        // Against a server that keeps up (AdaptiveLimitTests' 40 ms one), 64 comes by the 71st.
        #expect((history.firstIndex(of: 64) ?? 400) > 140)
    }

    @Test func theCeilingBounds() {
        var parameters = AdaptiveLimit.Parameters()
        parameters.ceiling = 4
        var limit = AdaptiveLimit(parameters)
        #expect(limit.allowed == 4, "the start is within the ceiling")
        limit.setCeiling(200)
        let run = Self.simulate(capacity: nil, service: 0.001, rtt: 0.04, count: 4000, limit: limit)
        #expect(run.limit.allowed == 200)
    }
}
