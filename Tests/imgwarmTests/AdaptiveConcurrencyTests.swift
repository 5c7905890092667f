import Foundation
import LoopbackServer
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--concurrency auto` learning each host (issue 26, docs/usage.md "How many transfers"), seen
/// from the servers: a small origin that serves 4 requests at a time, one that says 429, one
/// that is not there at all, and `--limit-rate`. Behaviour, never timings: counts of requests
/// and connections held at once, outcomes, and bytes per elapsed second against a generous bound.
@Suite struct AdaptiveConcurrencyTests {
    static func list(_ temp: TemporaryFolder, _ urls: [String]) throws -> String {
        try temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
    }

    static func report(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    static func hosts(_ report: [String: Any]) -> [[String: Any]] { report["hosts"] as? [[String: Any]] ?? [] }

    /// A server that serves K = 4 requests at a time, 0.1 s each, queueing the rest: every URL is
    /// requested once and downloaded, the host is never called unavailable, and it never holds
    /// more of imgwarm's requests at once than the limit the report says the host reached. How
    /// far the limit goes (between 4 and 8 once warmed up) depends on the latency a busy machine
    /// changes: the simulated `AdaptiveLimitTests.aServerOfFourSettlesBetweenFourAndEight`
    /// asserts it (issue 49).
    @Test func aServerOfFourGetsEveryURLOnceWithinTheReportedLimit() throws {
        let image = [UInt8](try Fixtures.data("images/valid/photo.jpg"))
        let limit = CapacityLimit(capacity: 4, serviceTime: 0.1)
        let server = LoopbackServer(
            router: limit.limiting { _ in
                { _, responder in responder.respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: image) }
            })
        let port = try server.start()
        defer { server.stop() }
        let temp = try TemporaryFolder()
        let list = try Self.list(temp, (0..<100).map { "http://127.0.0.1:\(port)/k/\($0).jpg" })
        let result = try CLI.run(
            ["prefetch", "--disk-cache-path", temp.path("cache"), "--quiet", "--report", "-", list], home: temp.path)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(limit.served == 100)
        let host = try #require(Self.hosts(try Self.report(result)).first)
        #expect(host["requests"] as? Int == 100)
        #expect(host["unavailable"] as? Bool == false)
        let peakLimit = try #require(host["peakLimit"] as? Int)
        #expect(limit.peakHeld <= peakLimit, "held at once \(limit.peakHeld), the host's peak limit \(peakLimit)")
        #expect(peakLimit <= 64, "the ceiling: \(host)")
    }

    /// Against a server that answers every request in 0.1 s however many it holds: the report's
    /// median latency is at least what the server holds each answer, and `--verbose`'s lines
    /// agree with the report: none names a limit above the host's peak, and a peak of 9 or more
    /// (6 grown by half) was told. Whether it grows depends on the latency a busy machine changes: the simulated
    /// `SlotPolicyTests.aHostThatKeepsUpGrowsAndSaysSo` and
    /// `AdaptiveLimitTests.aServerFortyMillisecondsAwayThatServesEverythingGetsTheCeiling` assert
    /// that (issue 49).
    @Test func theVerboseLinesAgreeWithTheReportedLimit() throws {
        let image = [UInt8](try Fixtures.data("images/valid/photo.jpg"))
        let server = LoopbackServer { _ in
            { _, responder in
                responder.pause(0.1)
                responder.respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: image)
            }
        }
        let port = try server.start()
        defer { server.stop() }
        let temp = try TemporaryFolder()
        let list = try Self.list(temp, (0..<120).map { "http://127.0.0.1:\(port)/u/\($0).jpg" })
        let result = try CLI.run(
            ["prefetch", "--disk-cache-path", temp.path("cache"), "--verbose", "--report", "-", list], home: temp.path)
        #expect(result.status == 0, "\(result.stderrText)")
        let host = try #require(Self.hosts(try Self.report(result)).first)
        #expect(host["host"] as? String == "http://127.0.0.1:\(port)")
        let median = host["medianLatencySeconds"] as? Double ?? 0
        #expect(median >= 0.09, "each answer is held 0.1 s: \(host)")
        // "127.0.0.1:PORT: limit A → B (cause)": the highest B is the report's peak (6 when none).
        let prefix = "127.0.0.1:\(port): limit "
        let reached = result.stderrText.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: prefix),
                let arrow = line.range(of: " → ", range: range.upperBound..<line.endIndex)
            else { return nil }
            return Int(line[arrow.upperBound...].prefix(while: \.isNumber))
        }
        // A move by half or more since the last line is told: from 6, a peak of 9 or more is.
        let peak = try #require(host["peakLimit"] as? Int)
        #expect(reached.allSatisfy { $0 <= peak }, "\(host)\n\(result.stderrText)")
        #expect(peak < 9 || !reached.isEmpty, "\(host)\n\(result.stderrText)")
    }

    /// A 429 with Retry-After halves the host's limit at once (6 → 3, which --verbose prints);
    /// the URL is tried again after the wait and downloaded.
    @Test func a429WithRetryAfterHalvesTheLimit() throws {
        let image = [UInt8](try Fixtures.data("images/valid/photo.jpg"))
        let answered = Atomic<Int>(0)
        let server = LoopbackServer { _ in
            { _, responder in
                if answered.add(1, ordering: .relaxed).oldValue == 0 {
                    responder.respond(status: 429, headers: ["Retry-After": "1"], body: Array("slow down\n".utf8))
                    return
                }
                responder.pause(0.3)
                responder.respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: image)
            }
        }
        let port = try server.start()
        defer { server.stop() }
        let temp = try TemporaryFolder()
        let list = try Self.list(temp, (0..<12).map { "http://127.0.0.1:\(port)/r/\($0).jpg" })
        let result = try CLI.run(
            ["prefetch", "--disk-cache-path", temp.path("cache"), "--verbose", "--report", "-", list], home: temp.path)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(
            result.stderrText.contains("127.0.0.1:\(port): limit 6 → 3 (the server said it is busy)"),
            "\(result.stderrText)")
        let report = try Self.report(result)
        let host = try #require(Self.hosts(report).first)
        #expect(host["requests"] as? Int == 13, "12 URLs and one retry: \(host)")
        #expect((report["totals"] as? [String: Any])?["downloaded"] as? Int == 12)
    }

    /// A host that refuses every connection (a closed port) ends its queued URLs as
    /// host-unavailable after 5 rounds of failures (6, 3, then one at a time as its limit halves:
    /// 12 requests), without a request each, with one message naming it; another host's URLs
    /// are downloaded; nothing is blacklisted.
    @Test func aDeadHostEndsItsURLsAtOnceAndOthersGoOn() throws {
        let image = [UInt8](try Fixtures.data("images/valid/photo.jpg"))
        let server = LoopbackServer { _ in
            { _, responder in responder.respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: image) }
        }
        let port = try server.start()
        defer { server.stop() }
        let dead = try Self.closedPort()
        let temp = try TemporaryFolder()
        let deadURLs = (0..<40).map { "http://127.0.0.1:\(dead)/d/\($0).jpg" }
        let liveURLs = (0..<10).map { "http://localhost:\(port)/l/\($0).jpg" }
        let list = try Self.list(
            temp, zip(deadURLs.prefix(10), liveURLs).flatMap { [$0, $1] } + deadURLs.dropFirst(10))
        let result = try CLI.run(
            ["prefetch", "--disk-cache-path", temp.path("cache"), "--quiet", "--report", "-", list], home: temp.path)
        #expect(result.status == 1, "\(result.stderrText)")
        let report = try Self.report(result)
        let entries = report["entries"] as? [[String: Any]] ?? []
        let deadEntries = entries.filter { ($0["url"] as? String ?? "").contains(":\(dead)/") }
        #expect(deadEntries.count == 40)
        #expect(
            deadEntries.allSatisfy { $0["errorClass"] as? String == "host-unavailable" }, "\(deadEntries.prefix(3))")
        #expect(deadEntries.allSatisfy { $0["errorKind"] as? String == "transient" })
        #expect(deadEntries.filter { $0["attempts"] as? Int == 0 }.count >= 28, "the queued ones made no request")
        let live = entries.filter { ($0["url"] as? String ?? "").contains(":\(port)/") }
        #expect(live.count == 10 && live.allSatisfy { $0["outcome"] as? String == "downloaded" }, "\(live.prefix(2))")
        let hosts = Self.hosts(report)
        let deadHost = try #require(hosts.first { $0["host"] as? String == "http://127.0.0.1:\(dead)" })
        #expect(deadHost["unavailable"] as? Bool == true)
        #expect((deadHost["requests"] as? Int ?? 99) <= 12, "\(deadHost)")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.filter { $0.contains("is unavailable") }.count == 1, "\(result.stderrText)")
        #expect(!result.stderrText.contains("/d/"), "no line per URL: \(result.stderrText)")
        // Not blacklisted: the next run tries the host again.
        let again = try CLI.run(
            ["prefetch", "--disk-cache-path", temp.path("cache"), "--quiet", "--report", "-", list], home: temp.path)
        let blacklisted = ((try Self.report(again))["totals"] as? [String: Any])?["blacklisted"] as? Int
        #expect(blacklisted == 0)
    }

    /// `--limit-rate 100K` on about 1 MB of images takes no less than the bytes allow: the bytes
    /// per elapsed second stay near 100 KiB/s (generous slack: the bucket's one-tenth-second
    /// burst, the process's start).
    @Test func limitRateHoldsAllTransfersTogether() throws {
        let image = GeneratedImages.png(width: 1000, height: 100)  // about 100 KB
        let server = LoopbackServer { _ in
            { _, responder in responder.respond(status: 200, headers: ["Content-Type": "image/png"], body: image) }
        }
        let port = try server.start()
        defer { server.stop() }
        let temp = try TemporaryFolder()
        let list = try Self.list(temp, (0..<10).map { "http://127.0.0.1:\(port)/p/\($0).png" })
        let started = Date()
        let result = try CLI.run(
            [
                "prefetch", "--disk-cache-path", temp.path("cache"), "--quiet", "--limit-rate", "100K", "--report", "-",
                list,
            ],
            home: temp.path)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderrText)")
        let report = try Self.report(result)
        let bytes = (report["totals"] as? [String: Any])?["bytesReceived"] as? Int ?? 0
        #expect(bytes == image.count * 10)
        #expect(Double(bytes) / elapsed <= 1.25 * 102_400, "\(bytes) bytes in \(elapsed) s")
        #expect((report["options"] as? [String: Any])?["limitRate"] as? Int == 102_400)
    }

    /// A port on 127.0.0.1 that nothing listens on: bound, then closed.
    static func closedPort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        #expect(bound)
        return UInt16(bigEndian: address.sin_port)
    }
}
