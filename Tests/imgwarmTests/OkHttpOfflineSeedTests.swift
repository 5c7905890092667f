import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `prefetch --offline` into an OkHttp cache from a HAR (issue 47): each `<key>.0` carries the
/// capture's response (status line, headers rewritten for the decoded body, the `Vary` request
/// headers), moved by the capture's age. OkHttp's own `Cache` (Debian's libokhttp-java) then
/// serves with no network exactly the entries whose recorded headers made them fresh when the app
/// received them, a month ago, and `verify` agrees with it entry by entry.
@Suite(.enabled(if: OkHttpJava.available, Comment(rawValue: OkHttpJava.missing)))
struct OkHttpOfflineSeedTests {
    struct Recorded {
        var url: String
        var body: [UInt8]
        var headers: [(String, String)]
        var request: [(String, String)] = []
        var httpVersion = "HTTP/1.1"
        var statusText = "OK"
        /// What OkHttp's CacheStrategy makes of the recorded headers, as the app got them.
        var fresh: Bool
        /// Whether a FORCE_CACHE request gets it (`no-cache` makes OkHttp ask the server even then).
        var forced = true
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func har(_ entries: [Recorded], capturedAt: Date) throws -> Data {
        let started = ISO8601DateFormatter()
        started.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let items: [[String: Any]] = entries.map { entry in
            [
                "startedDateTime": started.string(from: capturedAt), "time": 85.5,
                "request": [
                    "method": "GET", "url": entry.url, "httpVersion": entry.httpVersion,
                    "headers": entry.request.map { ["name": $0.0, "value": $0.1] },
                ],
                "response": [
                    "status": 200, "statusText": entry.statusText, "httpVersion": entry.httpVersion,
                    "headers": entry.headers.map { ["name": $0.0, "value": $0.1] },
                    "content": [
                        "size": entry.body.count, "mimeType": "image/png",
                        "text": Data(entry.body).base64EncodedString(), "encoding": "base64",
                    ],
                ],
            ]
        }
        return try JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "entries": items]])
    }

    @Test func okHttpServesTheFreshSeedsOfAMonthOldCaptureOffline() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/http_cache")
        let captured = Date().addingTimeInterval(-30 * 86400)
        let date = Self.httpDate(captured)
        let valid = h.routes.valid
        let base = "http://cdn.example.com/"
        let gzipped = try #require(h.routes.hostile["gradient.png.gz"])
        let entries = [
            Recorded(
                url: base + "max-age.jpg", body: valid["photo.jpg"]!,
                headers: [("Date", date), ("Cache-Control", "public, max-age=3600"), ("ETag", "\"a\"")], fresh: true),
            // Fresh for two hours by Expires − Date: a month later only if both dates move.
            Recorded(
                url: base + "expires.png", body: valid["gradient.png"]!,
                headers: [("Date", date), ("Expires", Self.httpDate(captured.addingTimeInterval(7200)))], fresh: true),
            // Fresh for a tenth of Date − Last-Modified (10 days).
            Recorded(
                url: base + "modified.gif", body: valid["anim.gif"]!,
                headers: [("Date", date), ("Last-Modified", Self.httpDate(captured.addingTimeInterval(-100 * 86400)))],
                fresh: true),
            // Stored by the capture gzip-encoded: the HAR's text is the decoded body, which is stored.
            Recorded(
                url: base + "gzip.png", body: valid["gradient.png"]!,
                headers: [
                    ("Date", date), ("Cache-Control", "max-age=600"), ("Content-Encoding", "gzip"),
                    ("Content-Length", "\(gzipped.count)"), ("Vary", "Accept-Encoding"),
                    ("Transfer-Encoding", "chunked"), ("Set-Cookie", "session=secret"),
                ], request: [("Accept-Encoding", "gzip"), ("Cookie", "session=secret")], fresh: true),
            // An HTTP/2 capture: no status text, pseudo-headers recorded.
            Recorded(
                url: base + "h2.webp", body: valid["sticker.webp"]!,
                headers: [(":status", "200"), ("date", date), ("cache-control", "max-age=86400")], httpVersion: "h2",
                statusText: "", fresh: true),
            Recorded(
                url: "https://cdn.example.com/tls.jpg", body: valid["photo.jpg"]!,
                headers: [("Date", date), ("Cache-Control", "max-age=3600")], fresh: true),
            Recorded(
                url: base + "revalidate.png", body: valid["gradient.png"]!,
                headers: [("Date", date), ("Cache-Control", "max-age=0"), ("ETag", "\"b\"")], fresh: false),
            Recorded(url: base + "bare.gif", body: valid["anim.gif"]!, headers: [("Date", date)], fresh: false),
            Recorded(
                url: base + "no-cache.webp", body: valid["sticker.webp"]!,
                headers: [("Date", date), ("Cache-Control", "no-cache, max-age=3600")], fresh: false, forced: false),
            // Fresh an hour when received, a month ago: stale now.
            Recorded(
                url: base + "hour.jpg", body: valid["photo.jpg"]!,
                headers: [
                    ("Date", Self.httpDate(captured.addingTimeInterval(-3 * 3600))), ("Cache-Control", "max-age=3600"),
                ],
                fresh: false),
        ]
        let har = try h.temp.write("capture.har", try Self.har(entries, capturedAt: captured))
        let run = try h.run([
            "prefetch", "--offline", "--cache-format", "okhttp", "--disk-cache-path", folder, "--report", "-", har,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.totals["downloaded"] as? Int == entries.count, "\(run.stderr)")
        #expect(run.stderr.contains("4 stored responses will not be served offline"), "\(run.stderr)")

        let urls = entries.map(\.url)
        let reads = try OkHttpJava.read(folder: folder, urls: urls)
        for (entry, read) in zip(entries, reads) {
            let md5 = MD5.digest(entry.body).hex
            #expect((read.forced == "200" && read.forcedMD5 == md5) == entry.forced, "\(entry.url): \(read)")
            if entry.fresh {
                #expect(read.plain == "200" && read.plainMD5 == md5, "\(entry.url) is fresh offline: \(read)")
            } else {
                #expect(read.plain == "offline", "\(entry.url) is stale: \(read)")
            }
        }
        let verify = try h.run(["verify", "--json", "--cache-format", "okhttp", "--disk-cache-path", folder, har])
        let verdicts = try verify.entries.map { $0["verdict"] as? String ?? "" }
        #expect(verdicts == reads.map { $0.plain == "200" ? "hit" : "stale" }, "\(verdicts) \(reads)")
        #expect(verify.status == 1)

        // The gzip entry's metadata describes the stored body, carries no cookie, and keeps the
        // recorded request's Accept-Encoding for its Vary.
        let gzipKey = MD5.digest(Array(entries[3].url.utf8)).hex
        let metadata = try String(contentsOfFile: folder + "/\(gzipKey).0", encoding: .utf8)
        #expect(!metadata.contains("Content-Encoding") && !metadata.contains("secret"), "\(metadata)")
        #expect(!metadata.contains("Transfer-Encoding"), "\(metadata)")
        #expect(metadata.contains("\nContent-Length: \(entries[3].body.count)\n"), "\(metadata)")
        #expect(
            metadata.hasPrefix(entries[3].url + "\nGET\n1\nAccept-Encoding: gzip\nHTTP/1.1 200 OK\n"), "\(metadata)")
        let h2Key = MD5.digest(Array(entries[4].url.utf8)).hex
        let h2 = try String(contentsOfFile: folder + "/\(h2Key).0", encoding: .utf8)
        #expect(h2.contains("\nHTTP/1.1 200 OK\n") && !h2.contains(":status"), "\(h2)")

        // --freshness still overrides what the capture recorded.
        let forced = h.temp.path("cache/forced")
        let override = try h.run([
            "prefetch", "--offline", "--cache-format", "okhttp", "--disk-cache-path", forced, "--freshness", "1d", har,
        ])
        #expect(override.status == 0, "\(override.stderr)")
        #expect(try OkHttpJava.read(folder: forced, urls: urls).allSatisfy { $0.plain == "200" })
    }
}
