import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// okhttp, picasso and coil1 (issue 36): what imgwarm stores is read by OkHttp's own `Cache`
/// (Debian's libokhttp-java, OkHttp 3.13.1, `Tests/Fixtures/okhttp/CacheProbe.java`) with no
/// network: a `CacheControl.FORCE_CACHE` request gets the stored image for every entry, a plain
/// request only for the entries its `CacheStrategy` finds fresh.
@Suite(.enabled(if: OkHttpJava.available, Comment(rawValue: OkHttpJava.missing)))
struct OkHttpCacheTests {
    static func md5(_ bytes: [UInt8]) -> String { MD5.digest(bytes).hex }

    /// Runs `imgwarm prefetch` of `urls` into `folder` as `format`.
    static func prefetch(
        _ h: PrefetchHarness, _ urls: [String], folder: String, format: String = "picasso", options: [String] = []
    ) throws -> PrefetchHarness.Run {
        let list = try h.temp.write("list-\(UUID().uuidString).txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        return try h.run(
            ["prefetch", "--cache-format", format, "--disk-cache-path", folder, "--report", "-"] + options + [list])
    }

    @Test func okHttpServesEveryEntryForcedAndTheFreshOnesOffline() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/picasso-cache")
        let valid = h.routes.valid
        let cases: [(url: String, body: [UInt8], fresh: Bool)] = [
            (h.url("/max-age/3600/photo.jpg"), valid["photo.jpg"]!, true),
            (h.url("/max-age/0/gradient.png"), valid["gradient.png"]!, false),
            (h.url("/octet/anim.gif"), valid["anim.gif"]!, false),
            // Written as the app might; OkHttp keys the canonical form.
            ("HTTP" + h.url("/max-age/3600/./sticker.webp").dropFirst(4), valid["sticker.webp"]!, true),
        ]
        let run = try Self.prefetch(h, cases.map(\.url), folder: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let options = try run.report["options"] as? [String: Any]
        #expect(options?["userAgent"] as? String == "okhttp/3.12.13", "Picasso's OkHttp's User-Agent was sent")
        let reads = try OkHttpJava.read(folder: folder, urls: cases.map(\.url))
        for (entry, read) in zip(cases, reads) {
            #expect(read.forced == "200" && read.forcedMD5 == Self.md5(entry.body), "\(entry.url): \(read)")
            if entry.fresh {
                #expect(read.plain == "200" && read.plainMD5 == Self.md5(entry.body), "\(entry.url): \(read)")
            } else {
                #expect(read.plain == "offline", "\(entry.url) is stale: OkHttp must go to the network, \(read)")
            }
        }
    }

    /// An https entry's metadata ends with the handshake OkHttp's reader needs (without it OkHttp
    /// never serves an https entry): the session's cipher suite and version as libcurl's OpenSSL
    /// names them, and the server's real certificate.
    @Test func httpsEntriesCarryTheServersHandshake() throws {
        let h = try PrefetchHarness()
        let photo = h.routes.valid["photo.jpg"]!
        try h.temp.write("www/photo.jpg", Data(photo))
        let server = try TLSTests.TLSServer(folder: h.temp, documentRoot: h.temp.path("www"))
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/photo.jpg"
        let folder = h.temp.path("cache/picasso-cache")
        let run = try Self.prefetch(h, [url], folder: folder, options: ["--cacert", server.certificate])
        #expect(run.status == 0, "\(run.stderr)")
        let key = MD5.digest(Array(url.utf8)).hex
        let metadata = try String(contentsOfFile: folder + "/\(key).0", encoding: .utf8)
        let pem = try String(contentsOfFile: server.certificate, encoding: .utf8)
        let der = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let lines = metadata.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // "", cipher suite, 1, the certificate, 0 local certificates, TLS version, and the final newline.
        let tail = Array(lines.suffix(7))
        #expect(tail.count == 7 && tail[0] == "" && tail[1].hasPrefix("TLS_") && tail[2] == "1", "\(metadata)")
        #expect(tail.count == 7 && tail[3] == der && tail[4] == "0" && tail[5].hasPrefix("TLSv1."), "\(metadata)")
        let read = try #require(try OkHttpJava.read(folder: folder, urls: [url]).first)
        #expect(read.forced == "200" && read.forcedMD5 == Self.md5(photo), "\(read)")
    }

