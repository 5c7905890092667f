import Testing

@testable import ImgwarmKit

/// The one owner of who starts, without HTTP: limits per host or in all, the breaker, the
/// pacing, the events and figures the run reports.
@Suite struct SlotPolicyTests {
    typealias Completion = SlotPolicy.Completion

    static func ok(_ latency: Double, at start: Double) -> Completion {
        Completion(kind: .response(status: 200), latency: latency, startedAt: start)
    }

    @Test func autoStartsEachHostAtSix() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        for _ in 0..<6 {
            #expect(policy.hostHasRoom("http://a", now: 0))
            policy.started("http://a", now: 0)
        }
        #expect(!policy.hostHasRoom("http://a", now: 0))
        #expect(policy.hostHasRoom("http://b", now: 0), "another host has its own")
        #expect(policy.connectionsPerHost == 128)
        #expect(policy.maxInFlight == 256)
    }

    @Test func aNumberIsTheTotalWhateverTheHosts() {
        var configuration = SlotPolicy.Configuration()
        configuration.concurrency = .fixed(3)
        let policy = SlotPolicy(configuration)
        for _ in 0..<3 { policy.started("http://a", now: 0) }
        #expect(policy.hostHasRoom("http://a", now: 0), "no per-host limit")
        #expect(!policy.hasRoom(validating: 0))
        #expect(policy.connectionsPerHost == 0)
        #expect(policy.figures.first?.finalLimit == nil)
    }

    @Test func a429HalvesTheLimitAndSaysSo() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        for _ in 0..<6 { policy.started("http://a", now: 1) }
        let events = policy.finished(
            "http://a", Completion(kind: .response(status: 429), latency: nil, startedAt: 1), now: 2)
        #expect(
            events == [
                .limitChanged(HostLimitChange(host: "http://a", from: 6, to: 3, cause: "the server said it is busy"))
            ])
        #expect(policy.figures.first?.finalLimit == 3)
        #expect(policy.figures.first?.peakLimit == 6)
    }

    /// A host whose latency holds while its transfers are doubled grows 6 → 12 and says why in the
    /// words `--verbose` prints ("latency steady"): the simulated equivalent of the loopback test
    /// that asserted the line (issue 49: a busy machine changes the latency it measured).
    @Test func aHostThatKeepsUpGrowsAndSaysSo() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        var now = 0.0
        var events: [SlotPolicy.Event] = []
        for _ in 0..<4 where events.isEmpty {
            var started: [Double] = []
            while policy.hostHasRoom("http://a", now: now) && started.count < 64 {
                policy.started("http://a", now: now)
                started.append(now)
            }
            now += 0.1
            for start in started { events += policy.finished("http://a", Self.ok(0.1, at: start), now: now) }
        }
        #expect(
            events == [.limitChanged(HostLimitChange(host: "http://a", from: 6, to: 12, cause: "latency steady"))],
            "\(events)")
        #expect(policy.figures.first?.peakLimit == 12)
    }

    /// Rounds of failures (each of requests started after the previous round ended) make a host
    /// unavailable, once; the failures of one round count once.
    @Test func fiveRoundsOfConnectionFailuresMakeAHostUnavailableOnce() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        var unavailable = 0
        for round in 0..<7 {
            let start = Double(round)
            for _ in 0..<2 { policy.started("http://dead", now: start) }
            for _ in 0..<2 {
                let events = policy.finished(
                    "http://dead",
                    Completion(
                        kind: .connectionFailure(message: "refused", answered: false), latency: nil, startedAt: start),
                    now: start + 0.5)
                unavailable += events.filter { if case .unavailable = $0 { true } else { false } }.count
            }
        }
        #expect(unavailable == 1)
        #expect(policy.unavailability("http://dead") == .connections(rounds: 5, last: "refused"))
        #expect(policy.hostHasRoom("http://dead", now: 10), "its URLs go out, to be ended")
        #expect(policy.unavailability("http://other") == nil)
        #expect(policy.figures.first { $0.host == "http://dead" }?.unavailable == true)
    }

    /// Six URLs that hang at the head of a host's list time out together: one round, not five in
    /// a row; the host's answers that follow keep it available.
    @Test func aBatchOfHungURLsDoesNotTripTheBreaker() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        for _ in 0..<6 { policy.started("http://a", now: 0) }
        #expect(!policy.hostHasRoom("http://a", now: 0))
        for i in 0..<6 {
            let events = policy.finished(
                "http://a",
                Completion(
                    kind: .connectionFailure(message: "timed out", answered: false), latency: nil, startedAt: 0),
                now: 3 + Double(i) * 0.001)
            #expect(!events.contains { if case .unavailable = $0 { true } else { false } })
        }
        #expect(policy.unavailability("http://a") == nil)
        policy.started("http://a", now: 3.01)
        _ = policy.finished("http://a", Self.ok(0.01, at: 3.01), now: 3.02)
        #expect(policy.figures.first?.unavailable == false)
    }

    /// A host that refuses every connection, or answers every request at once with 429 or 503,
    /// is given up after 5 or 10 rounds: under auto its limit halves from 6 to 3 to 1, so that
    /// is 6 + 3 + 3 = 12 or 6 + 3 + 8 = 17 requests (docs/usage.md); under a number N every
    /// round holds N.
    @Test(arguments: [
        (SlotPolicy.Completion.Kind.connectionFailure(message: "refused", answered: false), 0, 12),
        (.response(status: 429), 0, 17),
        (.connectionFailure(message: "timed out", answered: false), 8, 40),
        (.response(status: 503), 8, 80),
    ])
    func aHostGivenUpCostsBoundedRequests(kind: SlotPolicy.Completion.Kind, fixed: Int, expected: Int) {
        var configuration = SlotPolicy.Configuration()
        if fixed > 0 { configuration.concurrency = .fixed(fixed) }
        let policy = SlotPolicy(configuration)
        var now = 0.0
        var requests = 0
        var opened: [SlotPolicy.Event] = []
        while opened.isEmpty && requests < 1000 {
            var started = 0
            while policy.hasRoom(validating: 0) && policy.hostHasRoom("http://h", now: now) && started < 100 {
                policy.started("http://h", now: now)
                started += 1
            }
            requests += started
            let sent = now
            for _ in 0..<started {
                now += 0.001
                opened += policy.finished("http://h", Completion(kind: kind, latency: nil, startedAt: sent), now: now)
                    .filter { if case .unavailable = $0 { true } else { false } }
            }
        }
        #expect(requests == expected)
        #expect(opened.count == 1)
    }

    @Test func maxRatePerHostSpacesTheStarts() {
        var configuration = SlotPolicy.Configuration()
        configuration.maxRatePerHost = 2
        let policy = SlotPolicy(configuration)
        #expect(policy.hostHasRoom("http://a", now: 10))
        policy.started("http://a", now: 10)
        #expect(!policy.hostHasRoom("http://a", now: 10.2))
        #expect(policy.pacedStart("http://a", now: 10.2) == 10.5)
        #expect(policy.hostHasRoom("http://b", now: 10.2))
        #expect(policy.hostHasRoom("http://a", now: 10.5))
        #expect(RequestPacer(perSecond: 0) == nil)
    }

    @Test func figuresCountRequestsAndTheMedianLatency() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        for (i, latency) in [0.010, 0.020, 0.100, 0.021, 0.019].enumerated() {
            policy.started("http://a", now: Double(i))
            _ = policy.finished("http://a", Self.ok(latency, at: Double(i)), now: Double(i) + latency)
        }
        let figures = try! #require(policy.figures.first)
        #expect(figures.requests == 5)
        let median = try! #require(figures.medianLatency)
        #expect(abs(median - 0.020) / 0.020 < 0.07, "\(median)")
    }

    @Test func aMultiplexingHostMayRunStreamsBeyondItsConnections() {
        var configuration = SlotPolicy.Configuration()
        configuration.maxPerHost = 4
        let policy = SlotPolicy(configuration)
        policy.started("https://a", now: 0)
        var completion = Self.ok(0.04, at: 0)
        completion.multiplexed = true
        _ = policy.finished("https://a", completion, now: 0.04)
        #expect(policy.figures.first?.multiplexes == true)
        // The limit may grow past 4 now: up to 200 streams.
        var now = 0.04
        for _ in 0..<20 {
            let n = policy.figures.first?.finalLimit ?? 1
            for _ in 0..<n { policy.started("https://a", now: now) }
            now += 0.04
            for _ in 0..<max(n, 4) { _ = policy.finished("https://a", completion, now: now) }
        }
        #expect((policy.figures.first?.finalLimit ?? 0) > 4)
    }

    /// Past what its known connections carry (100 streams each), a multiplexing host's streams
    /// start one at a time: libcurl would open a connection for each. Once that one's answer
    /// shows it opened a connection, the next 100 may go.
    @Test func streamsPastAFullConnectionWaitForTheOneThatOpensTheNext() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        var answer = Self.ok(0.04, at: 0)
        answer.multiplexed = true
        answer.freshConnection = true
        policy.started("https://a", now: 0)
        _ = policy.finished("https://a", answer, now: 0.04)
        answer.freshConnection = false
        var now = 0.04
        for _ in 0..<30 {
            let n = policy.figures.first?.finalLimit ?? 1
            for _ in 0..<n { policy.started("https://a", now: now) }
            now += 0.04
            for _ in 0..<n { _ = policy.finished("https://a", answer, now: now) }
        }
        #expect(policy.figures.first?.finalLimit == 200)
        func startWhileRoom() -> Int {
            var count = 0
            while count < 300 && policy.hostHasRoom("https://a", now: now) {
                policy.started("https://a", now: now)
                count += 1
            }
            return count
        }
        #expect(startWhileRoom() == 101, "one connection's 100 streams, and the one that opens the next")
        answer.freshConnection = true
        _ = policy.finished("https://a", answer, now: now + 0.08)
        #expect(startWhileRoom() == 100, "the limit of 200 now: 100 in flight, 100 more")
    }

    @Test func theHistogramsMedianIsWithinSixPercent() {
        for value in [0.0005, 0.0013, 0.04, 0.25, 3.7, 100.0] {
            var histogram = LatencyHistogram()
            for _ in 0..<3 { histogram.add(value) }
            histogram.add(value / 10)
            histogram.add(value * 10)
            let median = histogram.median!
            if value >= 0x1p-10 && value < 64 {
                #expect(abs(median - value) / value <= 0.0625, "\(value): \(median)")
            }
        }
        #expect(LatencyHistogram().median == nil)
    }

    @Test func memoryDoesNotGrowWithAMillionHosts() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        for i in 0..<(SlotPolicy.hostLimit + 500) {
            let host = "http://h\(i)"
            policy.started(host, now: 0)
            _ = policy.finished(host, Self.ok(0.01, at: 0), now: 0.01)
        }
        #expect(policy.figures.count <= SlotPolicy.hostLimit + 1)
    }
}
