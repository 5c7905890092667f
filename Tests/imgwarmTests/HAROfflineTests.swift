import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// `imgwarm prefetch --offline capture.har` (issue 33, item 3): the three exporters' shapes of
/// Tests/Fixtures/har, moved onto the loopback server, seed the same cache offline as online,
/// with no request at all; entries without a usable body end as `no-body`.
@Suite struct HAROfflineTests {
    /// A fixture capture whose image entries are moved onto the loopback server: each recorded
    /// body becomes the server's image of the same kind (so online and offline get the same
    /// bytes), a redirect leads to it through `/redirect/1/NAME`, pages are kept as they are, and
    /// the images that cannot be moved (no body recorded, SVG) are left out. The exporter's
    /// fields and header names stay.
    struct Moved {
        var har: Data
        /// Cache key → the bytes it must hold.
        var images: [String: [UInt8]]
        /// Cache key → the ETag the capture recorded for it.
        var etags: [String: String]
        /// Cache key → the Last-Modified the capture recorded for it.
        var lastModified: [String: String] = [:]
    }

    static func name(of body: [UInt8]) -> String? {
        if body.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "gradient.png" }
        if body.starts(with: [0xFF, 0xD8, 0xFF]) { return "photo.jpg" }
        if body.starts(with: Array("GIF8".utf8)) { return "anim.gif" }
        if body.starts(with: Array("RIFF".utf8)) { return "sticker.webp" }
        return nil
    }

    static func header(_ name: String, in response: [String: Any]) -> String? {
        let headers = response["headers"] as? [[String: Any]] ?? []
        return headers.first { ($0["name"] as? String)?.lowercased() == name }?["value"] as? String
    }

    static func move(_ fixture: String, _ h: PrefetchHarness) throws -> Moved {
        let data = try Data(contentsOf: Fixtures.root.appendingPathComponent("har/" + fixture))
        var root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var log = try #require(root["log"] as? [String: Any])
        let entries = try #require(log["entries"] as? [[String: Any]])
        var moved: [String: String] = [:]  // a recorded URL → the server's image
        for entry in entries {
            let response = entry["response"] as? [String: Any] ?? [:]
            let content = response["content"] as? [String: Any] ?? [:]
            guard response["status"] as? Int == 200, content["encoding"] as? String == "base64",
                let text = content["text"] as? String, let body = Data(base64Encoded: text),
                let name = name(of: [UInt8](body)), let url = (entry["request"] as? [String: Any])?["url"] as? String
            else { continue }
            moved[url] = name
        }
        #expect(!moved.isEmpty, "\(fixture) records image bodies")
        var kept: [[String: Any]] = []
        var images: [String: [UInt8]] = [:]
        var etags: [String: String] = [:]
        var dates: [String: String] = [:]
        var redirected: Set<String> = []
        for var entry in entries {
            var request = try #require(entry["request"] as? [String: Any])
            var response = try #require(entry["response"] as? [String: Any])
            let url = try #require(request["url"] as? String)
            let status = response["status"] as? Int ?? 0
            if let name = moved[url] {
                let body = try #require(h.routes.valid[name])
                request["url"] = h.url("/img/" + name)
                var content = try #require(response["content"] as? [String: Any])
                content["text"] = Data(body).base64EncodedString()
                content["size"] = body.count
                response["content"] = content
                if let etag = header("etag", in: response) { etags[name] = etag }
                if let date = header("last-modified", in: response) { dates[name] = date }
            } else if (300...399).contains(status) {
                let location = header("location", in: response)
                let recorded = response["redirectURL"] as? String ?? ""
                var target = recorded.isEmpty ? location ?? "" : recorded
                if target.hasPrefix("/"), let scheme = url.range(of: "://") {
                    let authority = url[scheme.upperBound...].firstIndex(of: "/") ?? url.endIndex
                    target = String(url[..<authority]) + target
                }
                guard let name = moved[target] else { continue }
                request["url"] = h.url("/redirect/1/" + name)
                if !recorded.isEmpty { response["redirectURL"] = h.url("/img/" + name) }
                response["headers"] = (response["headers"] as? [[String: Any]] ?? []).map { field in
                    guard (field["name"] as? String)?.lowercased() == "location" else { return field }
                    var field = field
                    field["value"] = location?.hasPrefix("/") == true ? "/img/" + name : h.url("/img/" + name)
                    return field
                }
                redirected.insert(name)
            } else {
                let mime = (response["content"] as? [String: Any])?["mimeType"] as? String ?? ""
                guard mime.hasPrefix("text/") || mime.contains("json") else { continue }  // an image not moved
            }
            entry["request"] = request
            entry["response"] = response
            kept.append(entry)
        }
        for name in Set(moved.values) {
            let key = h.url((redirected.contains(name) ? "/redirect/1/" : "/img/") + name)
            images[key] = h.routes.valid[name]
            if let etag = etags[name] { etags[key] = etag }
            if let date = dates[name] { dates[key] = date }
        }
        log["entries"] = kept
        root["log"] = log
        return Moved(
            har: try JSONSerialization.data(withJSONObject: root), images: images, etags: etags, lastModified: dates)
    }

    /// The files of an SDWebImage cache folder, by name.
    static func files(_ folder: String) -> [String: Data] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return Dictionary(
            uniqueKeysWithValues: names.map { ($0, FileManager.default.contents(atPath: folder + "/" + $0) ?? Data()) })
    }

    @Test(arguments: ["chrome.har", "charles.har", "mitmproxy.har"])
    func offlineSeedsWhatOnlineDownloads(fixture: String) throws {
        let h = try PrefetchHarness()
        let moved = try Self.move(fixture, h)
        let list = try h.temp.write(fixture, moved.har)
        let offline = try h.run(["prefetch", "--offline", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(offline.status == 0, "\(offline.stderr)")
        h.expectCache(exactly: moved.images)
        #expect(h.server.requests.isEmpty, "an offline run requests nothing: \(h.server.requests.map(\.path))")
        #expect(offline.stderr.contains("(\(moved.images.count) stored offline, 0 cached)"), "\(offline.stderr)")
        #expect(try offline.entries.allSatisfy { ["downloaded", "duplicate"].contains($0["outcome"] as? String) })
        #expect(try (offline.report["options"] as? [String: Any])?["offline"] as? Bool == true)
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        #expect(schema.validate(try offline.report) == [])
        // verify with the same capture: every image a hit.
        let verify = try h.run(["verify", "--disk-cache-path", h.folder, "--json", list])
        #expect(verify.status == 0, "\(verify.result.stdoutText)\(verify.stderr)")
        #expect(try verify.entries.count == moved.images.count)
        #expect(try verify.entries.allSatisfy { $0["verdict"] as? String == "hit" })
        #expect(h.server.requests.isEmpty)
        // Online, in another cache: the same files, byte for byte.
        let other = h.temp.path("online/com.hackemist.SDImageCache/default")
        let online = try h.run(["prefetch", "--disk-cache-path", other, "--report", "-", list])
        #expect(online.status == 0, "\(online.stderr)")
        #expect(!h.server.requests.isEmpty)
        #expect(Self.files(other) == Self.files(h.folder))
        // The state database kept the recorded validators: --refresh revalidates with them.
        let refresh = try h.run(["prefetch", "--refresh", "--disk-cache-path", h.folder, list])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        for key in moved.images.keys {
            let path = String(key.dropFirst(h.url("").count))
            let request = try #require(h.server.requests.last { $0.path == path }, "\(path)")
            #expect(request.header("If-None-Match") == moved.etags[key], "\(fixture) \(path)")
            #expect(request.header("If-Modified-Since") == moved.lastModified[key], "\(fixture) \(path)")
        }
    }

    /// flutter: the same files under the same keys, and the row of an offline run carries the
    /// recorded ETag (the index gets the recorded response headers).
    @Test func flutterRowsCarryTheRecordedETag() throws {
        let s = try FlutterCacheTests.Setup()
        let moved = try Self.move("chrome.har", s.h)
        let list = try s.h.temp.write("chrome.har", moved.har)
        let offline = try s.h.run(["prefetch", "--offline"] + s.options + [list])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(s.h.server.requests.isEmpty)
        let rows = try s.model.rows()
        #expect(Set(rows.map(\.key)) == Set(moved.images.keys))
        for row in rows {
            let bytes = FileManager.default.contents(atPath: s.folder + "/" + row.relativePath).map([UInt8].init)
            #expect(bytes == moved.images[row.key], "\(row.key)")
            #expect(row.eTag == moved.etags[row.key], "\(row.key)")
            #expect(row.eTag != nil)
        }
        #expect(try s.h.run(["verify"] + s.options + [list]).status == 0)

        let online = FlutterCacheTests.Setup(sharing: s.h, under: "online")
        let run = try s.h.run(["prefetch"] + online.options + [list])
        #expect(run.status == 0, "\(run.stderr)")
        let onlineRows = try online.model.rows()
        #expect(Set(onlineRows.map(\.key)) == Set(moved.images.keys))
        for row in onlineRows {
            let bytes = FileManager.default.contents(atPath: online.folder + "/" + row.relativePath).map([UInt8].init)
            #expect(bytes == moved.images[row.key], "\(row.key)")
        }
    }

    /// glide (an indexed format with a journal): the same entry files offline as online, and
    /// verify finds every image of the capture.
    @Test(arguments: ["chrome.har", "mitmproxy.har"]) func glideSeedsTheSameFilesOffline(fixture: String) throws {
        let h = try PrefetchHarness()
        let moved = try Self.move(fixture, h)
        let list = try h.temp.write(fixture, moved.har)
        func run(_ folder: String, _ extra: [String]) throws -> [String: Data] {
            let options = ["--cache-format", "glide", "--disk-cache-path", h.temp.path(folder)]
            let run = try h.run(["prefetch"] + extra + options + [list])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try h.run(["verify"] + options + [list]).status == 0)
            return Self.files(h.temp.path(folder)).filter { !$0.key.hasPrefix("journal") }
        }
        let offline = try run("offline", ["--offline"])
        #expect(h.server.requests.isEmpty)
        #expect(offline.count == moved.images.count)
        #expect(Set(offline.values.map { [UInt8]($0) }) == Set(moved.images.values))
        #expect(try run("online", []) == offline)
    }

    /// A 304, a body left out, a `content.size` that differs, bad base64: `no-body`, exit 1,
    /// nothing requested, nothing blacklisted (an online run then downloads them).
    @Test func entriesWithoutABodyAreNoBody() throws {
        let h = try PrefetchHarness()
        let valid = h.routes.valid
        var wrongSize = HARRunTests.entry(h.url("/img/photo.jpg"), mimeType: "image/jpeg", body: valid["photo.jpg"])
        var broken = HARRunTests.entry(h.url("/img/anim.gif"), mimeType: "image/gif", body: valid["anim.gif"])
        var response = wrongSize["response"] as! [String: Any]
        var content = response["content"] as! [String: Any]
        content["size"] = (valid["photo.jpg"]?.count ?? 0) + 1
        response["content"] = content
        wrongSize["response"] = response
        response = broken["response"] as! [String: Any]
        content = response["content"] as! [String: Any]
        content["text"] = "R0lGOD!!"
        response["content"] = content
        broken["response"] = response
        let capture = try HARRunTests.har([
            HARRunTests.entry(h.url("/img/gradient.png"), mimeType: "image/png", body: valid["gradient.png"]),
            HARRunTests.entry(h.url("/img/sticker.webp"), status: 304, mimeType: "image/webp"),
            HARRunTests.entry(h.url("/octet/icon.bmp"), mimeType: "image/bmp"),
            wrongSize, broken,
        ])
        let list = try h.temp.write("partial.har", capture)

        let dry = try h.run([
            "prefetch", "--offline", "--dry-run", "--disk-cache-path", h.folder, "--report", "-", list,
        ])
        #expect(dry.status == 1, "\(dry.stderr)")
        #expect(
            try dry.entries.map { $0["outcome"] as? String ?? "" } == ["would-fetch"]
                + Array(repeating: "no-body", count: 4))
        #expect(dry.stderr.contains("4 no-body"), "\(dry.stderr)")

        let run = try h.run(["prefetch", "--offline", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(h.server.requests.isEmpty)
        h.expectCache(exactly: [h.url("/img/gradient.png"): valid["gradient.png"]!])
        let messages = [
            2: "304 Not Modified", 3: "did not save the response's body", 4: "response.content.size says",
            5: "not valid base64",
        ]
        for (line, words) in messages {
            let entry = try run.entry(line: line)
            #expect(entry["outcome"] as? String == "no-body")
            #expect(entry["errorClass"] as? String == "no-body")
            #expect(entry["errorKind"] as? String == "permanent")
            #expect((entry["errorMessage"] as? String)?.contains(words) == true, "\(entry)")
            #expect(entry["attempts"] as? Int == 0)
            // Each is told on standard error with its entry, as a failure is.
            #expect(run.stderr.contains("partial.har entry \(line): "), "\(run.stderr)")
            #expect(run.stderr.contains(": no-body: "), "\(run.stderr)")
        }
        #expect(try run.totals["noBody"] as? Int == 4)
        #expect(try run.totals["skippedCount"] as? Int == 4)
        #expect(try run.totals["blacklisted"] as? Int == 0)
        #expect(run.stderr.contains("4 no-body"), "\(run.stderr)")
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        #expect(schema.validate(try run.report) == [])

        // Online the same capture downloads them: nothing was blacklisted.
        let online = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(online.status == 0, "\(online.stderr)")
        #expect(h.cacheContents().count == 5)
    }

    /// A plain URL line has no recorded body: `no-body` offline; a "file" line is read as ever.
    @Test func plainURLLinesAreNoBodyAndFileLinesWork() throws {
        let h = try PrefetchHarness()
        _ = try h.temp.write("icon.png", Data(h.routes.valid["gradient.png"]!))
        let lines = [
            #"{"url": "\#(h.url("/img/photo.jpg"))"}"#,
            #"{"url": "\#(h.url("/img/gradient.png"))", "file": "icon.png"}"#,
        ]
        let run = try h.prefetch(lines, options: ["--offline"], listName: "list.jsonl")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(h.server.requests.isEmpty)
        #expect(try run.entry(line: 1)["outcome"] as? String == "no-body")
        #expect(try run.entry(line: 2)["outcome"] as? String == "downloaded")
        h.expectCache(exactly: [h.url("/img/gradient.png"): h.routes.valid["gradient.png"]!])
    }
}

extension FlutterCacheTests.Setup {
    /// A second flutter cache beside `h`'s, in `caches/NAME/`: the same server, its own folder.
    init(sharing h: PrefetchHarness, under name: String) {
        self.h = h
        folder = h.temp.path("caches/\(name)/libCachedImageData")
        database = h.temp.path("caches/\(name)/libCachedImageData.db")
        options = ["--cache-format", "flutter", "--disk-cache-path", folder]
        model = FlutterReaderModel(database: database, folder: folder)
    }
}