    /// OkHttp asks with `Accept-Encoding: gzip`: a `Vary: Accept-Encoding` entry matches only
    /// when the stored request says the same, and a gzip body is stored still encoded (OkHttp
    /// decodes it when it reads the cache), while imgwarm validated what it decodes to.
    @Test func varyAcceptEncodingEntriesMatchWithGzipAndIdentityBodies() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/image_cache")
        let gradient = h.routes.valid["gradient.png"]!
        let photo = h.routes.valid["photo.jpg"]!
        let urls = [h.url("/vary/gradient.png"), h.url("/vary/photo.jpg"), h.url("/gzip/gradient.png")]
        let run = try Self.prefetch(h, urls, folder: folder, format: "coil1")
        #expect(run.status == 0, "\(run.stderr)")
        let key = MD5.digest(Array(urls[0].utf8)).hex
        let stored = FileManager.default.contents(atPath: folder + "/\(key).1").map([UInt8].init)
        #expect(stored == h.routes.hostile["gradient.png.gz"], "the gzip body is stored as received")
        let metadata = try String(contentsOfFile: folder + "/\(key).0", encoding: .utf8)
        #expect(metadata.hasPrefix(urls[0] + "\nGET\n1\nAccept-Encoding: gzip\nHTTP/1.1 200 "), "\(metadata)")
        #expect(metadata.contains("\nContent-Encoding: gzip\n"), "\(metadata)")
        let reads = try OkHttpJava.read(folder: folder, urls: urls)
        let bodies = [gradient, photo, gradient]
        for (index, read) in reads.enumerated() {
            #expect(read.forced == "200" && read.forcedMD5 == Self.md5(bodies[index]), "\(urls[index]): \(read)")
        }
        #expect(reads[0].plain == "200" && reads[1].plain == "200", "max-age=3600: served offline, \(reads)")
        #expect(reads[2].plain == "offline", "no caching headers: OkHttp revalidates, \(reads)")
        // A gzip body is an image once decoded, as OkHttp decodes it: verify finds it, and the
        // next prefetch takes it for a hit, not for a damaged file to fetch again.
        let list = try h.temp.write("again.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let verify = try h.run(["verify", "--json", "--cache-format", "coil1", "--disk-cache-path", folder, list])
        #expect(try verify.entries.map { $0["reason"] as? String } == [nil, nil, nil], "\(verify.result.stdoutText)")
        #expect(try verify.entries.first?["imageFormat"] as? String == "png")
        let again = try Self.prefetch(h, urls, folder: folder, format: "coil1")
        #expect(!again.stderr.contains("damaged"), "\(again.stderr)")
        #expect(try (1...3).map { try again.entry(line: $0)["outcome"] as? String } == ["cached", "cached", "cached"])
    }

