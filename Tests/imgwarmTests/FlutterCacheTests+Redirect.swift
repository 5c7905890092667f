import Foundation
import LoopbackServer
import TestSupport
import Testing

extension FlutterCacheTests {
    /// A row is the final response's, not a redirect's: `/headed-redirect/PATH`'s 302 carries an
    /// ETag, a year's Cache-Control and text/html. Behind it, a 200 with an ETag and `max-age=60`
    /// gives its own; a 200 with neither gives none and the library's default 7 days, and the
    /// file's extension is the 200's Content-Type's.
    @Test func aRowTakesTheFinalResponsesHeadersNotARedirects() throws {
        let s = try Setup()
        let other = s.h.url("/headed-redirect/max-age/60/anim.gif")
        let bare = s.h.url("/headed-redirect/headed-redirect/chunked/gradient.png")
        let before = Self.nowMilliseconds()
        let run = try s.h.run(["prefetch"] + s.options + ["--report", "-", try s.list([other, bare])])
        let after = Self.nowMilliseconds()
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try s.model.rows()

        let anim = try #require(s.h.routes.valid["anim.gif"])
        let otherRow = try #require(rows.first { $0.key == other })
        #expect(otherRow.eTag == FixtureRoutes.etag(anim))
        #expect(otherRow.validTill >= before + 60_000 && otherRow.validTill <= after + 60_000)
        #expect(otherRow.relativePath.hasSuffix(".gif"), "\(otherRow.relativePath)")

        let bareRow = try #require(rows.first { $0.key == bare })
        #expect(bareRow.eTag == nil)
        #expect(bareRow.validTill >= before + 7 * Self.day && bareRow.validTill <= after + 7 * Self.day)
        #expect(bareRow.relativePath.hasSuffix(".png"), "\(bareRow.relativePath)")
        #expect(rows.allSatisfy { $0.eTag != FixtureRoutes.redirectETag })
    }
}
