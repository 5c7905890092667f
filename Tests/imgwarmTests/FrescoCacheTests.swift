import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// fresco and fresco3.6 (issue 25): entries where Fresco's `DefaultDiskStorage` looks for them
/// (shards computed here independently: Java's `hashCode` and `%`), the version folder always
/// there, a folder Fresco would wipe left alone, hits re-dated as Fresco's read does, and `clean`
/// evicting as `DiskStorageCache.evictAboveSize` does (docs/cache-formats-android.md, "Fresco").
@Suite struct FrescoCacheTests {
    /// Java's `String.hashCode` over UTF-16 code units, then `Math.abs(h % 100)`.
    static func javaShard(_ id: String) -> Int {
        var h: Int32 = 0
        for unit in id.utf16 { h = h &* 31 &+ Int32(unit) }
        let remainder = Int(h) - Int(h) / 100 * 100  // truncated division: the dividend's sign
        return Swift.abs(remainder)
    }

    /// (key, id, Java hashCode of the id, shard) computed with Python's hashlib and base64.
    static let vectors: [(String, String, Int32, Int)] = [
        ("https://example.com/a.png", "uG2vpjvO76xjHKp9Z0XIo0O8DEo", -2_096_264_105, 5),
        ("https://cdn.example.org/photos/1234.jpg?w=200", "i3jkppPbYtYkPc227QWXyNyT50k", 870_846_632, 32),
        ("http://127.0.0.1/img/x.webp", "MQ7V88yjPw1dNguOx92RnEmIivY", -559_479_817, 17),
        ("https://例え.jp/画像.png", "CD8PPbBh16_JodRsaVniJCQgk4E", -1_046_589_850, 50),
    ]

    @Test func namesFollowTheVectors() throws {
        let h = try PrefetchHarness()
        for (key, id, _, shard) in Self.vectors {
            #expect(Self.javaShard(id) == shard, "\(id)")
            for (format, folder) in [("fresco", "\(shard).0"), ("fresco3.6", "\(shard)")] {
                let run = try h.run(["path", "--cache-format", format, "--cache-dir", "/c", key])
                #expect(run.status == 0, "\(run.stderr)")
                let printed = String(decoding: run.result.stdout, as: UTF8.self)
                #expect(printed.hasPrefix("/c/image_cache/v2.ols100.1/\(folder)/\(id).cnt"), "\(printed)")
            }
        }
    }

    func path(_ folder: String, _ key: String, double: Bool) -> String {
        let id = FrescoFormat.resourceID(forKey: key)
        let shard = Self.javaShard(id)
        return "\(folder)/v2.ols100.1/\(shard)\(double ? ".0" : "")/\(id).cnt"
    }

