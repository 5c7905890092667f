import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// One test per route of the loopback server: the real binary, its report entry, its exit code,
/// and a cache folder holding exactly the valid images and nothing else.
@Suite struct PrefetchRouteTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var path: String
        var outcome: String
        var errorClass: String? = nil
        var status: Int? = nil
        /// The fixture (valid/NAME, or hostile/NAME for gzip) whose bytes must be stored.
        var stored: String? = nil
        var options: [String] = []
        var messageContains: String? = nil
        var testDescription: String { path }
    }

    static let images: [(String, String, Int, Int)] = [
        ("photo.jpg", "jpeg", 320, 240), ("gradient.png", "png", 200, 120), ("anim.gif", "gif", 48, 48),
        ("scan.tiff", "tiff", 96, 64), ("sticker.webp", "webp", 128, 128), ("photo.heic", "heic", 64, 64),
        ("photo.avif", "avif", 64, 64), ("icon.bmp", "bmp", 32, 24),
    ]

    /// Valid images of every format are stored byte for byte, with format and size reported.
    @Test(arguments: images)
    func validImage(name: String, format: String, width: Int, height: Int) throws {
        let h = try PrefetchHarness()
        let key = h.url("/img/\(name)")
        let run = try h.prefetch([key])
        #expect(run.status == 0, "\(run.stderr)")
        let entry = try run.entry(line: 1)
        #expect(entry["outcome"] as? String == "downloaded")
        #expect(entry["format"] as? String == format)
        #expect(entry["width"] as? Int == width)
        #expect(entry["height"] as? Int == height)
        #expect(entry["httpStatus"] as? Int == 200)
        #expect(entry["fileName"] as? String == SDFileName.forKey(key))
        let body = try #require(h.routes.valid[name])
        #expect(entry["bytes"] as? Int == body.count)
        h.expectCache(exactly: [key: body])
    }

    static let failures: [Case] = [
        Case(path: "/status/404", outcome: "failed", errorClass: "http-status", status: 404),
        Case(path: "/status/410", outcome: "failed", errorClass: "http-status", status: 410),
        Case(
            path: "/status/500", outcome: "failed", errorClass: "http-status", status: 500, options: ["--retries", "0"]),
        Case(
            path: "/status/503", outcome: "failed", errorClass: "http-status", status: 503, options: ["--retries", "0"]),
        Case(path: "/status/429?retry-after=120", outcome: "failed", errorClass: "http-status", status: 429),
        Case(
            path: "/slow-headers/photo.jpg?delay=4", outcome: "failed", errorClass: "timeout",
            options: ["--timeout", "1", "--retries", "0"], messageContains: "no data for 1.0 s"),
        Case(
            path: "/trickle/photo.jpg?interval=0.3", outcome: "failed", errorClass: "timeout",
            options: ["--max-time", "1.5", "--retries", "0"], messageContains: "--max-time"),
        Case(
            path: "/stall/photo.jpg?after=500", outcome: "failed", errorClass: "timeout",
            options: ["--timeout", "1", "--retries", "0"], messageContains: "no data"),
        Case(path: "/reset", outcome: "failed", errorClass: "connection-lost", options: ["--retries", "0"]),
        Case(
            path: "/reset-mid/photo.jpg", outcome: "failed", errorClass: "connection-lost", options: ["--retries", "0"]),
        Case(
            path: "/truncated/photo.jpg", outcome: "failed", errorClass: "truncated", status: 200,
            options: ["--retries", "0"]),
        Case(
            path: "/html", outcome: "failed", errorClass: "not-an-image", status: 200,
            messageContains: "<!doctype html>"),
        Case(path: "/empty", outcome: "failed", errorClass: "empty-body", status: 200),
        // Their declared structure runs past the end of the body.
        // JPEG magic bytes and nothing valid after them: damaged, not cut short (so blacklisted).
        Case(
            path: "/hostile/corrupt.jpg", outcome: "failed", errorClass: "decode-failed", status: 200,
            messageContains: "marker segment"),
        Case(
            path: "/jpeg-garbage", outcome: "failed", errorClass: "decode-failed", status: 200,
            messageContains: "marker"),
        Case(
            path: "/hostile/header-only.gif", outcome: "failed", errorClass: "truncated", status: 200,
            options: ["--retries", "0"], messageContains: "trailer"),
        Case(
            path: "/hostile/huge-dimensions.png", outcome: "failed", errorClass: "image-too-large", status: 200,
            messageContains: "60000×60000"),
        Case(
            path: "/large?bytes=3000000", outcome: "failed", errorClass: "too-large", options: ["--max-bytes", "1MiB"]),
        Case(
            path: "/large?bytes=3000000&chunked=1", outcome: "failed", errorClass: "too-large", status: 200,
            options: ["--max-bytes", "1MiB"]),
        Case(path: "/bomb", outcome: "failed", errorClass: "too-large", status: 200, messageContains: "after decoding"),
        Case(
            path: "/loop", outcome: "failed", errorClass: "too-many-redirects", options: ["--max-redirects", "5"],
            messageContains: "more than 5"),
        Case(path: "/to-file", outcome: "failed", errorClass: "redirect-not-allowed"),
        Case(path: "/to-ftp", outcome: "failed", errorClass: "redirect-not-allowed"),
        Case(path: "/auth/photo.jpg", outcome: "failed", errorClass: "http-status", status: 401),
        Case(path: "/gated/photo.jpg", outcome: "failed", errorClass: "http-status", status: 403),
        Case(
            path: "/redirect/3/photo.jpg", outcome: "failed", errorClass: "too-many-redirects",
            options: ["--max-redirects", "2"]),
        Case(
            path: "/hostile/truncated.jpg", outcome: "failed", errorClass: "truncated", status: 200,
            options: ["--retries", "0"], messageContains: "end-of-image marker"),
        Case(
            path: "/short-length/photo.jpg", outcome: "failed", errorClass: "truncated", status: 200,
            options: ["--retries", "0"], messageContains: "cut short"),
        Case(
            path: "/short-length/gradient.png", outcome: "failed", errorClass: "truncated", status: 200,
            options: ["--retries", "0"], messageContains: "IEND"),
        Case(
            path: "/short-length/anim.gif", outcome: "failed", errorClass: "truncated", status: 200,
            options: ["--retries", "0"], messageContains: "trailer"),
        Case(
            path: "/short-length/sticker.webp", outcome: "failed", errorClass: "truncated", status: 200,
            options: ["--retries", "0"], messageContains: "WebP"),
        Case(
            path: "/short-length/icon.bmp", outcome: "failed", errorClass: "truncated", status: 200,
            options: ["--retries", "0"], messageContains: "BMP"),
        Case(
            path: "/hostile/lying-chunk.png", outcome: "failed", errorClass: "decode-failed", status: 200,
            messageContains: "declares 2147483632 bytes"),
        Case(path: "/huge-headers", outcome: "failed", errorClass: "too-large", messageContains: "headers"),
        // Answers that are not HTTP/1.x are not redirects.
        Case(path: "/http09", outcome: "failed", errorClass: "bad-response", messageContains: "HTTP/0.9"),
        Case(path: "/garbage-status", outcome: "failed", errorClass: "bad-response", messageContains: "response code"),
        Case(path: "/huge-header-line", outcome: "failed", errorClass: "too-large", messageContains: "header"),
        // A stall after a burst: `--timeout` counts from the last byte received.
        Case(
            path: "/burst-stall/photo.jpg?after=2000&stall=5", outcome: "failed", errorClass: "timeout",
            options: ["--timeout", "2", "--retries", "0"], messageContains: "no data for 2.0 s (--timeout)"),
    ]

    /// Each misbehaving route fails with its precise class, exit code 1, and leaves nothing.
    @Test(arguments: failures)
    func failingRoute(_ c: Case) throws {
        let h = try PrefetchHarness()
        let run = try h.prefetch([h.url(c.path)], options: c.options)
        #expect(run.status == 1, "\(run.stderr)")
        let entry = try run.entry(line: 1)
        #expect(entry["outcome"] as? String == c.outcome)
        #expect(entry["errorClass"] as? String == c.errorClass)
        if let status = c.status { #expect(entry["httpStatus"] as? Int == status) }
        if let text = c.messageContains {
            #expect((entry["errorMessage"] as? String)?.contains(text) == true, "\(entry["errorMessage"] ?? "")")
        }
        #expect(try run.totals["failed"] as? Int == 1)
        #expect(try run.totals["skippedCount"] as? Int == 1)
        #expect(run.stderr.contains(c.errorClass ?? "?"), "the failure is printed: \(run.stderr)")
        h.expectCache(exactly: [:])
    }

    static let successes: [Case] = [
        Case(path: "/redirect/3/photo.jpg", outcome: "downloaded", stored: "valid/photo.jpg"),
        Case(path: "/chunked/photo.jpg", outcome: "downloaded", stored: "valid/photo.jpg"),
        Case(path: "/octet/gradient.png", outcome: "downloaded", stored: "valid/gradient.png"),
        Case(path: "/gzip/gradient.png", outcome: "downloaded", stored: "valid/gradient.png"),
        Case(
            path: "/gated/photo.jpg", outcome: "downloaded", stored: "valid/photo.jpg",
            options: ["--header", "X-Token: \(FixtureRoutes.token)"]),
        Case(path: "/hostile/damaged-scan.jpg", outcome: "downloaded", stored: "hostile/damaged-scan.jpg"),
        // A pause shorter than --timeout is not inactivity.
        Case(
            path: "/burst-stall/photo.jpg?after=2000&stall=1", outcome: "downloaded", stored: "valid/photo.jpg",
            options: ["--timeout", "3"]),
    ]

    /// Routes that deliver a valid image in an unusual way: stored under the original key,
    /// with the decoded bytes.
    @Test(arguments: successes)
    func succeedingRoute(_ c: Case) throws {
        let h = try PrefetchHarness()
        let key = h.url(c.path)
        let run = try h.prefetch([key], options: c.options)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.entry(line: 1)["outcome"] as? String == c.outcome)
        let body = [UInt8](try Fixtures.data("images/" + (c.stored ?? "")))
        h.expectCache(exactly: [key: body])
    }

    /// Two different `Content-Length` headers make the answer unusable (RFC 9112 §6.3): a
    /// permanent `bad-response`, requested once and blacklisted. libcurl 7.88 keeps the last
    /// length, so the run used to see a cut body and retry it as `truncated`.
    @Test func conflictingContentLengthsAreABadResponse() throws {
        let h = try PrefetchHarness()
        let key = h.url("/two-lengths/photo.jpg")
        let run = try h.prefetch([key])
        #expect(run.status == 1, "\(run.stderr)")
        let entry = try run.entry(line: 1)
        #expect(entry["errorClass"] as? String == "bad-response")
        #expect(entry["errorKind"] as? String == "permanent")
        #expect(entry["httpStatus"] as? Int == 200)
        let body = h.routes.valid["photo.jpg"]!.count
        #expect(
            (entry["errorMessage"] as? String)?.contains(
                "two different Content-Length values (\(body) and \(2 * body))")
                == true, "\(entry["errorMessage"] ?? "")")
        #expect(h.server.requests.count == 1, "not retried")
        h.expectCache(exactly: [:])
        let again = try h.prefetch([key])
        #expect(try again.entry(line: 1)["outcome"] as? String == "blacklisted")
        #expect(h.server.requests.count == 1, "skipped without a request")
    }

    /// Damaged scan data in a structurally complete JPEG passes a header check (see
    /// `succeedingRoute`) but not a full decode.
    @Test func fullValidationRejectsDamagedPixels() throws {
        let h = try PrefetchHarness()
        let run = try h.prefetch([h.url("/hostile/damaged-scan.jpg")], options: ["--validate", "full"])
        #expect(run.status == 1)
        let entry = try run.entry(line: 1)
        #expect(entry["errorClass"] as? String == "decode-failed")
        #expect((entry["errorMessage"] as? String)?.contains("Corrupt JPEG data") == true)
        h.expectCache(exactly: [:])
    }

    /// Basic auth from a netrc file; the password appears nowhere in the output.
    @Test func basicAuthFromNetrc() throws {
        let h = try PrefetchHarness()
        let netrc = try h.temp.write(
            "netrc", Data("machine 127.0.0.1 login \(FixtureRoutes.username) password \(FixtureRoutes.password)\n".utf8)
        )
        let key = h.url("/auth/photo.jpg")
        let run = try h.prefetch([key], options: ["--netrc-file", netrc, "--verbose"])
        #expect(run.status == 0, "\(run.stderr)")
        h.expectCache(exactly: [key: h.routes.valid["photo.jpg"]!])
        #expect(!run.result.stdoutText.contains(FixtureRoutes.password))
        #expect(!run.stderr.contains(FixtureRoutes.password))
    }

    /// Credentials in the URL are used, and hidden in the report and on standard error.
    @Test func credentialsInTheURLAreNeverPrinted() throws {
        let h = try PrefetchHarness()
        let good =
            "http://\(FixtureRoutes.username):\(FixtureRoutes.password)@127.0.0.1:\(h.server.port)/auth/photo.jpg"
        let bad =
            "http://\(FixtureRoutes.username):wrong-\(FixtureRoutes.password)@127.0.0.1:\(h.server.port)/auth/gradient.png"
        let run = try h.prefetch([good, bad], options: ["--verbose"])
        #expect(run.status == 1)
        #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(try run.entry(line: 2)["httpStatus"] as? Int == 401)
        #expect(
            try run.entry(line: 1)["url"] as? String
                == "http://\(FixtureRoutes.username):***@127.0.0.1:\(h.server.port)/auth/photo.jpg")
        #expect(!run.result.stdoutText.contains(FixtureRoutes.password))
        #expect(!run.stderr.contains(FixtureRoutes.password))
        // The cache key (and so the file name) is the URL as written, credentials included.
        h.expectCache(exactly: [good: h.routes.valid["photo.jpg"]!])
    }
}
