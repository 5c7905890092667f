import Foundation
import LoopbackServer
import TestSupport
import Testing

@testable import ImgwarmKit

/// The backstop behind the proxy check before the run: an answer that did not come through the
/// proxy stops the run, its body dropped (issue 31).
@Suite struct DownloaderProxyTests {
    /// libcurl 7.88 drops a proxy with `%00` in its password and connects directly (the CLI
    /// refuses such a value; here the engine is handed it): the answer is not used.
    @Test func anAnswerThatBypassedTheProxyStopsTheRun() throws {
        let bench = try DownloaderTests.Bench()
        let downloader = try bench.downloader { $0.proxy = "http://user:s3cret%00@127.0.0.1:9" }
        let finished = try DownloaderTests.fetch(downloader, bench.url("/img/photo.jpg"))
        let failure = try DownloaderTests.failure(finished)
        #expect(failure.reason == .proxyFailed)
        #expect(
            finished.proxyHalt?.hasPrefix(
                "requests do not go through the proxy http://127.0.0.1:9: libcurl connected to 127.0.0.1 port \(bench.server.port)"
            ) == true, "\(finished.proxyHalt ?? "nil")")
        #expect(!(finished.proxyHalt ?? "").contains("s3cret"))
        #expect(bench.spillContents().isEmpty)
    }

    /// Through the proxy (the fixture server takes absolute-form requests), nothing is said; nor
    /// for a host the no-proxy list names, reached directly.
    @Test func anAnswerThroughTheProxyIsUsed() throws {
        let bench = try DownloaderTests.Bench()
        let proxied = try bench.downloader { $0.proxy = bench.server.baseURL }
        let finished = try DownloaderTests.fetch(proxied, "http://images.example.invalid/img/photo.jpg")
        #expect(try DownloaderTests.body(finished).status == 200)
        #expect(finished.proxyHalt == nil)
        #expect(bench.server.requests.last?.viaProxy == true)
        let excepted = try bench.downloader {
            $0.proxy = "http://127.0.0.1:9"
            $0.noProxy = "127.0.0.1"
        }
        let direct = try DownloaderTests.fetch(excepted, bench.url("/img/photo.jpg"))
        #expect(try DownloaderTests.body(direct).status == 200)
        #expect(direct.proxyHalt == nil)
    }
}