    /// Prefetch puts each image where Fresco looks; verify agrees from lists and from the folder;
    /// a second run finds them cached and sets their modification time, as Fresco's read does.
    @Test(arguments: [("fresco", true), ("fresco3.6", false)]) func prefetchVerifyAndHits(
        format: String, double: Bool
    ) throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("image_cache")
        let names = ["photo.jpg", "gradient.png", "anim.gif"]
        let urls = names.map { h.url("/img/\($0)") }
        let list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let options = ["--cache-format", format, "--disk-cache-path", folder]
        let run = try h.run(["prefetch"] + options + ["--report", "-", list])
        #expect(run.status == 0, "\(run.stderr)")
        for (name, url) in zip(names, urls) {
            #expect(
                FileManager.default.contents(atPath: path(folder, url, double: double)).map([UInt8].init)
                    == h.routes.valid[name])
        }
        #expect(try h.run(["verify"] + options + [list]).status == 0)
        let whole = try h.run(["verify"] + options + ["--json"])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect((try whole.report["totals"] as? [String: Any])?["hits"] as? Int == 3)
        let stats = try h.run(["stats"] + options + ["--json"])
        #expect(stats.status == 0, "\(stats.stderr)")

        let old = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes(
            [.modificationDate: old], ofItemAtPath: path(folder, urls[0], double: double))
        let again = try h.run(["prefetch"] + options + ["--report", "-", list])
        #expect(try again.totals["cached"] as? Int == 3)
        let date =
            try FileManager.default.attributesOfItem(atPath: path(folder, urls[0], double: double))[.modificationDate]
            as? Date
        #expect((date ?? old) > old.addingTimeInterval(86400), "a hit is re-dated")
    }

    /// The version folder is made even when nothing is stored; a folder that holds anything but
    /// has no version folder (Fresco deletes it whole at open) is refused with exit 3 and left as it was.
    @Test func theVersionFolder() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("image_cache")
        let list = try h.temp.write("missing.txt", Data((h.url("/status/404") + "\n").utf8))
        let run = try h.run([
            "prefetch", "--cache-format", "fresco", "--disk-cache-path", folder, "--report", "-", list,
        ])
        #expect(run.status == 1)
        #expect(FileManager.default.fileExists(atPath: folder + "/v2.ols100.1"))

        let other = h.temp.path("other/image_cache")
        try FileManager.default.createDirectory(atPath: other + "/v1.ols100.1/5", withIntermediateDirectories: true)
        try Data([1]).write(to: URL(fileURLWithPath: other + "/v1.ols100.1/5/x.cnt"))
        let good = try h.temp.write("good.txt", Data((h.url("/img/photo.jpg") + "\n").utf8))
        let refused = try h.run(["prefetch", "--cache-format", "fresco", "--disk-cache-path", other, good])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stderr.contains("no v2.ols100.1 folder"), "\(refused.stderr)")
        // Issue 48: Fresco keeps no journal, and a run that could not start failed nothing.
        #expect(refused.stderr.contains("remove the folder or put its v2.ols100.1 folder back"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("journal"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("nothing failed"), "\(refused.stderr)")
        #expect(
            try FileManager.default.subpathsOfDirectory(atPath: other).sorted() == [
                "v1.ols100.1", "v1.ols100.1/5", "v1.ols100.1/5/x.cnt",
            ])
        let verify = try h.run(["verify", "--cache-format", "fresco", "--disk-cache-path", other, good])
        #expect(verify.status == 3)
        #expect(verify.stderr.contains("would not read the folder (there is no v2.ols100.1"), "\(verify.stderr)")
        #expect(!verify.stderr.contains("journal"), "\(verify.stderr)")
    }

    /// `clean --max-size`: above the limit, files dated beyond now + 2 h first, then the oldest,
    /// until more than the excess over 90 % of the limit is gone (`evictAboveSize`); a dry run
    /// removes nothing.
    @Test func cleanEvictsAsDiskStorageCacheDoes() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("image_cache")
        let names = ["photo.jpg", "gradient.png", "anim.gif", "sticker.webp"]
        let urls = names.map { h.url("/img/\($0)") }
        let list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let options = ["--cache-format", "fresco", "--disk-cache-path", folder]
        #expect(try h.run(["prefetch"] + options + [list]).status == 0)
        // Dates: sticker in the future (first to go), then photo, anim, gradient.
        let dates = [1_000_000_100.0, 1_000_000_300, 1_000_000_200, Date().timeIntervalSince1970 + 86400]
        for (url, date) in zip(urls, dates) {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: date)], ofItemAtPath: path(folder, url, double: true))
        }
        let sizes = names.map { h.routes.valid[$0]!.count }
        let total = sizes.reduce(0, +)
        // Three quarters of the total: the excess over 90 % of it is about a third.
        let limit = total * 3 / 4
        let excess = total - limit * 9 / 10
        var expected: [Int] = []
        var removed = 0
        for index in [3, 0, 2, 1] {
            if removed > excess { break }
            expected.append(index)
            removed += sizes[index]
        }
        #expect(expected.count >= 2 && expected.count < names.count, "\(expected) of \(sizes)")
        let before = try FileManager.default.subpathsOfDirectory(atPath: folder).sorted()
        #expect(try h.run(["clean"] + options + ["--max-size", "\(limit)", "--dry-run"]).status == 0)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: folder).sorted() == before)
        let clean = try h.run(["clean"] + options + ["--max-size", "\(limit)"])
        #expect(clean.status == 0, "\(clean.stderr)")
        for index in names.indices {
            let exists = FileManager.default.fileExists(atPath: path(folder, urls[index], double: true))
            #expect(exists == !expected.contains(index), "\(names[index])")
        }
    }

    /// stats, clean and the metrics count Fresco's entries, not its version and shard folders:
    /// the totals are the files and their bytes (issue 31).
    @Test func statsAndCleanCountEntriesNotShardFolders() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("image_cache")
        let names = ["photo.jpg", "gradient.png", "anim.gif"]
        let urls = names.map { h.url("/img/\($0)") }
        let list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let options = ["--cache-format", "fresco", "--disk-cache-path", folder]
        #expect(try h.run(["prefetch"] + options + [list]).status == 0)
        let bytes = names.map { h.routes.valid[$0]!.count }.reduce(0, +)

        let stats = try h.run(["stats"] + options + ["--json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let totals = try #require(try stats.report["totals"] as? [String: Any])
        #expect(totals["totalDiskCount"] as? Int == 3, "\(totals)")
        #expect(totals["totalDiskSize"] as? Int == bytes, "\(totals)")
        #expect(totals["directories"] as? Int == 0, "\(totals)")
        #expect((try stats.report["cacheEntries"] as? [String: Any])?["entries"] as? Int == 3)
        let text = try h.run(["stats"] + options).result.stdoutText
        #expect(text.contains("Entries:        3 (at any depth, v2.ols100.1 and its folders not counted)\n"), "\(text)")
        #expect(text.contains("Size:           \(bytes) bytes, "), "\(text)")
        #expect(!text.contains("SDWebImage"), "\(text)")

        let metrics = h.temp.path("clean.prom")
        let clean = try h.run(["clean"] + options + ["--dry-run", "--report", "-", "--metrics", metrics])
        #expect(clean.status == 0, "\(clean.stderr)")
        for side in ["before", "after"] {
            let figures = try #require(try clean.report[side] as? [String: Any])
            #expect(figures["entries"] as? Int == 3, "\(side): \(figures)")
            #expect(figures["logicalBytes"] as? Int == bytes, "\(side): \(figures)")
        }
        let prom = try String(contentsOfFile: metrics, encoding: .utf8)
        #expect(prom.contains("imgwarm_cache_files{cache=\"\(folder)\",command=\"clean\"} 3\n"), "\(prom)")
        #expect(prom.contains("imgwarm_cache_size_bytes{cache=\"\(folder)\",command=\"clean\"} \(bytes)\n"), "\(prom)")
        #expect(!prom.contains("(SDWebImage's totalDiskCount)."), "\(prom)")
    }
}
