import Testing

@testable import ImgwarmKit

/// A host's circuit breaker counts rounds, not transfers (issue 31): failures in flight together
/// are one observation; rounds of failures, or of busy answers, in a row open it; an answer in
/// between ends the streak. Simulated times only.
@Suite struct HostBreakerTests {
    /// Six requests that went out together and timed out together, 3 s later, are one round.
    @Test func overlappingFailuresCountOnce() {
        var breaker = HostBreaker()
        func fail(_ startedAt: Double, _ now: Double) -> Bool {
            breaker.connectionFailed(startedAt: startedAt, now: now, message: "timed out")
        }
        for i in 0..<6 { #expect(!fail(0, 3 + Double(i) * 0.001)) }
        #expect(breaker.failureRounds == 1)
        // Started while the first one was still hanging: the same round.
        #expect(!fail(2.9, 5.9))
        #expect(breaker.failureRounds == 1)
        #expect(!breaker.isOpen)
    }

    /// Five failures, each of a request started after the previous counted one ended, open it,
    /// once, saying how many rounds and what the last said.
    @Test func failuresInSeparateRoundsTrip() {
        var breaker = HostBreaker()
        var opened = 0
        for round in 0..<7 {
            let start = Double(round) * 3
            // Every round has company that overlaps it; only one of them counts.
            for _ in 0..<3 {
                if breaker.connectionFailed(startedAt: start, now: start + 3, message: "refused \(round)") {
                    opened += 1
                }
            }
        }
        #expect(opened == 1)
        #expect(breaker.isOpen)
        #expect(breaker.trip == .connections(rounds: 5, last: "refused 4"))
        #expect(breaker.trip?.reason.contains("5 rounds in a row") == true)
    }

    /// Any answer ends a streak of failures, and failures of requests that went out before it say
    /// nothing about the host since.
    @Test func aResponseBetweenFailuresKeepsTheHost() {
        var breaker = HostBreaker()
        func fail(_ startedAt: Double) -> Bool {
            breaker.connectionFailed(startedAt: startedAt, now: startedAt + 1, message: "reset")
        }
        for round in 0..<4 { #expect(fail(Double(round) * 2) == false) }
        #expect(breaker.failureRounds == 4)
        let opened = breaker.responded(status: 404, startedAt: 8, now: 8.5)
        #expect(!opened)
        #expect(breaker.failureRounds == 0)
        for _ in 0..<10 { #expect(fail(8.2) == false) }
        #expect(breaker.failureRounds == 0, "they went out before the answer")
        for round in 0..<4 { #expect(fail(10 + Double(round) * 2) == false) }
        #expect(fail(18) == true)
        #expect(breaker.isOpen)
        // A busy answer is an answer too.
        var other = HostBreaker()
        for round in 0..<4 {
            _ = other.connectionFailed(startedAt: Double(round) * 2, now: Double(round) * 2 + 1, message: "x")
        }
        let otherOpened = other.responded(status: 503, startedAt: 8, now: 8.1)
        #expect(!otherOpened)
        #expect(other.failureRounds == 0)
    }

    /// Ten rounds of 429 or 503, each started after the previous counted one came, open it;
    /// answers in flight together count once.
    @Test func throttledRoundsTripTheBusyBreaker() {
        var breaker = HostBreaker()
        var opened = 0
        for round in 0..<12 {
            let start = Double(round) * 0.01
            for status in [429, 503, 429] where breaker.responded(status: status, startedAt: start, now: start + 0.01) {
                opened += 1
            }
        }
        #expect(opened == 1)
        #expect(breaker.trip == .busy(rounds: 10, status: 429))
        #expect(breaker.trip?.reason.contains("429 or 503") == true)
        #expect(SlotPolicy.Configuration.busyBreakerThreshold == 10)
    }

    /// Any other answer ends a busy streak; a failed connection does not (it is no answer).
    @Test func aSuccessResetsTheBusyStreak() {
        var breaker = HostBreaker()
        var now = 0.0
        func busy() -> Bool {
            now += 1
            return breaker.responded(status: 429, startedAt: now - 0.5, now: now)
        }
        for _ in 0..<9 { #expect(!busy()) }
        let afterSuccess = breaker.responded(status: 200, startedAt: now + 0.1, now: now + 0.2)
        #expect(!afterSuccess)
        #expect(breaker.busyRounds == 0)
        for _ in 0..<9 { #expect(!busy()) }
        let afterFailure = breaker.connectionFailed(startedAt: now + 0.1, now: now + 0.3, message: "timed out")
        #expect(!afterFailure)
        #expect(breaker.busyRounds == 9)
        #expect(busy())
        #expect(breaker.trip == .busy(rounds: 10, status: 429))
    }
}
