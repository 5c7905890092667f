import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// `imgwarm prefetch capture.har` and `imgwarm verify capture.har` against the loopback server:
/// a HAR made in the test (its URLs need the server's port) in Chrome's shape (issue 33, item 1).
@Suite struct HARRunTests {
    static func entry(
        _ url: String, status: Int = 200, mimeType: String, redirect: String = "", body: [UInt8]? = nil,
        requestHeaders: [(String, String)] = [("accept", "image/webp,*/*")]
    ) -> [String: Any] {
        var content: [String: Any] = ["size": body?.count ?? 0, "mimeType": mimeType]
        if let body { content.merge(["text": Data(body).base64EncodedString(), "encoding": "base64"]) { $1 } }
        return [
            "_resourceType": "image", "startedDateTime": "2024-05-01T10:00:00.000Z", "time": 3,
            "request": [
                "method": "GET", "url": url, "httpVersion": "http/1.1",
                "headers": requestHeaders.map { ["name": $0.0, "value": $0.1] }, "queryString": [], "cookies": [],
                "headersSize": -1, "bodySize": 0,
            ],
            "response": [
                "status": status, "statusText": "", "httpVersion": "http/1.1", "cookies": [],
                "headers": [["name": "content-type", "value": mimeType]], "content": content, "redirectURL": redirect,
                "headersSize": -1, "bodySize": -1, "_transferSize": 100,
            ],
            "cache": [:], "timings": ["send": 0, "wait": 1, "receive": 1],
        ]
    }

    static func har(_ entries: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(
            withJSONObject: [
                "log": [
                    "version": "1.2", "creator": ["name": "WebInspector", "version": "537.36"],
                    "entries": entries,
                ]
            ])
    }

    /// The capture: an image, a redirect chain (entries 2 and 3), a page, the image again, a 304
    /// without a body, and an image known only by its extension.
    static func capture(_ h: PrefetchHarness) throws -> Data {
        let png = h.routes.valid["gradient.png"]
        return try har([
            entry(h.url("/img/gradient.png"), mimeType: "image/png", body: png),
            entry(
                h.url("/redirect/1/photo.jpg"), status: 302, mimeType: "text/html", redirect: h.url("/img/photo.jpg")),
            entry(h.url("/img/photo.jpg"), mimeType: "image/jpeg", body: h.routes.valid["photo.jpg"]),
            entry(h.url("/html"), mimeType: "text/html", body: Array("<html></html>".utf8)),
            entry(h.url("/img/gradient.png"), mimeType: "image/png", body: png),
            entry(h.url("/img/sticker.webp"), status: 304, mimeType: "image/webp"),
            entry(h.url("/octet/anim.gif"), mimeType: "x-unknown"),
        ])
    }

    @Test func prefetchThenVerifyACapture() throws {
        let h = try PrefetchHarness()
        let list = try h.temp.write("session.har", try Self.capture(h))
        let run = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(run.status == 0, "\(run.stderr)")
        let valid = h.routes.valid
        h.expectCache(exactly: [
            h.url("/img/gradient.png"): valid["gradient.png"]!,
            // The chain's first URL is the key; the bytes are the final response's.
            h.url("/redirect/1/photo.jpg"): valid["photo.jpg"]!,
            h.url("/img/sticker.webp"): valid["sticker.webp"]!,
            h.url("/octet/anim.gif"): valid["anim.gif"]!,
        ])
        #expect(try run.entry(line: 2)["outcome"] as? String == "downloaded")
        #expect(try run.entry(line: 5)["outcome"] as? String == "duplicate")
        #expect(try run.entries.map { $0["line"] as? Int ?? 0 }.sorted() == [1, 2, 5, 6, 7])
        // The page (entry 4) is counted, not listed; the chain's second entry is the chain's.
        #expect(try run.totals["notImages"] as? Int == 1)
        #expect(try run.totals["lines"] as? Int == 5)
        let inputs = try #require(try run.report["inputs"] as? [[String: Any]])
        #expect(inputs.first?["format"] as? String == "har")
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        #expect(schema.validate(try run.report) == [])

        let verify = try h.run(["verify", "--disk-cache-path", h.folder, list])
        #expect(verify.status == 0, "\(verify.result.stdoutText)\(verify.stderr)")
        let json = try h.run(["verify", "--disk-cache-path", h.folder, "--json", list])
        #expect(try json.entries.count == 4)
        #expect(try json.entries.allSatisfy { $0["verdict"] as? String == "hit" })
    }

