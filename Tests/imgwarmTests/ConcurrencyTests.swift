import Foundation
import LoopbackServer
import Synchronization
import TestSupport
import Testing

/// `--concurrency auto` (the default), `--max-per-host`, and a number's meaning, seen from the
/// server: how many requests it holds at once, per host. Each request is held long enough for
/// every transfer the client allows to arrive; none of these assertions is about time.
@Suite struct ConcurrencyTests {
    /// Requests in progress, per `Host` header, and the most seen at once.
    final class Gauge: Sendable {
        private struct Counts {
            var active: [String: Int] = [:]
            var peakPerHost: [String: Int] = [:]
            var peak = 0
        }
        private let counts = Mutex(Counts())

        func enter(_ host: String) {
            counts.withLock {
                $0.active[host, default: 0] += 1
                $0.peakPerHost[host] = max($0.peakPerHost[host] ?? 0, $0.active[host]!)
                $0.peak = max($0.peak, $0.active.values.reduce(0, +))
            }
        }

        func leave(_ host: String) { counts.withLock { $0.active[host, default: 1] -= 1 } }
        var peak: Int { counts.withLock { $0.peak } }
        var peakPerHost: [String: Int] { counts.withLock { $0.peakPerHost } }
    }

    /// Runs a prefetch of `count` URLs per host name, each request held `hold` seconds.
    func run(
        _ options: [String], count: Int, hostNames: [String] = ["127.0.0.1"], hold: Double = 0.6
    ) throws -> (gauge: Gauge, status: Int32, stderr: String) {
        let gauge = Gauge()
        let image = [UInt8](try Fixtures.data("images/valid/photo.jpg"))
        let server = LoopbackServer { request in
            { request, responder in
                let host = request.header("Host") ?? ""
                gauge.enter(host)
                responder.pause(hold)
                gauge.leave(host)
                responder.respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: image)
            }
        }
        let port = try server.start()
        defer { server.stop() }
        let temp = try TemporaryFolder()
        let lines = hostNames.flatMap { host in (0..<count).map { "http://\(host):\(port)/c/\($0).jpg" } }
        let list = try temp.write("list.txt", Data((lines.joined(separator: "\n") + "\n").utf8))
        let result = try CLI.run(
            ["prefetch", "--disk-cache-path", temp.path("cache"), "--quiet"] + options + [list], home: temp.path)
        return (gauge, result.status, result.stderrText)
    }

    /// The default is `auto`: a host starts at 6 transfers (SDWebImage's 6) and the first round
    /// only measures: 8 URLs never have more than 6 requests at once, and all are downloaded.
    /// That all 6 start together is the simulated `SlotPolicyTests.autoStartsEachHostAtSix`; that
    /// the limit grows against a server that keeps up is
    /// `AdaptiveLimitTests.aServerFortyMillisecondsAwayThatServesEverythingGetsTheCeiling` (a
    /// real server's growth depends on the latency a busy machine changes: issue 49).
    @Test func autoStartsEachHostAtSixAtMost() throws {
        let exact = try run([], count: 8)
        #expect(exact.status == 0, "\(exact.stderr)")
        #expect(exact.gauge.peak <= 6 && exact.gauge.peak >= 1, "\(exact.gauge.peak)")
    }

    /// `--max-per-host 3`: never more than 3 requests at once to a host, each host name its own 3.
    @Test func maxPerHostCapsEachHost() throws {
        let one = try run(["--max-per-host", "3"], count: 10, hold: 0.3)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.gauge.peak <= 3 && one.gauge.peak >= 1, "\(one.gauge.peak)")
        // Two host names for one server: each gets its own 3.
        let two = try run(["--max-per-host", "3"], count: 6, hostNames: ["127.0.0.1", "localhost"], hold: 0.5)
        #expect(two.status == 0, "\(two.stderr)")
        #expect(two.gauge.peakPerHost.count == 2, "\(two.gauge.peakPerHost)")
        #expect(two.gauge.peakPerHost.values.allSatisfy { $0 <= 3 }, "\(two.gauge.peakPerHost)")
    }

    /// A cache hit takes no slot, so hits of a host whose slots are all taken by slow downloads
    /// are recorded at once, not after them.
    @Test func hitsOfABusyHostDoNotWaitForIt() throws {
        let image = [UInt8](try Fixtures.data("images/valid/photo.jpg"))
        let server = LoopbackServer { request in
            { request, responder in
                if request.path.contains("slow") { responder.pause(0.8) }
                responder.respond(status: 200, headers: ["Content-Type": "image/jpeg"], body: image)
            }
        }
        let port = try server.start()
        defer { server.stop() }
        let temp = try TemporaryFolder()
        let hits = (0..<5).map { "http://127.0.0.1:\(port)/hit/\($0).jpg" }
        let seed = try temp.write("seed.txt", Data((hits.joined(separator: "\n") + "\n").utf8))
        let cache = temp.path("cache")
        let first = try CLI.run(["prefetch", "--disk-cache-path", cache, "--quiet", seed], home: temp.path)
        #expect(first.status == 0, "\(first.stderrText)")
        // Two slow downloads first: with one slot, the second waits for the host, and so would
        // every line after it.
        let slow = (0..<2).map { "http://127.0.0.1:\(port)/slow/\($0).jpg" }
        let list = try temp.write("list.txt", Data(((slow + hits).joined(separator: "\n") + "\n").utf8))
        let second = try CLI.run(
            ["prefetch", "--disk-cache-path", cache, "--quiet", "--max-per-host", "1", "--report", "-", list],
            home: temp.path)
        #expect(second.status == 0, "\(second.stderrText)")
        let report = try #require(try JSONSerialization.jsonObject(with: second.stdout) as? [String: Any])
        let outcomes = (report["entries"] as? [[String: Any]] ?? []).map { $0["outcome"] as? String ?? "" }
        #expect(outcomes == Array(repeating: "cached", count: 5) + ["downloaded", "downloaded"], "\(outcomes)")
    }

    /// A number keeps its meaning: that many transfers, whatever their hosts.
    @Test func aNumberIsTheTotal() throws {
        let run = try run(["--concurrency", "12"], count: 14, hold: 0.5)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.gauge.peak == 12)
    }

    @Test func wrongValuesAreUsageErrors() throws {
        let temp = try TemporaryFolder()
        let list = try temp.write("list.txt", Data("http://127.0.0.1:1/a.jpg\n".utf8))
        for (options, message) in [
            (["--concurrency", "0"], "auto or a number between 1 and 1024"),
            (["--concurrency", "many"], "auto or a number between 1 and 1024"),
            (["--max-per-host", "0"], "between 1 and 256"),
            (["--max-per-host", "257"], "between 1 and 256"),
            (["--limit-rate", "0.5"], "--limit-rate 0.5 is less than 1 byte per second"),
            (["--max-rate-per-host", "0"], "--max-rate-per-host must be a number"),
            (["--max-rate-per-host", "fast"], "--max-rate-per-host must be a number"),
            (["--concurrency", "4", "--max-per-host", "2"], "applies to --concurrency auto only"),
        ] {
            let result = try CLI.run(["prefetch", "--dry-run"] + options + [list], home: temp.path)
            #expect(result.status == 2, "\(options)")
            #expect(result.stderrText.contains(message), "\(options): \(result.stderrText)")
        }
    }
}
