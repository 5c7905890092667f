/// When and how soon a transient failure is tried again (docs/cache-contract.md §5).
public struct RetryPolicy: Sendable {
    /// Extra attempts after the first, for transient failures only. `2` by default.
    public var retries = 2
    /// The first back-off delay in seconds; it doubles with each retry, with jitter. `1` by default.
    public var delay = 1.0
    /// The longest wait for one retry, in seconds: back-off delays are capped at it, and a server
    /// asking (`Retry-After`) for longer is not retried in this run. `30` by default.
    public var maxWait = 30.0

    public init() {}

    /// The delay before retry number `attempt` (1 for the first retry): `delay × 2^(attempt−1)`,
    /// scaled by a random factor in [0.5, 1] so that many clients do not retry in step.
    public func backoff(attempt: Int, random: Double = Double.random(in: 0.5...1.0)) -> Double {
        let exponent = Double(max(0, min(attempt - 1, 30)))
        var base = delay
        for _ in 0..<Int(exponent) { base *= 2 }
        return min(maxWait, base * random)
    }

    /// What to do after a transient failure on attempt number `attempts` (1-based).
    public enum Decision: Equatable, Sendable {
        case retry(after: Double)
        /// No retry; the message says why when it is not simply "no attempts left".
        case giveUp(String?)
    }

    public func decide(attempts: Int, retryAfter: String?, now: Double) -> Decision {
        guard attempts <= retries else { return .giveUp(nil) }
        if let retryAfter, let wait = RetryPolicy.parseRetryAfter(retryAfter, now: now) {
            if wait > maxWait {
                // Beyond any integer: the value as sent (digits only, at most 40 of them).
                let digits = retryAfter.trimmingSpaces
                let asked =
                    wait.isFinite
                    ? Quantities.formatDecimal(wait, digits: 0) : digits.count <= 40 ? digits : digits.prefix(40) + "…"
                return .giveUp(
                    "the server asked to wait \(asked) s (Retry-After), more than \(Setting.maxRetryWait) \(Quantities.formatDecimal(maxWait, digits: 0)) s"
                )
            }
            return .retry(after: max(0, wait))
        }
        return .retry(after: backoff(attempt: attempts))
    }

    /// Seconds to wait from a `Retry-After` value: delay-seconds, or an HTTP date (IMF-fixdate,
    /// `Sun, 06 Nov 1994 08:49:37 GMT`) compared with `now` (seconds since the epoch).
    /// Delay-seconds too large for any integer are `.infinity` (longer than any wait), not
    /// ignored; nil when the value is neither form.
    public static func parseRetryAfter(_ value: String, now: Double) -> Double? {
        let text = value.trimmingSpaces
        if let seconds = Int(text), seconds >= 0 { return Double(seconds) }
        if !text.isEmpty && text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return .infinity
        }
        guard let date = parseHTTPDate(text) else { return nil }
        return max(0, date - now)
    }

    /// An IMF-fixdate as seconds since the epoch.
    static func parseHTTPDate(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]) else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let monthIndex = months.firstIndex(of: String(parts[2])) else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
            (0...60).contains(clock[2])
        else {
            return nil
        }
        // Days from the civil date (Howard Hinnant's algorithm).
        let m = monthIndex + 1
        let y = m <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return Double(days * 86400 + clock[0] * 3600 + clock[1] * 60 + clock[2])
    }
}