    @Test func standardInputWithFormatHar() throws {
        let h = try PrefetchHarness()
        let run = try h.run(
            ["prefetch", "--disk-cache-path", h.folder, "--report", "-", "--format", "har", "-"],
            stdin: try Self.capture(h))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(h.cacheContents().count == 4)
    }

    /// Bad entries are invalid lines naming their entry; the good ones are stored; exit 1.
    @Test func badEntriesAreReportedAndTheGoodOnesStored() throws {
        let h = try PrefetchHarness()
        let good = String(
            decoding: try JSONSerialization.data(
                withJSONObject: Self.entry(h.url("/img/gradient.png"), mimeType: "image/png")),
            as: UTF8.self)
        let text =
            #"{"log": {"version": "1.2", "entries": ["# + good
            + #", {"request": {"url": 7}, "response": {"status": 200}}]}}"#
        let cut = String(text.dropLast(3))  // and the file is cut short
        let list = try h.temp.write("cut.har", Data(cut.utf8))
        let run = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(h.cacheContents().count == 1)
        let second = try run.entry(line: 2)
        #expect(second["outcome"] as? String == "invalid")
        let messages = try run.entries.compactMap { $0["errorMessage"] as? String }
        #expect(messages.contains("request.url must be a string, not a number"), "\(messages)")
        #expect(messages.contains { $0.hasPrefix("the HAR's JSON is broken at byte \(cut.utf8.count)") }, "\(messages)")
        #expect(run.stderr.contains("cut.har entry 2: "), "\(run.stderr)")
    }

    /// Item 2: the recorded Accept and User-Agent are sent (the server answers the app's variant
    /// only), the recorded Cookie and Authorization never, and no secret reaches a file.
    @Test func theAppsVariantHeadersAndNeverItsCredentials() throws {
        let h = try PrefetchHarness()
        let url = h.url("/variant/sticker.webp")
        let capture = try Self.har([
            Self.entry(
                url, mimeType: "image/webp",
                requestHeaders: [
                    (":authority", "127.0.0.1"), ("accept", "image/avif,image/webp,*/*"), ("accept-language", "fr-FR"),
                    ("user-agent", "MyApp/3.2 CFNetwork/1410"), ("cookie", "session=c00kie-s3cret"),
                    ("authorization", "Bearer t0ken-s3cret"),
                ])
        ])
        let list = try h.temp.write("app.har", capture)
        let run = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(run.status == 0, "\(run.stderr)")
        h.expectCache(exactly: [url: h.routes.valid["sticker.webp"]!])
        // The same URL from a plain list gets no variant: the headers came from the capture.
        let plain = try PrefetchHarness()
        let other = try plain.prefetch([plain.url("/variant/sticker.webp")])
        #expect(other.status == 1)
        #expect(try other.entry(line: 1)["httpStatus"] as? Int == 406)
        // No secret in the report, the output or any file imgwarm wrote.
        let output = run.result.stdoutText + run.stderr
        #expect(!output.contains("s3cret"))
        let files = FileManager.default.enumerator(atPath: h.temp.path("caches"))?.allObjects as? [String] ?? []
        for file in files {
            let bytes = FileManager.default.contents(atPath: h.temp.path("caches/" + file)) ?? Data()
            #expect(bytes.range(of: Data("s3cret".utf8)) == nil, "\(file)")
        }
        #expect(!files.isEmpty)
    }

    /// `--replay-credentials` sends the recorded Authorization (and only then).
    @Test func credentialsOnlyWhenAsked() throws {
        let basic = "Basic " + Data("\(FixtureRoutes.username):\(FixtureRoutes.password)".utf8).base64EncodedString()
        let h = try PrefetchHarness()
        let capture = try Self.har([
            Self.entry(h.url("/auth/gradient.png"), mimeType: "image/png", requestHeaders: [("Authorization", basic)])
        ])
        let list = try h.temp.write("signed-in.har", capture)
        func run(_ options: [String]) throws -> PrefetchHarness.Run {
            try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-"] + options + [list])
        }
        let without = try run([])
        #expect(without.status == 1)
        #expect(try without.entry(line: 1)["httpStatus"] as? Int == 401)
        // The 401 blacklisted the URL for this client; replaying the credentials is another
        // client (FetchConfiguration.clientFingerprint), so the same cache and state request it.
        let with = try run(["--replay-credentials"])
        #expect(with.status == 0, "\(with.stderr)")
        h.expectCache(exactly: [h.url("/auth/gradient.png"): h.routes.valid["gradient.png"]!])
        let options = try #require(try with.report["options"] as? [String: Any])
        #expect(options["replayCredentials"] as? Bool == true)
        #expect(!with.result.stdoutText.contains(String(basic.dropFirst(6))))
    }
}
