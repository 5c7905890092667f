import Testing

@testable import ImgwarmKit

/// The retry and blacklist decision from values alone, without a server (issue 22).
@Suite struct FailurePolicyTests {
    var policy: FailurePolicy {
        var retry = RetryPolicy()
        retry.retries = 2
        retry.delay = 1
        retry.maxWait = 30
        return FailurePolicy(retry: retry, clientFingerprint: "f1")
    }

    @Test func aTransientFailureIsRetriedWhileTriesAreLeft() {
        let cut = Failure(.truncated, "cut short")
        for attempt in 1...2 {
            guard case .retry(let delay) = policy.verdict(on: cut, url: "u", attempts: attempt, retryAfter: nil, now: 0)
            else {
                Issue.record("attempt \(attempt) was not retried")
                continue
            }
            #expect(delay > 0 && delay <= 30)
        }
        // The last try: final, and a transient failure is never blacklisted.
        #expect(policy.verdict(on: cut, url: "u", attempts: 3, retryAfter: nil, now: 0) == .final(cut, blacklist: nil))
    }

    @Test func retryAfterIsHonouredUpToTheLongestWait() {
        let busy = Failure(.httpStatus, "503", httpStatus: 503)
        #expect(policy.verdict(on: busy, url: "u", attempts: 1, retryAfter: "7", now: 0) == .retry(after: 7))
        guard
            case .final(let failure, let blacklist) = policy.verdict(
                on: busy, url: "u", attempts: 1, retryAfter: "3600", now: 0)
        else {
            Issue.record("a Retry-After of an hour was waited for")
            return
        }
        #expect(failure.message.contains("asked to wait 3600 s"), "\(failure.message)")
        #expect(blacklist == nil)
    }

    @Test func aPermanentFailureIsBlacklistedAtOnce() {
        let missing = Failure(.httpStatus, "404", httpStatus: 404)
        let verdict = policy.verdict(on: missing, url: "https://a/x.png", attempts: 1, retryAfter: nil, now: 1000)
        guard case .final(_, let blacklist?) = verdict else {
            Issue.record("a 404 was not blacklisted: \(verdict)")
            return
        }
        #expect(blacklist.url == "https://a/x.png")
        #expect(blacklist.failedAt == 1000)
        #expect(blacklist.httpStatus == 404)
        #expect(blacklist.client == nil, "a 404 holds whatever the configuration")
    }

    @Test(arguments: [Failure(.httpStatus, "403", httpStatus: 403), Failure(.tls, "certificate")])
    func aClientDependentFailureRecordsTheConfiguration(failure: Failure) {
        guard
            case .final(_, let blacklist?) = policy.verdict(on: failure, url: "u", attempts: 1, retryAfter: nil, now: 0)
        else {
            Issue.record("\(failure) was not blacklisted")
            return
        }
        #expect(blacklist.client == "f1")
    }

    /// Local trouble says nothing about the URL: final, never blacklisted.
    @Test(arguments: [FailureReason.writeFailed, .interrupted, .validationLimit, .proxyFailed])
    func localTroubleIsNeverBlacklisted(reason: FailureReason) {
        let failure = Failure(reason, "local")
        #expect(
            policy.verdict(on: failure, url: "u", attempts: 1, retryAfter: nil, now: 0)
                == .final(failure, blacklist: nil))
    }

    /// Through a proxy, a refusal that depends on the client may be the proxy's: never
    /// blacklisted. Any other verdict holds only for this configuration, proxy included (issue 31).
    @Test func anAnswerThroughAProxyIsNotChargedToTheURLForGood() {
        for failure in [
            Failure(.httpStatus, "403", httpStatus: 403, throughProxy: true),
            Failure(.httpStatus, "401", httpStatus: 401, throughProxy: true), Failure(.tls, "tls", throughProxy: true),
        ] {
            #expect(
                policy.verdict(on: failure, url: "u", attempts: 1, retryAfter: nil, now: 0)
                    == .final(failure, blacklist: nil))
        }
        let missing = Failure(.httpStatus, "404", httpStatus: 404, throughProxy: true)
        guard
            case .final(_, let blacklist?) = policy.verdict(on: missing, url: "u", attempts: 1, retryAfter: nil, now: 0)
        else {
            Issue.record("a 404 through a proxy was not blacklisted")
            return
        }
        #expect(blacklist.client == "f1")
    }
}
