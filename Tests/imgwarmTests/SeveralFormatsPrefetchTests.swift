import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `prefetch --cache-format a,b` (issue 54; docs/usage.md, "Several formats"): each URL is
/// requested once and stored into every format's folder by that format's rules, as the readers
/// written from the libraries' sources (and OkHttp's own `Cache`, where Java runs) take them; a
/// miss is stored from another format's bytes when the format needs nothing more; a one-format
/// run's report is as it was.
@Suite struct SeveralFormatsPrefetchTests {
    static let images = ["photo.jpg", "gradient.png", "anim.gif", "sticker.webp"]

    /// A list of `count` distinct URLs of the fixture images under `route`.
    static func list(_ h: PrefetchHarness, count: Int = 4, route: String = "/img/", name: String = "list.txt") throws
        -> (path: String, urls: [String], bodies: [String: [UInt8]])
    {
        var bodies: [String: [UInt8]] = [:]
        let urls = (0..<count).map { index in
            let image = images[index % images.count]
            let url = h.url("\(route)\(image)?n=\(index)")
            bodies[url] = h.routes.valid[image]
            return url
        }
        let path = try h.temp.write(name, Data((urls.joined(separator: "\n") + "\n").utf8))
        return (path, urls, bodies)
    }

    /// Requests the server saw for each of `urls` (by target).
    static func requests(_ h: PrefetchHarness, _ urls: [String]) -> [Int] {
        let targets = h.server.requests.map(\.target)
        return urls.map { url in
            let target = String(
                url[url.range(of: "/", range: url.index(url.startIndex, offsetBy: 8)..<url.endIndex)!.lowerBound...])
            return targets.filter { $0 == target }.count
        }
    }

    /// Each format's document of the several-format report, by format.
    static func documents(_ run: PrefetchHarness.Run) throws -> [String: [String: Any]] {
        let caches = try #require(try run.report["caches"] as? [[String: Any]])
        var byFormat: [String: [String: Any]] = [:]
        for document in caches { byFormat[try #require(document["cacheFormat"] as? String)] = document }
        return byFormat
    }

    static func outcomes(_ document: [String: Any]?) -> [String] {
        ((document?["entries"] as? [[String: Any]]) ?? []).compactMap { $0["outcome"] as? String }
    }

    @Test func sdwebimageGlideAndFlutterFromOneRequestEach() throws {
        let h = try PrefetchHarness()
        let (list, urls, bodies) = try Self.list(h)
        let root = h.temp.path("caches")
        let formats = "sdwebimage,glide,flutter"
        let run = try h.run(["prefetch", "--cache-format", formats, "--cache-dir", root, "--report", "-", list])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.requests(h, urls) == [1, 1, 1, 1], "the server saw each URL once")

        // The report: one document a format, in the order filled; the first downloaded, the
        // others copied from it; each document the one-format document plus `copied`.
        let documents = try Self.documents(run)
        #expect(
            try (run.report["caches"] as? [[String: Any]])?.compactMap { $0["cacheFormat"] as? String } == [
                "sdwebimage", "glide", "flutter",
            ])
        #expect(Self.outcomes(documents["sdwebimage"]) == Array(repeating: "downloaded", count: 4))
        for format in ["glide", "flutter"] {
            let entries = (documents[format]?["entries"] as? [[String: Any]]) ?? []
            #expect(entries.map { $0["outcome"] as? String } == Array(repeating: "copied", count: 4), "\(format)")
            #expect(entries.allSatisfy { $0["copiedFrom"] as? String == "sdwebimage" }, "\(format)")
            #expect((documents[format]?["totals"] as? [String: Any])?["copied"] as? Int == 4)
        }
        let schema = try SeveralFormatsTests.schema("several-caches.schema.json")
        #expect(try schema.validate(JSONSerialization.jsonObject(with: run.result.stdout)).isEmpty)
        let prefetchSchema = try SeveralFormatsTests.schema("prefetch-report.schema.json")
        for (format, document) in documents {
            #expect(prefetchSchema.validate(document).isEmpty, "\(format): \(prefetchSchema.validate(document))")
        }
        // One summary a format, named.
        for format in ["sdwebimage", "glide", "flutter"] {
            #expect(run.stderr.contains("imgwarm prefetch (\(format)): 4 of 4 URLs in the cache"), "\(run.stderr)")
        }
        #expect(run.stderr.contains("(0 downloaded, 4 copied from another cache, 0 cached)"), "\(run.stderr)")

        // Every format's verify: all hits.
        let verify = try h.run(["verify", "--cache-format", formats, "--cache-dir", root, list])
        #expect(verify.status == 0, "\(verify.result.stdoutText)")
        #expect(verify.result.stdoutText.components(separatedBy: "4 keys: 4 hit, 0 missing").count == 4)

        // Glide's journal, as Glide's and Coil's readers take it: every key, the same bytes.
        let glide = root + "/image_manager_disk_cache"
        let opened = try DiskLruReaderModel.glide.open(folder: glide, appVersion: 1, valueCount: 1)
        for url in urls {
            let key = Digest.sha256Hex(url)
            #expect(DiskLruReaderModel.glide.hits(key, in: opened, folder: glide, valueCount: 1), "\(url)")
            #expect(FileManager.default.contents(atPath: glide + "/\(key).0").map([UInt8].init) == bodies[url])
        }
        // flutter_cache_manager's rows, as its reader takes them: named from the response's type.
        let model = FlutterReaderModel(
            database: root + "/libCachedImageData.db", folder: root + "/libCachedImageData")
        let rows = try model.rows()
        #expect(Set(rows.map(\.key)) == Set(urls))
        for row in rows {
            #expect(try model.miss(row.key, now: Int64(Date().timeIntervalSince1970 * 1000)) == nil, "\(row.key)")
            #expect(
                FileManager.default.contents(atPath: root + "/libCachedImageData/" + row.relativePath).map(
                    [UInt8].init) == bodies[row.key])
        }
        #expect(rows.first { $0.key == urls[0] }?.relativePath.hasSuffix(".jpg") == true)

