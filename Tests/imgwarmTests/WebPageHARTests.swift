import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// A HAR captured from a web page (issue 48, item 1): favicons (`image/x-icon` and the IANA type
/// `image/vnd.microsoft.icon`) are stored as any image for every format; SVG icons are
/// `unsupported` (not a failure, not blacklisted, no change to the exit status) unless
/// `--accept-svg` stores them; verify reports such a line as `unsupported`, not as a miss.
@Suite struct WebPageHARTests {
    /// A 1×1 transparent GIF, as analytics pixels are.
    static let trackingGIF = [UInt8](Data(base64Encoded: "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")!)

    /// An entry whose body is recorded as plain text (as Chrome records an SVG).
    static func textEntry(_ url: String, mimeType: String, text: String) -> [String: Any] {
        var entry = HARRunTests.entry(url, mimeType: mimeType)
        var response = entry["response"] as! [String: Any]
        response["content"] = ["size": text.utf8.count, "mimeType": mimeType, "text": text]
        entry["response"] = response
        return entry
    }

    /// The page, its SVG logo, its favicon under both MIME types, a PNG, a WebP and a tracking
    /// GIF; the images' URLs are the loopback server's. Line → what it is.
    static func capture(_ h: PrefetchHarness) throws -> (har: Data, svg: String, rasters: [String: [UInt8]]) {
        let valid = h.routes.valid
        let ico = try #require(valid["favicon.ico"])
        let svg = String(decoding: try #require(h.routes.vector["logo.svg"]), as: UTF8.self)
        h.routes.setDynamic("pixel.gif", .init(body: trackingGIF, contentType: "image/gif"))
        h.routes.setDynamic("favicon", .init(body: ico, contentType: "image/vnd.microsoft.icon"))
        let rasters: [String: [UInt8]] = [
            h.url("/img/favicon.ico"): ico, h.url("/dynamic/favicon"): ico,
            h.url("/img/gradient.png"): valid["gradient.png"]!, h.url("/img/sticker.webp"): valid["sticker.webp"]!,
            h.url("/dynamic/pixel.gif"): trackingGIF,
        ]
        let har = try HARRunTests.har([
            textEntry(h.url("/html"), mimeType: "text/html", text: "<!doctype html><title>Shop</title>"),
            textEntry(h.url("/img/logo.svg"), mimeType: "image/svg+xml", text: svg),
            HARRunTests.entry(h.url("/img/favicon.ico"), mimeType: "image/x-icon", body: ico),
            HARRunTests.entry(h.url("/dynamic/favicon"), mimeType: "image/vnd.microsoft.icon", body: ico),
            HARRunTests.entry(h.url("/img/gradient.png"), mimeType: "image/png", body: valid["gradient.png"]),
            HARRunTests.entry(h.url("/img/sticker.webp"), mimeType: "image/webp", body: valid["sticker.webp"]),
            HARRunTests.entry(h.url("/dynamic/pixel.gif"), mimeType: "image/gif", body: trackingGIF),
        ])
        return (har, h.url("/img/logo.svg"), rasters)
    }

    static func options(_ format: String, _ h: PrefetchHarness) -> [String] {
        ["--cache-format", format, "--disk-cache-path", h.temp.path("cache-" + format)]
    }

    /// The acceptance run of the issue: offline, exit 0 for sdwebimage and glide, every raster
    /// image a hit, the SVG `unsupported` in the report and in verify.
    @Test(arguments: ["sdwebimage", "glide"])
    func webPageCaptureSeedsOfflineWithExitZero(format: String) throws {
        let h = try PrefetchHarness()
        let capture = try Self.capture(h)
        let list = try h.temp.write("page.har", capture.har)
        let options = Self.options(format, h)
        let run = try h.run(["prefetch", "--offline", "--report", "-"] + options + [list])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(h.server.requests.isEmpty)
        let outcomes = Dictionary(
            uniqueKeysWithValues: try run.entries.map { ($0["url"] as? String ?? "", $0["outcome"] as? String ?? "") })
        #expect(outcomes[capture.svg] == "unsupported", "\(outcomes)")
        for url in capture.rasters.keys { #expect(outcomes[url] == "downloaded", "\(url): \(outcomes)") }
        let svgEntry = try run.entry(line: 2)
        #expect(svgEntry["errorClass"] as? String == "unsupported")
        #expect(svgEntry["errorKind"] is NSNull)
        #expect((svgEntry["errorMessage"] as? String)?.contains("--accept-svg") == true, "\(svgEntry)")
        #expect(try run.entry(line: 3)["format"] as? String == "ico")
        #expect(try run.entry(line: 4)["format"] as? String == "ico")
        let totals = try run.totals
        #expect(totals["unsupported"] as? Int == 1)
        #expect(totals["skippedCount"] as? Int == 0)
        #expect(totals["failed"] as? Int == 0)
        #expect(totals["downloaded"] as? Int == capture.rasters.count)
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        #expect(schema.validate(try run.report) == [])
        #expect(run.stderr.contains("nothing failed; 1 unsupported (SVG"), "\(run.stderr)")
        #expect(!run.stderr.contains("not-an-image"), "\(run.stderr)")

        let verify = try h.run(["verify", "--json"] + options + [list])
        #expect(verify.status == 0, "\(verify.result.stdoutText)\(verify.stderr)")
        let verdicts = Dictionary(
            uniqueKeysWithValues: try verify.entries.map {
                ($0["url"] as? String ?? "", $0["verdict"] as? String ?? "")
            })
        #expect(verdicts[capture.svg] == "unsupported", "\(verdicts)")
        for url in capture.rasters.keys { #expect(verdicts[url] == "hit", "\(url): \(verdicts)") }
        let verifyTotals = try #require(try verify.report["totals"] as? [String: Any])
        #expect(verifyTotals["misses"] as? Int == 0)
        #expect(verifyTotals["unsupported"] as? Int == 1)
        let verifySchema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/verify-report.schema.json"))
        #expect(verifySchema.validate(try verify.report) == [])
        let text = try h.run(["verify"] + options + [list])
        #expect(text.status == 0)
        #expect(text.result.stdoutText.contains("page.har entry 2: \(capture.svg): unsupported: an SVG image"))
        #expect(text.result.stdoutText.contains("1 unsupported"), "\(text.result.stdoutText)")
    }

    /// Online: the SVG is never requested nor blacklisted; the favicons are downloaded and
    /// validated (ImageMagick's ICO coder) under both MIME types; a second run finds every image.
    @Test func onlineTheSVGIsNotRequested() throws {
        let h = try PrefetchHarness()
        let capture = try Self.capture(h)
        let list = try h.temp.write("page.har", capture.har)
        let run = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!h.server.requests.contains { $0.path.hasSuffix(".svg") })
        h.expectCache(exactly: capture.rasters)
        let again = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try again.totals["cached"] as? Int == capture.rasters.count)
        #expect(try again.totals["unsupported"] as? Int == 1)
        let blacklist = try h.run(["blacklist", "list", "--disk-cache-path", h.folder])
        #expect(!blacklist.result.stdoutText.contains("svg"), "\(blacklist.result.stdoutText)")
    }

    /// `--accept-svg`: the SVG is stored (checked as well-formed SVG, its size from its
    /// attributes) and verify finds it; a malformed one fails as not-an-image.
    @Test func acceptSVGStoresWellFormedSVG() throws {
        let h = try PrefetchHarness()
        let capture = try Self.capture(h)
        let list = try h.temp.write("page.har", capture.har)
        let run = try h.run([
            "prefetch", "--offline", "--accept-svg", "--disk-cache-path", h.folder, "--report", "-", list,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let svg = try run.entry(line: 2)
        #expect(svg["outcome"] as? String == "downloaded")
        #expect(svg["format"] as? String == "svg")
        #expect(svg["width"] as? Int == 48 && svg["height"] as? Int == 32, "\(svg)")
        #expect(try (run.report["options"] as? [String: Any])?["acceptSVG"] as? Bool == true)
        var expected = capture.rasters
        expected[capture.svg] = h.routes.vector["logo.svg"]
        h.expectCache(exactly: expected)
        let verify = try h.run(["verify", "--json", "--disk-cache-path", h.folder, list])
        #expect(verify.status == 0, "\(verify.result.stdoutText)\(verify.stderr)")
        let entry = try #require(try verify.entries.first { $0["url"] as? String == capture.svg })
        #expect(entry["verdict"] as? String == "hit")
        #expect(entry["imageFormat"] as? String == "svg")

        let broken = try HARRunTests.har([
            Self.textEntry(h.url("/x/broken.svg"), mimeType: "image/svg+xml", text: "<svg><g></svg>")
        ])
        let brokenList = try h.temp.write("broken.har", broken)
        let failed = try h.run([
            "prefetch", "--offline", "--accept-svg", "--disk-cache-path", h.folder, "--report", "-", brokenList,
        ])
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(try failed.entry(line: 1)["errorClass"] as? String == "not-an-image")
        #expect(failed.stderr.contains("not a well-formed SVG document"), "\(failed.stderr)")
    }

    /// A plain list's SVG URL is downloaded (nothing says what it is before), then judged:
    /// `unsupported`, not blacklisted, exit 0; an ICO URL is stored.
    @Test func aDownloadedSVGIsUnsupported() throws {
        let h = try PrefetchHarness()
        let run = try h.prefetch([h.url("/img/logo.svg"), h.url("/img/favicon.ico")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.entry(line: 1)["outcome"] as? String == "unsupported")
        #expect(try run.entry(line: 2)["outcome"] as? String == "downloaded")
        h.expectCache(exactly: [h.url("/img/favicon.ico"): h.routes.valid["favicon.ico"]!])
        let blacklist = try h.run(["blacklist", "list", "--disk-cache-path", h.folder])
        #expect(!blacklist.result.stdoutText.contains("logo.svg"), "\(blacklist.result.stdoutText)")
    }
}
