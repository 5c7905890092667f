import ImgwarmSystem

/// What becomes of a failed attempt (docs/cache-contract.md §5): tried again after a back-off,
/// or final and reported, and then put on the blacklist when it is permanent. One decision for
/// every failure, of the transfer or of the validation, made from values alone.
struct FailurePolicy: Sendable {
    var retry: RetryPolicy
    /// `FetchConfiguration.clientFingerprint`: recorded with a failure that depends on the client.
    var clientFingerprint: String

    enum Verdict: Equatable {
        /// Try again after this many seconds.
        case retry(after: Double)
        /// Final: report `failure`; blacklist the URL with `blacklist` when it is set.
        case final(Failure, blacklist: StateStore.BlacklistEntry?)
    }

    /// The verdict on `failure` of `url` on attempt number `attempts` (1-based), with the server's
    /// `Retry-After` if it sent one, at `now` (seconds since the epoch).
    func verdict(on failure: Failure, url: String, attempts: Int, retryAfter: String?, now: Double) -> Verdict {
        var failure = failure
        if failure.isTransient {
            switch retry.decide(attempts: attempts, retryAfter: retryAfter, now: now) {
            case .retry(let delay): return .retry(after: delay)
            case .giveUp(let why): if let why { failure.message += "; \(why)" }
            }
        }
        // Through a proxy, a refusal that depends on the client (401, 403, TLS) may be the proxy's
        // own, whose rules change without this configuration changing: never blacklisted. Any
        // other verdict holds only while the proxy is the same (it is in the fingerprint).
        let dependsOnClient = failure.reason.dependsOnClient(status: failure.httpStatus)
        guard failure.reason.isBlacklisted(status: failure.httpStatus), !(dependsOnClient && failure.throughProxy)
        else {
            return .final(failure, blacklist: nil)
        }
        let entry = StateStore.BlacklistEntry(
            url: url, failedAt: now, errorClass: failure.reason.rawValue, message: failure.message,
            httpStatus: failure.httpStatus, attempts: attempts,
            client: dependsOnClient || failure.throughProxy ? clientFingerprint : nil)
        return .final(failure, blacklist: entry)
    }
}
