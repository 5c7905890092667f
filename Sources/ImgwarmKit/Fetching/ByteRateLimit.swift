import ImgwarmSystem

/// `--limit-rate`: body bytes per second, all transfers together (docs/usage.md, "How many
/// transfers"). libcurl's own `CURLOPT_MAX_RECV_SPEED_LARGE` limits one transfer, and only
/// from its second read on: a 27 KB image arrives in one read before it ever waits, so a run
/// of small images would not be limited at all. This is a token bucket instead: each chunk
/// libcurl hands over takes its bytes (the balance may go below zero by that one chunk), and
/// while the balance is not above zero every transfer that has bytes for us is paused
/// (`CURL_WRITEFUNC_PAUSE`: libcurl stops reading its connection, so the sender slows down
/// too); `Downloader` resumes the paused ones, first paused first, as the balance refills.
final class ByteRateLimit {
    let bytesPerSecond: Double
    /// The most bytes saved up while nothing arrives: a tenth of a second, at least 16 KiB.
    let burst: Double
    private var balance: Double
    private var updatedAt: Double
    /// Transfers waiting for the balance, first paused first.
    private(set) var paused: [Transfer] = []
    /// How often a transfer was paused (tests read it: "no less than the bytes allow").
    private(set) var pauses = 0

    init(bytesPerSecond: Int, now: Double = Monotonic.now()) {
        self.bytesPerSecond = Double(max(1, bytesPerSecond))
        burst = max(16 * 1024, self.bytesPerSecond / 10)
        balance = burst
        updatedAt = now
    }

    private func refill(now: Double) {
        balance = min(burst, balance + (now - updatedAt) * bytesPerSecond)
        updatedAt = now
    }

    /// True when a chunk may be taken at `now`.
    func mayReceive(now: Double) -> Bool {
        refill(now: now)
        return balance > 0
    }

    /// `count` bytes were taken.
    func took(_ count: Int) { balance -= Double(count) }

    /// `transfer` was paused for want of balance.
    func pause(_ transfer: Transfer) {
        pauses += 1
        paused.append(transfer)
    }

    /// The first paused transfer, once the balance is above zero at `now`.
    func nextToResume(now: Double) -> Transfer? {
        guard !paused.isEmpty, mayReceive(now: now) else { return nil }
        return paused.removeFirst()
    }

    /// Forgets `transfer` (it ended while paused).
    func forget(_ transfer: Transfer) {
        paused.removeAll { $0 === transfer }
    }

    /// When the balance will be above zero again, while transfers wait for it.
    var resumeDue: Double? {
        guard !paused.isEmpty else { return nil }
        return updatedAt + max(0, -balance) / bytesPerSecond + 0.001
    }
}
