import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

@Suite struct RetryPolicyTests {
    @Test func backoffDoublesWithJitterAndIsCapped() {
        var policy = RetryPolicy()
        policy.delay = 1
        policy.maxWait = 10
        #expect(policy.backoff(attempt: 1, random: 1) == 1)
        #expect(policy.backoff(attempt: 2, random: 1) == 2)
        #expect(policy.backoff(attempt: 3, random: 0.5) == 2)
        #expect(policy.backoff(attempt: 10, random: 1) == 10)
        for _ in 0..<100 {
            let delay = policy.backoff(attempt: 2)
            #expect(delay >= 1 && delay <= 2)
        }
    }

    @Test func decisions() {
        var policy = RetryPolicy()
        policy.retries = 2
        policy.maxWait = 60
        #expect(policy.decide(attempts: 1, retryAfter: "5", now: 0) == .retry(after: 5))
        #expect(policy.decide(attempts: 3, retryAfter: nil, now: 0) == .giveUp(nil))
        if case .giveUp(let why) = policy.decide(attempts: 1, retryAfter: "120", now: 0) {
            #expect(why?.contains("Retry-After") == true)
        } else {
            Issue.record("should give up")
        }
    }

    @Test func retryAfterAsAnHTTPDate() {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(RetryPolicy.parseHTTPDate(date) == 784_111_777)
        #expect(RetryPolicy.parseRetryAfter(date, now: 784_111_770) == 7)
        #expect(RetryPolicy.parseRetryAfter(date, now: 800_000_000) == 0, "a date in the past means now")
        #expect(RetryPolicy.parseRetryAfter("soon", now: 0) == nil)
        #expect(
            RetryPolicy.parseRetryAfter("99999999999999999999999", now: 0) == .infinity,
            "beyond any integer: too long, not absent")
        #expect(RetryPolicy.parseRetryAfter("-5", now: 0) == nil)
        if case .giveUp(let why) = RetryPolicy().decide(attempts: 1, retryAfter: "99999999999999999999999", now: 0) {
            #expect(why?.contains("Retry-After") == true)
            #expect(why?.contains("wait 99999999999999999999999 s (Retry-After)") == true, "\(why ?? "")")
        } else {
            Issue.record("should give up")
        }
        #expect(RetryPolicy.parseHTTPDate("Sun, 32 Nov 1994 08:49:37 GMT") == nil)
    }

    @Test func failureClasses() {
        #expect(FailureReason.httpStatus.isTransient(status: 503))
        #expect(!FailureReason.httpStatus.isTransient(status: 404))
        #expect(FailureReason.httpStatus.isBlacklisted(status: 404))
        #expect(!FailureReason.httpStatus.isBlacklisted(status: 429))
        #expect(FailureReason.timeout.isTransient(status: nil))
        #expect(!FailureReason.writeFailed.isBlacklisted(status: nil))
        #expect(FailureReason.notAnImage.isBlacklisted(status: 200))
        #expect(FailureReason.badResponse.isBlacklisted(status: nil), "an answer that is not HTTP is permanent")
        #expect(FailureReason.truncated.isTransient(status: 200))
    }

    /// Every error class is in the report's JSON Schema and in the manual's list (docs/usage.md).
    @Test func failureClassesAreDocumented() throws {
        let schema = String(
            decoding: try Data(
                contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json")),
            as: UTF8.self)
        let readme = String(
            decoding: try Data(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/usage.md")),
            as: UTF8.self)
        for reason in FailureReason.allCases {
            #expect(schema.contains("\"\(reason.rawValue)\""), "\(reason.rawValue) is not in the schema")
            #expect(readme.contains("`\(reason.rawValue)`"), "\(reason.rawValue) is not in docs/usage.md")
        }
    }
}
