import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// A host's circuit breaker seen from the server (issue 31, docs/usage.md "How many
/// transfers"): it counts rounds, not transfers, so a batch of hung URLs does not take the
/// host's good ones down with it; and a host that answers nothing but 429 ends after a bounded
/// number of requests. Counts of requests and outcomes, never timings.
@Suite struct HostBreakerRunTests {
    typealias Helpers = AdaptiveConcurrencyTests

    /// A server that never answers `/hang/…` (until the client goes) and serves an image
    /// everywhere else.
    static func hangingServer(_ image: [UInt8]) -> LoopbackServer {
        LoopbackServer { request in
            { _, responder in
                guard request.path.hasPrefix("/hang/") else {
                    responder.respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: image)
                    return
                }
                responder.hang()
            }
        }
    }

    /// Six URLs that hang at the head of a host's list fill its first 6 slots and time out
    /// together: one round, not "5 in a row". The host's 40 good URLs behind them are stored.
    @Test func hungURLsAtTheHeadDoNotTakeTheHostDown() throws {
        let image = [UInt8](try Fixtures.data("images/valid/photo.jpg"))
        let server = Self.hangingServer(image)
        let port = try server.start()
        defer { server.stop() }
        let temp = try TemporaryFolder()
        let urls =
            (0..<6).map { "http://127.0.0.1:\(port)/hang/\($0).jpg" }
            + (0..<40).map { "http://127.0.0.1:\(port)/good/\($0).jpg" }
        let list = try Helpers.list(temp, urls)
        let result = try CLI.run(
            [
                "prefetch", "--disk-cache-path", temp.path("cache"), "--quiet", "--timeout", "1", "--retries", "0",
                "--report", "-", list,
            ],
            home: temp.path)
        #expect(result.status == 1, "\(result.stderrText)")
        let report = try Helpers.report(result)
        let entries = report["entries"] as? [[String: Any]] ?? []
        let good = entries.filter { ($0["url"] as? String ?? "").contains("/good/") }
        let hung = entries.filter { ($0["url"] as? String ?? "").contains("/hang/") }
        #expect(good.count == 40)
        #expect(good.allSatisfy { $0["outcome"] as? String == "downloaded" }, "\(good.prefix(2))")
        #expect(hung.count == 6)
        #expect(hung.allSatisfy { $0["errorClass"] as? String == "timeout" }, "\(hung.prefix(2))")
        #expect((report["totals"] as? [String: Any])?["downloaded"] as? Int == 40)
        let host = try #require(Helpers.hosts(report).first)
        #expect(host["unavailable"] as? Bool == false, "\(host)")
        #expect(!result.stderrText.contains("is unavailable"), "\(result.stderrText)")
    }

    /// A host that answers every request with 429 and `Retry-After: 1` is given up after 10
    /// rounds of busy answers: 6, 3, then one request at a time as its limit halves, 17 requests
    /// at most, not 3 for each of its 30 URLs. Its URLs end as host-unavailable (transient, not
    /// blacklisted), announced once.
    @Test func aHostThatOnlySays429EndsAfterBoundedRequests() throws {
        let server = LoopbackServer { _ in
            { _, responder in
                responder.respond(status: 429, headers: ["Retry-After": "1"], body: Array("slow down\n".utf8))
            }
        }
        let port = try server.start()
        defer { server.stop() }
        let temp = try TemporaryFolder()
        let list = try Helpers.list(temp, (0..<30).map { "http://127.0.0.1:\(port)/busy/\($0).jpg" })
        let result = try CLI.run(
            ["prefetch", "--disk-cache-path", temp.path("cache"), "--quiet", "--report", "-", list], home: temp.path)
        #expect(result.status == 1, "\(result.stderrText)")
        let requests = server.requests.count
        #expect(requests >= SlotPolicy.Configuration.busyBreakerThreshold, "a round is a request at least")
        #expect(requests <= 17, "6, 3, then one at a time: \(requests)")
        let report = try Helpers.report(result)
        let entries = report["entries"] as? [[String: Any]] ?? []
        #expect(entries.count == 30)
        #expect(entries.allSatisfy { $0["errorClass"] as? String == "host-unavailable" }, "\(entries.prefix(3))")
        #expect(entries.allSatisfy { $0["errorKind"] as? String == "transient" })
        let host = try #require(Helpers.hosts(report).first)
        #expect(host["unavailable"] as? Bool == true)
        #expect(host["requests"] as? Int == requests)
        let lines = result.stderrText.split(separator: "\n").filter { $0.contains("is unavailable") }
        #expect(lines.count == 1, "\(result.stderrText)")
        #expect(lines.first?.contains("429 or 503 (busy) in 10 rounds in a row") == true, "\(result.stderrText)")
        // Not blacklisted: the next run asks the host again.
        server.clearLog()
        let again = try CLI.run(
            ["prefetch", "--disk-cache-path", temp.path("cache"), "--quiet", "--report", "-", list], home: temp.path)
        #expect(server.requests.count > 0)
        #expect(((try Helpers.report(again))["totals"] as? [String: Any])?["blacklisted"] as? Int == 0)
    }
}
