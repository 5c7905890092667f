import Foundation
import LoopbackServer
import TestSupport
import Testing

/// What a proxy does to a run (issue 31): a value libcurl would drop is refused, a proxy's own
/// answers are not charged to the URLs for days, and a proxy that cannot be reached is named.
@Suite struct ProxyTests {
    /// A proxy that refuses everything: a request for `…?proxy=N` is answered N (403 without a
    /// query), a CONNECT 403.
    static func refusingProxy() throws -> LoopbackServer {
        let proxy = LoopbackServer { request in
            { request, responder in
                let status = request.method == "CONNECT" ? 403 : Int(request.query["proxy"] ?? "") ?? 403
                responder.respond(status: status, body: Array("refused by the proxy".utf8))
            }
        }
        try proxy.start()
        return proxy
    }

    /// libcurl 7.88 drops a proxy whose user name or password decodes to a zero byte and connects
    /// directly: such a `--proxy`, or such an `http_proxy`, is a usage error before any request,
    /// and the password is printed nowhere.
    @Test func aProxyLibcurlWouldDropIsRefused() throws {
        let h = try PrefetchHarness()
        let url = h.url("/img/photo.jpg")
        let port = h.server.port
        for proxy in ["http://user:s3cret%00@127.0.0.1:\(port)", "http://us%00er:s3cret@127.0.0.1:\(port)"] {
            let run = try h.prefetch([url], options: ["--proxy", proxy])
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stderr.contains("invalid --proxy: its user name or password holds %00"), "\(run.stderr)")
            #expect(!run.stderr.contains("s3cret") && !run.result.stdoutText.contains("s3cret"), "\(run.stderr)")
        }
        let environment = try h.prefetch([url], env: ["http_proxy": "http://user:s3cret%00@127.0.0.1:\(port)"])
        #expect(environment.status == 2, "\(environment.stderr)")
        #expect(environment.stderr.contains("invalid proxy in http_proxy: its user name"), "\(environment.stderr)")
        #expect(!environment.stderr.contains("s3cret"), "\(environment.stderr)")
        #expect(h.server.requests.isEmpty, "nothing was requested, directly or not")
        #expect(!FileManager.default.fileExists(atPath: h.folder), "nothing was done")
    }

    /// A proxy answering 403 to an http request may be the one refusing: the answer names the
    /// proxy and is not blacklisted, so the next run through the same proxy asks again.
    @Test func aForbiddenAnswerThroughAProxyIsNotBlacklisted() throws {
        let h = try PrefetchHarness()
        let proxy = try Self.refusingProxy()
        defer { proxy.stop() }
        let url = h.url("/img/photo.jpg")
        for _ in 0..<2 {
            let run = try h.prefetch([url], options: ["--proxy", proxy.baseURL])
            #expect(run.status == 1)
            let entry = try run.entry(line: 1)
            #expect(entry["outcome"] as? String == "failed")
            #expect(entry["httpStatus"] as? Int == 403)
            #expect(
                (entry["errorMessage"] as? String)?.contains("the server or the proxy \(proxy.baseURL) answered 403")
                    == true, "\(entry)")
        }
        #expect(proxy.requests.count == 2, "asked again: not blacklisted")
        let listed = try h.run(["blacklist", "list", "--disk-cache-path", h.folder])
        #expect(listed.result.stdoutText.contains("The blacklist is empty"), "\(listed.result.stdoutText)")
        #expect(h.server.requests.isEmpty)
    }

    /// A 407, and a CONNECT refused for an https URL, are the proxy's own: `proxy-failed`, never
    /// blacklisted, and not counted against the URLs' hosts.
    @Test func aProxysOwnRefusalIsNamedAsTheProxys() throws {
        let h = try PrefetchHarness()
        let proxy = try Self.refusingProxy()
        defer { proxy.stop() }
        let urls = [h.url("/img/photo.jpg?proxy=407"), "https://images.example.invalid/a.jpg"]
        for _ in 0..<2 {
            let run = try h.prefetch(urls, options: ["--proxy", proxy.baseURL])
            #expect(run.status == 1)
            let authentication = try run.entry(line: 1)
            #expect(authentication["errorClass"] as? String == "proxy-failed", "\(authentication)")
            #expect(
                (authentication["errorMessage"] as? String)?.contains(
                    "the proxy \(proxy.baseURL) answered 407 Proxy Authentication Required") == true)
            let tunnel = try run.entry(line: 2)
            #expect(tunnel["errorClass"] as? String == "proxy-failed", "\(tunnel)")
            #expect(
                (tunnel["errorMessage"] as? String)?.contains(
                    "the proxy \(proxy.baseURL) refused a tunnel to images.example.invalid: it answered 403") == true,
                "\(tunnel)")
            #expect(!run.stderr.contains("is unavailable"), "\(run.stderr)")
        }
        #expect(proxy.requests.count == 4, "both asked again: nothing blacklisted")
    }

    /// Any other verdict through a proxy holds only while the proxy is the same: it is in the
    /// configuration's fingerprint, the environment's proxy too.
    @Test func aVerdictThroughAProxyHoldsForThatProxyOnly() throws {
        let h = try PrefetchHarness()
        let proxy = try Self.refusingProxy()
        defer { proxy.stop() }
        let url = h.url("/img/photo.jpg?proxy=404")
        let first = try h.prefetch([url], options: ["--proxy", proxy.baseURL])
        #expect(try first.entry(line: 1)["httpStatus"] as? Int == 404)
        let same = try h.prefetch([url], options: ["--proxy", proxy.baseURL])
        #expect(try same.entry(line: 1)["outcome"] as? String == "blacklisted")
        // Through the environment's proxy (the fixture server, which serves the image as a proxy).
        let other = try h.prefetch([url], env: ["http_proxy": h.server.baseURL])
        #expect(try other.entry(line: 1)["outcome"] as? String == "downloaded", "\(other.stderr)")
        #expect(h.server.requests.first?.viaProxy == true)

        let environment = h.url("/img/gradient.png?proxy=404")
        let refused = try h.prefetch([environment], env: ["http_proxy": proxy.baseURL])
        #expect(try refused.entry(line: 1)["httpStatus"] as? Int == 404)
        let direct = try h.prefetch([environment], env: ["http_proxy": ""])
        #expect(try direct.entry(line: 1)["outcome"] as? String == "downloaded", "\(direct.stderr)")
    }

    /// A proxy that cannot be reached ends the run with one message naming it (never its
    /// password): no URL is blacklisted, no host is declared unavailable, the rest do not start.
    @Test func aProxyThatCannotBeReachedIsNamed() throws {
        let h = try PrefetchHarness()
        let port = try AdaptiveConcurrencyTests.closedPort()
        let urls = (1...6).map { h.url("/img/photo.jpg?\($0)") }
        let run = try h.prefetch(urls, options: ["--proxy", "http://user:s3cret@127.0.0.1:\(port)", "-c", "1"])
        #expect(run.status == 1, "\(run.stderr)")
        let named = "the proxy http://127.0.0.1:\(port) cannot be reached"
        #expect(run.stderr.contains("warning: \(named)"), "\(run.stderr)")
        #expect(run.stderr.contains("no new downloads start"), "\(run.stderr)")
        #expect(!run.stderr.contains("s3cret") && !run.result.stdoutText.contains("s3cret"))
        #expect(!run.stderr.contains("is unavailable"), "\(run.stderr)")
        let entries = try run.entries
        #expect(entries.count == 6)
        #expect(entries.allSatisfy { ["failed", "not-started"].contains($0["outcome"] as? String) }, "\(entries)")
        let failed = entries.filter { $0["outcome"] as? String == "failed" }
        #expect(!failed.isEmpty && failed.allSatisfy { $0["errorClass"] as? String == "proxy-failed" })
        #expect((try run.report["error"] as? String)?.contains(named) == true)
        #expect(h.server.requests.isEmpty)
        let listed = try h.run(["blacklist", "list", "--disk-cache-path", h.folder])
        #expect(listed.result.stdoutText.contains("The blacklist is empty"), "\(listed.result.stdoutText)")

        let unresolved = try h.prefetch([urls[0]], options: ["--proxy", "http://proxy.example.invalid:3128"])
        #expect(unresolved.status == 1)
        #expect(
            unresolved.stderr.contains("the proxy http://proxy.example.invalid:3128 cannot be reached"),
            "\(unresolved.stderr)")
    }
}
