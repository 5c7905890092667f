import LoopbackServer
import TestSupport
import Testing

@testable import ImgwarmKit

/// The headers a finished transfer carries are its final response's: not a redirect's on the
/// way, and not an earlier try's on a reused handle.
@Suite struct DownloaderHeaderTests {
    typealias Bench = DownloaderTests.Bench

    /// The fields an index and the state database read: ETag, Last-Modified, Cache-Control,
    /// Content-Type, Retry-After.
    static func fields(_ headers: ResponseHeaders) -> [String?] {
        [headers.etag, headers.lastModified, headers.cacheControl, headers.contentType, headers.retryAfter]
    }

    /// The 302s carry an ETag, a Last-Modified, a year's Cache-Control, text/html and a
    /// Retry-After (`/headed-redirect/PATH`); the 200 carries none of them, or other values.
    @Test func aRedirectsHeadersAreNotTheResults() throws {
        let bench = try Bench()
        let downloader = try bench.downloader()
        let gradient = try #require(bench.routes.valid["gradient.png"])

        let bare = try DownloaderTests.fetch(
            downloader, bench.url("/headed-redirect/headed-redirect/chunked/gradient.png"))
        #expect(try DownloaderTests.body(bare).bytes == gradient)
        #expect(bench.server.requests.map(\.path).last == "/chunked/gradient.png")
        #expect(Self.fields(bare.headers) == [nil, nil, nil, "image/png", nil], "the 200's Content-Type alone")

        let anim = try #require(bench.routes.valid["anim.gif"])
        let other = try DownloaderTests.fetch(downloader, bench.url("/headed-redirect/max-age/60/anim.gif"))
        #expect(try DownloaderTests.body(other).bytes == anim)
        #expect(
            Self.fields(other.headers) == [FixtureRoutes.etag(anim), nil, "public, max-age=60", "image/gif", nil])
    }

    /// A 503 with Retry-After, then the same URL again on the same handle: the 200 carries no
    /// Retry-After.
    @Test func aRetriedSuccessCarriesNoEarlierRetryAfter() throws {
        let bench = try Bench()
        let downloader = try bench.downloader()
        let url = bench.url("/flaky/gradient.png?fail=1&retry-after=7")
        let busy = try DownloaderTests.fetch(downloader, url)
        #expect(try DownloaderTests.failure(busy).httpStatus == 503)
        #expect(busy.headers.retryAfter == "7")

        let done = try DownloaderTests.fetch(downloader, url)
        #expect(try DownloaderTests.body(done).status == 200)
        #expect(done.headers.retryAfter == nil)
        #expect(Self.fields(done.headers) == [nil, nil, nil, "image/png", nil])
    }
}
