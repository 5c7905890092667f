import Testing

@testable import ImgwarmKit

/// Issue 37: a host known to multiplex (its handshake agreed on HTTP/2, or its first answer came
/// over HTTP/2) starts at two connections' streams at once, backs off on the same signals as any
/// host, and never has more streams in flight than the connections open now carry (and the next
/// one); HTTP/1.1 hosts keep the ramp from 6. Simulated hosts, no HTTP, no clocks.
@Suite struct MultiplexedStartTests {
    typealias Completion = SlotPolicy.Completion

    static func answer(multiplexed: Bool, connections: Int? = nil, at start: Double = 0) -> Completion {
        var completion = Completion(kind: .response(status: 200), latency: 0.04, startedAt: start)
        completion.multiplexed = multiplexed
        completion.multiplexedConnections = connections
        return completion
    }

    /// Starts transfers to `host` while it has room (300 at most); returns how many started.
    static func startWhileRoom(_ policy: SlotPolicy, _ host: String, now: Double = 0) -> Int {
        var count = 0
        while count < 300 && policy.hasRoom(validating: 0) && policy.hostHasRoom(host, now: now) {
            policy.started(host, now: now)
            count += 1
        }
        return count
    }

    static let multiplexes = "the host multiplexes (HTTP/2)"

    /// The limit jumps to 200 at once; the first connection carries 100 of them and the transfer
    /// past them opens the second, whose first answer lets the rest go (what `--concurrency 200`
    /// does), not a round trip or three later.
    @Test func aHostThatAnswersOverHTTP2StartsAtTwoConnectionsStreams() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        #expect(Self.startWhileRoom(policy, "https://a") == 6)
        let events = policy.finished("https://a", Self.answer(multiplexed: true, connections: 1), now: 0.04)
        #expect(
            events == [.limitChanged(HostLimitChange(host: "https://a", from: 6, to: 200, cause: Self.multiplexes))])
        #expect(Self.startWhileRoom(policy, "https://a", now: 0.04) == 96, "101 in flight: 5 and 96 more")
        #expect(policy.figures.first?.peakLimit == 200)
        var second = Self.answer(multiplexed: true, connections: 2)
        second.freshConnection = true
        _ = policy.finished("https://a", second, now: 0.16)
        #expect(Self.startWhileRoom(policy, "https://a", now: 0.16) == 100, "200 in flight on two connections")
    }

    /// The TLS handshake's ALPN says `h2` a round trip before the first answer: the host starts
    /// then, and its first answer changes nothing more.
    @Test func aHandshakeThatAgreedOnHTTP2StartsTheHostBeforeItsFirstAnswer() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        #expect(Self.startWhileRoom(policy, "https://a") == 6)
        #expect(policy.multiplexingShown("https://unknown", now: 0.02).isEmpty, "a host never started: nothing")
        let events = policy.multiplexingShown("https://a", now: 0.02)
        #expect(
            events == [.limitChanged(HostLimitChange(host: "https://a", from: 6, to: 200, cause: Self.multiplexes))])
        #expect(policy.figures.first?.multiplexes == true)
        #expect(Self.startWhileRoom(policy, "https://a", now: 0.02) == 95, "101 in flight before any answer")
        #expect(policy.multiplexingShown("https://a", now: 0.03).isEmpty, "heard once")
        let answered = policy.finished("https://a", Self.answer(multiplexed: true, connections: 1), now: 0.06)
        #expect(answered.isEmpty)
        #expect(Self.startWhileRoom(policy, "https://a", now: 0.06) == 1, "still 101: one connection")

        var configuration = SlotPolicy.Configuration()
        configuration.concurrency = .fixed(200)
        let fixed = SlotPolicy(configuration)
        #expect(Self.startWhileRoom(fixed, "https://b") == 100)
        #expect(fixed.multiplexingShown("https://b", now: 0.02).isEmpty, "a number has no limit to tell of")
        #expect(Self.startWhileRoom(fixed, "https://b") == 1, "the transfer that opens the second connection")
    }

    /// Started by the handshake, the limit takes the first answer's latency as its baseline (the
    /// answer that would have started it), so a server that queues still brings it down.
    @Test func aStartWithoutAnAnswerTakesTheFirstLatencyAsItsBaseline() {
        var limit = AdaptiveLimit()
        #expect(limit.startMultiplexing(streams: 200, ceiling: 200, latency: nil, now: 0) == .multiplexes)
        #expect(limit.baseline == nil)
        _ = limit.completed(latency: 0.09, now: 0.09)
        #expect(limit.baseline == 0.09)
        let run = AdaptiveLimitTests.simulate(capacity: 4, service: 0.05, rtt: 0.04, count: 2000, limit: limit)
        let late = run.allowed.suffix(500)
        #expect(late.allSatisfy { $0 <= 16 }, "\(Array(late.prefix(80)))")
    }

    @Test func anHTTP1HostKeepsTheRampFromSix() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        #expect(Self.startWhileRoom(policy, "https://a") == 6)
        let events = policy.finished("https://a", Self.answer(multiplexed: false), now: 0.04)
        #expect(events.isEmpty)
        #expect(Self.startWhileRoom(policy, "https://a", now: 0.04) == 1, "6 in flight, as before")
        #expect(policy.figures.first?.multiplexes == false)
    }

    @Test func aBusyAnswerHalvesTheStart() {
        let policy = SlotPolicy(SlotPolicy.Configuration())
        policy.started("https://a", now: 0)
        _ = policy.finished("https://a", Self.answer(multiplexed: true, connections: 1), now: 0.04)
        _ = Self.startWhileRoom(policy, "https://a", now: 0.05)
        var busy = Completion(kind: .response(status: 503), startedAt: 0.05)
        busy.multiplexed = true
        busy.multiplexedConnections = 1
        let events = policy.finished("https://a", busy, now: 0.09)
        #expect(
            events == [
                .limitChanged(
                    HostLimitChange(host: "https://a", from: 200, to: 100, cause: "the server said it is busy"))
            ])
    }

    /// Against a server that serves 4 at a time, the start of 200 streams comes down to what the
    /// server serves, as any host's limit does when latency rises with load.
    @Test func aMultiplexingServerThatQueuesBringsTheStartDown() {
        var limit = AdaptiveLimit()
        // The answer that showed it came after a round trip and one service time.
        #expect(
            limit.startMultiplexing(
                streams: Double(SlotPolicy.Configuration.multiplexedStart), ceiling: 200, latency: 0.09, now: 0)
                == .multiplexes)
        #expect(limit.allowed == 200)
        let run = AdaptiveLimitTests.simulate(capacity: 4, service: 0.05, rtt: 0.04, count: 2000, limit: limit)
        let late = run.allowed.suffix(500)
        #expect(late.allSatisfy { $0 <= 16 }, "\(Array(late.prefix(80)))")
    }

    /// Against a link that serves everything, latency stays flat: the start, the ceiling, holds.
    @Test func aMultiplexingServerThatServesEverythingKeepsItsStart() {
        var limit = AdaptiveLimit()
        _ = limit.startMultiplexing(streams: 200, ceiling: 200, latency: 0.042, now: 0)
        let run = AdaptiveLimitTests.simulate(capacity: nil, service: 0.002, rtt: 0.04, count: 4000, limit: limit)
        #expect(run.allowed.allSatisfy { $0 == 200 }, "\(run.allowed.min() ?? 0)")
    }

    @Test func aLowerLimitIsNotRaisedAndTheStartStaysWithinTheCeiling() {
        var limit = AdaptiveLimit()
        #expect(limit.startMultiplexing(streams: 100, ceiling: 50, latency: nil, now: 0) == .multiplexes)
        #expect(limit.allowed == 50)
        #expect(limit.startMultiplexing(streams: 30, ceiling: 50, latency: nil, now: 1) == nil)
        #expect(limit.allowed == 50)
    }

    /// `--concurrency 200`: an https host gets one connection's streams until its first answer
    /// says whether it multiplexes (libcurl would open a connection for each transfer past them),
    /// then one connection's more for each connection that carries streams; an HTTP/1.1 host
    /// all 200, as before.
    @Test func aNumberIsCappedByTheConnectionsThatCarryStreams() {
        var configuration = SlotPolicy.Configuration()
        configuration.concurrency = .fixed(200)
        let policy = SlotPolicy(configuration)
        #expect(Self.startWhileRoom(policy, "https://a") == 100)
        _ = policy.finished("https://a", Self.answer(multiplexed: true, connections: 1), now: 0.04)
        #expect(Self.startWhileRoom(policy, "https://a") == 2, "101: one connection's streams and the next")
        _ = policy.finished("https://a", Self.answer(multiplexed: true, connections: 2), now: 0.08)
        #expect(Self.startWhileRoom(policy, "https://a") == 100, "200 in all: the number")

        let plain = SlotPolicy(configuration)
        #expect(Self.startWhileRoom(plain, "http://b") == 200, "plain http never multiplexes")
        let http1 = SlotPolicy(configuration)
        #expect(Self.startWhileRoom(http1, "https://c") == 100)
        _ = http1.finished("https://c", Self.answer(multiplexed: false), now: 0.04)
        #expect(Self.startWhileRoom(http1, "https://c") == 101, "an HTTP/1.1 answer lifts the cap")
    }

    /// A server that closes a connection after so many requests (nginx's keepalive_requests)
    /// leaves one connection fewer: the streams past it wait again.
    @Test func aClosedConnectionNoLongerCarriesStreams() {
        var configuration = SlotPolicy.Configuration()
        configuration.concurrency = .fixed(200)
        let policy = SlotPolicy(configuration)
        policy.started("https://a", now: 0)
        _ = policy.finished("https://a", Self.answer(multiplexed: true, connections: 2), now: 0.04)
        #expect(Self.startWhileRoom(policy, "https://a") == 200)
        for _ in 0..<100 {
            _ = policy.finished("https://a", Self.answer(multiplexed: true, connections: 1), now: 0.08)
        }
        #expect(Self.startWhileRoom(policy, "https://a") == 1, "100 in flight: 101 on one connection")
    }
}
