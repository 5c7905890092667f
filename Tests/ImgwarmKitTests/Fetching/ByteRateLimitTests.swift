import Testing

@testable import ImgwarmKit

/// `--limit-rate`'s bucket, with the clock given: what it lets through never outruns the rate
/// by more than one burst.
@Suite struct ByteRateLimitTests {
    @Test func bytesTakenNeverOutrunTheRateByMoreThanABurst() {
        let limit = ByteRateLimit(bytesPerSecond: 100 * 1024, now: 0)
        #expect(limit.burst == 16 * 1024)
        var now = 0.0
        var taken = 0
        // A chunk of 16 KiB whenever the bucket allows, for 10 simulated seconds.
        while now < 10 {
            if limit.mayReceive(now: now) {
                limit.took(16 * 1024)
                taken += 16 * 1024
            } else {
                now += 0.001
            }
        }
        #expect(Double(taken) <= 100 * 1024 * 10 + 2 * 16 * 1024, "\(taken) bytes in 10 s")
        #expect(Double(taken) >= 100 * 1024 * 10 - 2 * 16 * 1024, "\(taken) bytes in 10 s")
    }

    @Test func pausedTransfersAreDueWhenTheBalanceIsBack() {
        let limit = ByteRateLimit(bytesPerSecond: 1000, now: 0)
        limit.took(16 * 1024 + 1000)  // one second in debt beyond the burst
        #expect(!limit.mayReceive(now: 0))
        #expect(limit.resumeDue == nil, "nothing waits")
    }
}