        // A second run: every format all cached, no request.
        let again = try h.run(["prefetch", "--cache-format", formats, "--cache-dir", root, "--report", "-", list])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Self.requests(h, urls) == [1, 1, 1, 1])
        for (format, document) in try Self.documents(again) {
            #expect(Self.outcomes(document) == Array(repeating: "cached", count: 4), "\(format)")
        }
    }

    /// OkHttp's folder is filled first, asking as OkHttp asks (a gzip body stays gzip there); the
    /// other formats get the decoded image from the same response. `--freshness` goes to OkHttp
    /// alone (Kingfisher does not take it).
    @Test func kingfisherAndOkHttpFromOneRequestEach() throws {
        let h = try PrefetchHarness()
        let urls = [h.url("/img/photo.jpg"), h.url("/gzip/gradient.png"), h.url("/max-age/3600/anim.gif")]
        let list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let root = h.temp.path("caches")
        let run = try h.run([
            "prefetch", "--cache-format", "kingfisher,okhttp", "--cache-dir", root, "--report", "-", list,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.requests(h, urls) == [1, 1, 1])
        #expect(
            try (run.report["caches"] as? [[String: Any]])?.compactMap { $0["cacheFormat"] as? String } == [
                "okhttp", "kingfisher",
            ])
        let documents = try Self.documents(run)
        #expect(Self.outcomes(documents["okhttp"]) == ["downloaded", "downloaded", "downloaded"])
        #expect(Self.outcomes(documents["kingfisher"]) == ["copied", "copied", "copied"])
        // Every key is in both folders (OkHttp may call one stale: whether it asks the network
        // again is its CacheStrategy's, as for a one-format run).
        let verify = try h.run(["verify", "--cache-format", "kingfisher,okhttp", "--cache-dir", root, list])
        let lines = verify.result.stdoutText.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("3 keys: 3 hit, 0 missing; Kingfisher"), "\(lines)")
        #expect(lines.count == 2 && lines[1].contains(" 0 missing; OkHttp"), "\(lines)")

        // Kingfisher: the decoded image under its SHA-256 name, expiring in a week.
        let kingfisher = root + "/" + FormatPrefetchTests.kingfisherFolder
        let now = Date().timeIntervalSince1970
        for (url, image) in zip(urls, ["photo.jpg", "gradient.png", "anim.gif"]) {
            #expect(try ReaderModel.kingfisher(folder: kingfisher, key: url, now: now) == .hit, "\(url)")
            let name = try ReaderModel.name(url, format: "kingfisher")
            #expect(
                FileManager.default.contents(atPath: kingfisher + "/" + name).map([UInt8].init) == h.routes.valid[image]
            )
        }
        // OkHttp's own Cache serves every entry (where Java runs).
        if OkHttpJava.available {
            let reads = try OkHttpJava.read(folder: root + "/http_cache", urls: urls)
            for (read, image) in zip(reads, ["photo.jpg", "gradient.png", "anim.gif"]) {
                #expect(read.forced == "200" && read.forcedMD5 == MD5.digest(h.routes.valid[image]!).hex, "\(read)")
            }
        }
    }

    /// A format that stores from the bytes alone is filled from another format's hits with no
    /// request; one that keeps the response (OkHttp) is fetched; a damaged hit is no source: the
    /// copy fails its validation and the URL is requested instead.
    @Test func hitsOfOneFormatFillTheOthers() throws {
        let h = try PrefetchHarness()
        let (list, urls, bodies) = try Self.list(h, count: 3)
        let root = h.temp.path("caches")
        let seed = try h.run(["prefetch", "--quiet", "--cache-format", "sdwebimage", "--cache-dir", root, list])
        #expect(seed.status == 0, "\(seed.stderr)")
        #expect(Self.requests(h, urls) == [1, 1, 1])

        let run = try h.run([
            "prefetch", "--cache-format", "glide,kingfisher", "--cache-format", "sdwebimage", "--cache-dir", root,
            "--report", "-", list,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.requests(h, urls) == [1, 1, 1], "no request: every URL was in SDWebImage's folder")
        let documents = try Self.documents(run)
        #expect(Self.outcomes(documents["glide"]) == ["copied", "copied", "copied"])
        #expect(Self.outcomes(documents["kingfisher"]) == ["copied", "copied", "copied"])
        #expect(Self.outcomes(documents["sdwebimage"]) == ["cached", "cached", "cached"])
        let entries = (documents["glide"]?["entries"] as? [[String: Any]]) ?? []
        #expect(entries.allSatisfy { $0["copiedFrom"] as? String == "sdwebimage" && $0["httpStatus"] is NSNull })
        let glide = root + "/image_manager_disk_cache"
        for url in urls {
            #expect(
                FileManager.default.contents(atPath: glide + "/\(Digest.sha256Hex(url)).0").map([UInt8].init)
                    == bodies[url])
        }

        // OkHttp keeps the response: its entries are fetched, one request each.
        let okhttp = try h.run([
            "prefetch", "--cache-format", "sdwebimage,okhttp", "--cache-dir", root, "--report", "-", list,
        ])
        #expect(okhttp.status == 0, "\(okhttp.stderr)")
        #expect(Self.requests(h, urls) == [2, 2, 2])
        #expect(Self.outcomes(try Self.documents(okhttp)["okhttp"]) == ["downloaded", "downloaded", "downloaded"])

        // A damaged hit (not an image any more, still a hit by its name and size) is no source.
        let damagedURL = h.url("/img/photo.jpg?n=9")
        let damagedList = try h.temp.write("damaged.txt", Data((damagedURL + "\n").utf8))
        let sd = root + "/com.hackemist.SDImageCache/default/" + SDFileName.forKey(damagedURL)
        try FileManager.default.createDirectory(
            atPath: (sd as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 4000).write(to: URL(fileURLWithPath: sd))
        let fallback = try h.run([
            "prefetch", "--cache-format", "coil,sdwebimage", "--cache-dir", root, "--report", "-", damagedList,
        ])
        #expect(fallback.status == 0, "\(fallback.stderr)")
        #expect(Self.requests(h, [damagedURL]) == [1], "the damaged copy fell back to one request")
        let fell = try Self.documents(fallback)
        #expect(Self.outcomes(fell["coil"]) == ["downloaded"])
        #expect(Self.outcomes(fell["sdwebimage"]) == ["copied"], "the damaged hit is replaced from coil's download")
        #expect(FileManager.default.contents(atPath: sd).map([UInt8].init) == h.routes.valid["photo.jpg"])
    }

    /// Options go to the formats that take them; what only one command takes is refused.
    @Test func optionsGoToTheFormatsThatTakeThem() throws {
        let h = try PrefetchHarness()
        let (list, urls, _) = try Self.list(h, count: 2)
        let root = h.temp.path("caches")
        let run = try h.run([
            "prefetch", "--quiet", "--cache-format", "sdwebimage,kingfisher", "--expires-in", "1h", "--cache-dir", root,
            list,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let kingfisher = root + "/" + FormatPrefetchTests.kingfisherFolder
        let now = Date().timeIntervalSince1970
        for url in urls {
            let times = try #require(
                ReaderModel.times(kingfisher + "/" + (try ReaderModel.name(url, format: "kingfisher"))))
            #expect(times.modification > now + 3000 && times.modification < now + 3700, "an hour, not a week")
        }
        // None of them takes it: refused as for one format, before anything is done.
        let none = try h.run([
            "prefetch", "--cache-format", "sdwebimage,glide", "--expires-in", "1h", "--cache-dir", h.temp.path("c2"),
            list,
        ])
        #expect(none.status == 2)
        #expect(none.stderr.contains("--expires-in applies to"), "\(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.temp.path("c2")))
        let state = try h.run([
            "prefetch", "--cache-format", "sdwebimage,glide", "--state", h.temp.path("s.sqlite"), "--cache-dir",
            h.temp.path("c3"), list,
        ])
        #expect(state.status == 2 && state.stderr.contains("--state names one database"), "\(state.stderr)")
        let stdin = try h.run(
            ["prefetch", "--cache-format", "sdwebimage,glide", "--cache-dir", h.temp.path("c4"), "-"],
            stdin: Data((urls[0] + "\n").utf8))
        #expect(stdin.status == 2 && stdin.stderr.contains("standard input (-) is read once"), "\(stdin.stderr)")
        let same = try h.run(["prefetch", "--cache-format", "coil2,fresco", "--cache-dir", h.temp.path("c5"), list])
        #expect(same.status == 2, "\(same.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.temp.path("c5")))
    }

    /// Formats whose time rules agree share one file (a hard link); Kingfisher, whose
    /// modification time is its expiry date, has its own; `pack` writes every member whole. A
    /// Fresco entry (a hit moves the modification time) is not SDWebImage's (whose modification
    /// time is the download's).
    @Test func twinsShareOneFileOnlyWhenTheirTimeRulesAgree() throws {
        let h = try PrefetchHarness()
        let (list, urls, bodies) = try Self.list(h, count: 2)
        let root = h.temp.path("caches")
        let run = try h.run([
            "prefetch", "--quiet", "--cache-format", "sdwebimage,glide,nuke,coil,kingfisher,fresco", "--cache-dir",
            root,
            list,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.requests(h, urls) == [1, 1])
        func inode(_ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
        }
        let now = Date().timeIntervalSince1970
        for url in urls {
            let key = Digest.sha256Hex(url)
            let sd = root + "/com.hackemist.SDImageCache/default/" + SDFileName.forKey(url)
            let nuke = root + "/com.github.kean.Nuke.DataCache/" + (try ReaderModel.name(url, format: "nuke"))
            let glide = root + "/image_manager_disk_cache/\(key).0"
            let coil = root + "/coil3_disk_cache/\(key).1"
            let kingfisher =
                root + "/" + FormatPrefetchTests.kingfisherFolder + "/"
                + (try ReaderModel.name(url, format: "kingfisher"))
            #expect(try inode(sd) == inode(nuke), "SDWebImage and Nuke: a hit sets the access time in both")
            #expect(try inode(glide) == inode(coil), "Glide and Coil read no file time")
            #expect(try inode(sd) == inode(glide), "nor does Glide move one")
            #expect(try inode(kingfisher) != inode(sd), "Kingfisher's modification time is its expiry date")
            let fresco = try #require(
                FileManager.default.enumerator(atPath: root + "/image_cache")?.allObjects.compactMap { $0 as? String }
                    .filter { $0.hasSuffix(".cnt") }.map { root + "/image_cache/" + $0 }
                    .first { FileManager.default.contents(atPath: $0).map([UInt8].init) == bodies[url] })
            #expect(try inode(fresco) != inode(sd), "Fresco's hit moves the modification time")
            for path in [sd, nuke, glide, coil, kingfisher] {
                #expect(FileManager.default.contents(atPath: path).map([UInt8].init) == bodies[url], "\(path)")
            }
            // Each keeps its own time rule: Kingfisher's expiry a week ahead, SDWebImage's the download.
            let times = try #require(ReaderModel.times(sd))
            #expect(times.modification <= now + 1)
            #expect(
                try ReaderModel.kingfisher(
                    folder: (kingfisher as NSString).deletingLastPathComponent, key: url, now: now + 86400) == .hit)
        }
        let verify = try h.run([
            "verify", "--cache-format", "sdwebimage,glide,nuke,coil,kingfisher", "--cache-dir", root, list,
        ])
        #expect(verify.status == 0, "\(verify.result.stdoutText)")

        // pack: every member a regular file, each linked file whole under each path.
        let archive = h.temp.path("seed.tar")
        let pack = try h.run([
            "pack", "--cache-format", "sdwebimage,nuke", "--cache-dir", root, "--platform", "ios", "-o", archive,
        ])
        #expect(pack.status == 0, "\(pack.stderr)")
        let listing = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/tar"), ["-tvf", archive])
        let members = listing.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("d") }
        #expect(members.count == 5, "a manifest and 4 files: \(members)")
        #expect(members.allSatisfy { $0.hasPrefix("-") }, "no link member: \(members)")
    }

    /// One format: the report has no `copied` and no `copiedFrom`, and the summary is today's.
    @Test func oneFormatIsAsBefore() throws {
        let h = try PrefetchHarness()
        let (list, _, _) = try Self.list(h, count: 2)
        let run = try h.run([
            "prefetch", "--cache-format", "glide", "--cache-dir", h.temp.path("c"), "--report", "-", list,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let totals = try #require(try run.report["totals"] as? [String: Any])
        #expect(totals["copied"] == nil && totals["downloaded"] as? Int == 2)
        #expect(try run.report["caches"] == nil)
        let entries = try #require(try run.report["entries"] as? [[String: Any]])
        #expect(entries.allSatisfy { $0["copiedFrom"] == nil })
        #expect(
            run.stderr.hasPrefix("imgwarm prefetch: 2 of 2 URLs in the cache (2 downloaded, 0 cached); "),
            "\(run.stderr)")
    }
}