    /// `--freshness` stores `Cache-Control: max-age` in place of the response's caching headers:
    /// entries OkHttp would revalidate are then served offline; other formats refuse the option.
    @Test func freshnessMakesStaleEntriesServedOffline() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/picasso-cache")
        let urls = [h.url("/max-age/0/gradient.png"), h.url("/octet/anim.gif")]
        let run = try Self.prefetch(h, urls, folder: folder, options: ["--freshness", "max-age=86400"])
        #expect(run.status == 0, "\(run.stderr)")
        let key = MD5.digest(Array(urls[0].utf8)).hex
        let metadata = try String(contentsOfFile: folder + "/\(key).0", encoding: .utf8)
        #expect(metadata.contains("\nCache-Control: max-age=86400\n") && !metadata.contains("max-age=0"), "\(metadata)")
        let bodies = [h.routes.valid["gradient.png"]!, h.routes.valid["anim.gif"]!]
        for (read, body) in zip(try OkHttpJava.read(folder: folder, urls: urls), bodies) {
            #expect(read.plain == "200" && read.plainMD5 == Self.md5(body), "\(read)")
        }
        let refused = try h.run(["prefetch", "--freshness", "1d", "--disk-cache-path", h.folder, "list.txt"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--freshness applies to"), "\(refused.stderr)")
    }

    /// A run that stored responses OkHttp will not serve offline says so once, at its end, with
    /// how many (OkHttp agrees) and that `--freshness` changes it; not under `--quiet`, and not
    /// when `--freshness` made them fresh.
    @Test func prefetchSaysOnceHowManyStoredResponsesAreStale() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/picasso-cache")
        let urls = [h.url("/max-age/3600/photo.jpg"), h.url("/max-age/0/gradient.png"), h.url("/octet/anim.gif")]
        let run = try Self.prefetch(h, urls, folder: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let reads = try OkHttpJava.read(folder: folder, urls: urls)
        let stale = reads.filter { $0.plain != "200" }.count
        #expect(stale == 2, "\(reads)")
        let notices = run.stderr.components(separatedBy: "stored responses will not be served offline").count - 1
        #expect(notices == 1, "\(run.stderr)")
        #expect(run.stderr.contains("\(stale) stored responses will not be served offline"), "\(run.stderr)")
        #expect(run.stderr.contains("--freshness AGE stores a max-age"), "\(run.stderr)")
        let quiet = try Self.prefetch(
            h, urls.map { $0.replacingOccurrences(of: "/max-age/", with: "/max-age//") }, folder: folder,
            options: ["--quiet"])
        #expect(!quiet.stderr.contains("will not be served offline"), "\(quiet.stderr)")
        let fresh = try Self.prefetch(
            h, [h.url("/max-age/0/sticker.webp")], folder: folder, options: ["--freshness", "1d"])
        #expect(fresh.status == 0 && !fresh.stderr.contains("will not be served offline"), "\(fresh.stderr)")
    }

    /// A 304 under `--refresh` updates `<key>.0` as OkHttp's `Cache.update` does: the stored
    /// headers combined with the 304's (its end-to-end headers win, the stored content headers
    /// stay), the times renewed, the journal listing the entry again with its new lengths; OkHttp
    /// then serves the entry offline by the 304's `max-age`, and verify calls it a hit.
    @Test func aRefreshed304UpdatesTheEntryAsCacheUpdateDoes() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/picasso-cache")
        let url = h.url("/revalidate/3600/photo.jpg")
        #expect(try Self.prefetch(h, [url], folder: folder).status == 0)
        #expect(try OkHttpJava.read(folder: folder, urls: [url]).first?.plain == "offline", "max-age=0: stale")
        let key = MD5.digest(Array(url.utf8)).hex
        let path = folder + "/\(key).0"
        // Received long ago, as far as the entry says: the update must renew it.
        let stored = try String(contentsOfFile: path, encoding: .utf8)
        let aged = stored.replacingOccurrences(
            of: #"OkHttp-(Sent|Received)-Millis: \d+"#, with: "OkHttp-$1-Millis: 1000", options: .regularExpression)
        #expect(aged != stored)
        try Data(aged.utf8).write(to: URL(fileURLWithPath: path))

        let refresh = try Self.prefetch(h, [url], folder: folder, options: ["--refresh"])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(try refresh.entry(line: 1)["outcome"] as? String == "revalidated")
        let updated = try String(contentsOfFile: path, encoding: .utf8)
        #expect(updated.contains("\nCache-Control: max-age=3600\n") && !updated.contains("max-age=0"), "\(updated)")
        #expect(updated.contains("\nX-Served: 304\n") && !updated.contains("X-Served: 200"), "\(updated)")
        #expect(updated.contains("\nContent-Type: image/jpeg\n"), "the stored content headers stay: \(updated)")
        #expect(updated.components(separatedBy: "\nETag: ").count == 2, "one ETag, the 304's: \(updated)")
        let metadata = try #require(try? OkHttpMetadata(Array(updated.utf8)))
        #expect(metadata.receivedMillis > 1000 && metadata.sentMillis > 1000, "\(updated)")
        #expect(metadata.statusLine == "HTTP/1.1 200 OK")
        let journal = try String(contentsOfFile: folder + "/journal", encoding: .utf8).split(separator: "\n")
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? -1
        let body = try FileManager.default.attributesOfItem(atPath: folder + "/\(key).1")[.size] as? Int ?? -1
        #expect(journal.suffix(2) == ["READ \(key)", "CLEAN \(key) \(size) \(body)"], "\(journal)")
        let read = try #require(try OkHttpJava.read(folder: folder, urls: [url]).first)
        #expect(read.plain == "200" && read.plainMD5 == Self.md5(h.routes.valid["photo.jpg"]!), "\(read)")
        let list = try h.temp.write("verify.txt", Data((url + "\n").utf8))
        let verify = try h.run(["verify", "--json", "--cache-format", "picasso", "--disk-cache-path", folder, list])
        #expect(try verify.entries.first?["verdict"] as? String == "hit", "\(verify.stderr)")
    }

    /// The app and imgwarm share the folder: OkHttp opening it, storing an entry of its own and
    /// closing it leaves imgwarm's entries readable, and imgwarm's next prefetch keeps the app's.
    @Test func theAppsOwnEntriesAndImgwarmsLiveTogether() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/picasso-cache")
        let ours = h.url("/max-age/3600/photo.jpg")
        let theirs = h.url("/max-age/3600/sticker.webp")
        let later = h.url("/max-age/3600/gradient.png")
        #expect(try Self.prefetch(h, [ours], folder: folder).status == 0)
        let fetched = try OkHttpJava.fetch(folder: folder, urls: [theirs])
        #expect(fetched == ["200 \(Self.md5(h.routes.valid["sticker.webp"]!))"])
        let afterApp = try OkHttpJava.read(folder: folder, urls: [ours, theirs])
        #expect(afterApp.allSatisfy { $0.forced == "200" && $0.plain == "200" }, "\(afterApp)")
        let run = try Self.prefetch(h, [ours, later], folder: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let reads = try OkHttpJava.read(folder: folder, urls: [ours, theirs, later])
        let bodies = ["photo.jpg", "sticker.webp", "gradient.png"].map { h.routes.valid[$0]! }
        for (read, body) in zip(reads, bodies) {
            #expect(read.forced == "200" && read.forcedMD5 == Self.md5(body), "\(read)")
        }
    }

    /// `clean --max-size` trims as OkHttp's `trimToSize` does: least recently used first in the
    /// journal's order, both files of an entry counted, until at most the limit; OkHttp then
    /// finds the rest and not the removed one.
    @Test func cleanTrimsLeastRecentlyUsedFirst() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/picasso-cache")
        let urls = ["photo.jpg", "gradient.png", "anim.gif"].map { h.url("/max-age/3600/\($0)") }
        for url in urls { #expect(try Self.prefetch(h, [url], folder: folder).status == 0) }
        func size(_ url: String) throws -> Int {
            let key = MD5.digest(Array(url.utf8)).hex
            return try [".0", ".1"].reduce(0) { total, suffix in
                let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + key + suffix)
                return total + ((attributes[.size] as? Int) ?? 0)
            }
        }
        let limit = try size(urls[1]) + size(urls[2])
        let run = try h.run([
            "clean", "--cache-format", "picasso", "--disk-cache-path", folder, "--max-size", "\(limit)",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let reads = try OkHttpJava.read(folder: folder, urls: urls)
        #expect(reads[0].forced == "504", "the least recently used entry went: \(reads)")
        #expect(reads[1].forced == "200" && reads[2].forced == "200", "\(reads)")
    }

    /// `verify` answers OkHttp's own question (issue 47): an entry its `CacheStrategy` serves
    /// with no network is a `hit` (until a date), one it would not is `stale` (since when, and
    /// whether a validator lets the app revalidate it), and OkHttp agrees entry by entry. A stale
    /// entry is no hit for the exit status, and the summary counts it.
    @Test func verifySaysWhichEntriesOkHttpServesOffline() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/picasso-cache")
        let urls = [
            h.url("/max-age/3600/photo.jpg"), h.url("/max-age/0/gradient.png"), h.url("/img/anim.gif"),
            h.url("/octet/sticker.webp"),
        ]
        #expect(try Self.prefetch(h, urls, folder: folder).status == 0)
        let list = try h.temp.write("verify.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let verify = try h.run(["verify", "--json", "--cache-format", "picasso", "--disk-cache-path", folder, list])
        #expect(verify.status == 1, "stale entries send the app to the network: \(verify.stderr)")
        let entries = try verify.report["entries"] as? [[String: Any]] ?? []
        let reads = try OkHttpJava.read(folder: folder, urls: urls)
        #expect(entries.count == 4 && reads.count == 4)
        for (entry, read) in zip(entries, reads) {
            let message = entry["message"] as? String ?? ""
            let verdict = entry["verdict"] as? String
            #expect(verdict == (read.plain == "200" ? "hit" : "stale"), "\(entry) \(read)")
            #expect(message.hasPrefix("OkHttp serves it offline until ") == (read.plain == "200"), "\(message) \(read)")
            #expect((entry["staleSince"] is String) == (verdict == "stale"), "\(entry)")
            #expect(entry["bytes"] is Int, "a stale entry's file is there: \(entry)")
        }
        let stale = entries[1]["message"] as? String ?? ""
        #expect(stale.hasPrefix("stale since") && stale.contains("only to a FORCE_CACHE request"), "\(stale)")
        #expect(stale.contains("its ETag lets the app revalidate it cheaply"), "\(stale)")
        let noValidator = entries[3]["message"] as? String ?? ""
        #expect(noValidator.contains("no validator"), "/octet/ sends no ETag or Last-Modified: \(noValidator)")
        // `/img/` answers with Last-Modified and no Date: a tenth of its age since then, from the request.
        #expect((entries[2]["message"] as? String ?? "").hasPrefix("OkHttp serves it offline until "))
        let totals = try verify.report["totals"] as? [String: Any] ?? [:]
        #expect(totals["hits"] as? Int == 2 && totals["stale"] as? Int == 2 && totals["misses"] as? Int == 0)
        let allHit = try verify.report["allHit"] as? Bool
        #expect(allHit == false)
        let text = try h.run(["verify", "-v", "--cache-format", "picasso", "--disk-cache-path", folder, list])
        let out = text.result.stdoutText
        #expect(text.status == 1)
        #expect(out.contains(": hit: ") && out.contains(": OkHttp serves it offline until "), "\(out)")
        #expect(out.contains(": stale: ") && out.contains("stale since "), "\(out)")
        #expect(out.contains("4 keys: 2 hit, 2 stale, 0 missing;"), "\(out)")
        let fresh = try h.temp.write("fresh.txt", Data((urls[0] + "\n").utf8))
        let quiet = try h.run(["verify", "--cache-format", "picasso", "--disk-cache-path", folder, fresh])
        #expect(
            quiet.status == 0 && quiet.result.stdoutText.contains("1 key: 1 hit, 0 missing;"),
            "\(quiet.result.stdoutText)")
    }

    /// A URL OkHttp's `HttpUrl` refuses (its host percent-decodes to a `/` or a NUL) is an invalid
    /// line with the reason for an OkHttp cache, and nothing is requested; another format fetches it.
    @Test func urlsOkHttpRefusesAreInvalidLines() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/picasso-cache")
        let refused = ["http://a%2Fb.invalid/a.png", "http://%00.invalid/a.png"]
        let run = try Self.prefetch(h, refused + [h.url("/max-age/3600/photo.jpg")], folder: folder)
        #expect(run.status == 1, "\(run.stderr)")
        for line in 1...2 {
            let entry = try run.entry(line: line)
            #expect(entry["outcome"] as? String == "invalid", "line \(line)")
            #expect(
                (entry["errorMessage"] as? String)?.hasPrefix("OkHttp's HttpUrl refuses this URL") == true,
                "line \(line): \(entry["errorMessage"] ?? "")")
        }
        #expect(try run.entry(line: 3)["outcome"] as? String == "downloaded")
        #expect(try OkHttpJava.canonical(refused) == [nil, nil], "OkHttp refuses them too")
        let other = try h.run(
            ["prefetch", "--disk-cache-path", h.folder, "--report", "-", "--timeout", "2"] + [
                try h.temp.write("other.txt", Data((refused.joined(separator: "\n") + "\n").utf8))
            ])
        for line in 1...2 {
            #expect(try other.entry(line: line)["outcome"] as? String != "invalid", "line \(line)")
        }
    }
}
