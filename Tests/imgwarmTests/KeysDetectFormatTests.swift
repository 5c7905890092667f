import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `imgwarm keys detect` on the formats whose names come from an index (flutter's database,
/// Fresco's tree), on a HAR given as the list, and on the processed key forms of SDWebImage and
/// Kingfisher (docs/usage.md, "Apps with a cacheKeyFilter", "Processed images").
struct KeysDetectFormatTests {
    static let parameters = ["w", "h", "token", "expires", "sig", "v"]

    /// 20 URLs on distinct paths with the six parameters; `prefetch --key-filter rule` stores 19
    /// of them (5 % absent: the 7th) and one URL not in the list (5 % unrelated).
    static func seed(
        _ harness: PrefetchHarness, format: String, folder: String, rule: [String]
    ) throws -> [String] {
        let urls = (1...20).map { n in
            harness.url("/max-age/\(n)/photo.jpg?")
                + parameters.map { "\($0)=\($0)\(n * 37 % 101)" }.joined(separator: "&")
        }
        let stored = urls.filter { !$0.contains("/max-age/7/") } + [harness.url("/max-age/99/photo.jpg?w=1")]
        let list = try harness.temp.write("stored.txt", Data((stored.joined(separator: "\n") + "\n").utf8))
        let seeded = try harness.run(
            ["prefetch", "--cache-format", format, "--disk-cache-path", folder, "--quiet"]
                + rule.flatMap { ["--key-filter", $0] } + [list])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        return urls
    }

    /// The detector's JSON for `list`, checked against the schema; the folder unchanged.
    static func detect(_ harness: PrefetchHarness, format: String, folder: String, list: String) throws -> [String: Any]
    {
        let before = try KeysDetectTests.snapshot(folder)
        let run = try harness.run([
            "keys", "detect", "--json", "--cache-format", format, "--disk-cache-path", folder, list,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.report
        #expect(try KeysDetectTests.schema().validate(report) == [])
        #expect(try KeysDetectTests.snapshot(folder) == before)
        return report
    }

    /// flutter_cache_manager (the database's keys) and Fresco (its tree's names).
    @Test(arguments: [
        ("flutter", ["drop-params:token"]), ("flutter", ["strip-query"]), ("fresco", ["keep-params:w,h"]),
        ("fresco", ["drop-params:token,expires,sig"]),
    ])
    func namesTheRuleOfAnIndexedFormat(format: String, rule: [String]) throws {
        let harness = try PrefetchHarness()
        let folder = harness.temp.path(format == "flutter" ? "caches/libCachedImageData" : "caches/fresco")
        let urls = try Self.seed(harness, format: format, folder: folder, rule: rule)
        let list = try harness.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let report = try Self.detect(harness, format: format, folder: folder, list: list)
        #expect(report["keyFilter"] as? [String] == rule)
        #expect(report["hits"] as? Int == 19)
        #expect(report["plainHits"] as? Int == 0)
        #expect(report["entries"] as? Int == 20)
        #expect((report["unexplained"] as? [[String: Any]])?.map { $0["url"] as? String } == [urls[6]])
    }

    /// A HAR capture as the list: its image requests are the URLs.
    @Test func readsTheURLsOfAHAR() throws {
        let harness = try PrefetchHarness()
        let folder = harness.temp.path("caches/sdwebimage")
        let rule = ["drop-params:token,expires"]
        let urls = try Self.seed(harness, format: "sdwebimage", folder: folder, rule: rule)
        let capture = try HARRunTests.har(urls.map { HARRunTests.entry($0, mimeType: "image/jpeg") })
        let list = try harness.temp.write("session.har", capture)
        let report = try Self.detect(harness, format: "sdwebimage", folder: folder, list: list)
        #expect(report["keyFilter"] as? [String] == rule)
        #expect(report["hits"] as? Int == 19)
        #expect(report["urls"] as? Int == 20)
    }

    /// 20 URLs; 19 entries named for `processedKey` of each URL but the 7th, and one unrelated.
    static func processedFolder(
        _ harness: PrefetchHarness, format: String, urls: [String], processedKey: (Int) -> String
    ) throws -> String {
        let folder = harness.temp.path("caches/\(format)-processed")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var location = CacheLocation(folder: folder)
        location.format = try #require(CacheFormats.named(format))
        let keys = (1...20).filter { $0 != 7 }.map(processedKey) + ["https://other.example.com/x.jpg"]
        for key in keys {
            let name = try location.entryName(forKey: key, index: nil)
            #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data([1])))
        }
        return folder
    }

    /// The forms as the libraries' sources build them (SDWebImage's `SDThumbnailedKeyForKey` and
    /// `SDTransformedKeyForKey`, Kingfisher's `computedKey` and processor identifiers), written
    /// out here, not by imgwarm: the detector names the form and the rule under it.
    @Test(arguments: [
        (
            "sdwebimage", "https://cdn.example.com/p/N.jpg?token=tN", ["strip-query"],
            "https://cdn.example.com/p/N-Thumbnail(%7B200.000000,200.000000%7D,1).jpg",
            "Thumbnail({200.000000,200.000000},1)"
        ),
        (
            "sdwebimage", "https://cdn.example.com/avatar/N?size=300&token=tN", ["drop-params:token"],
            "https://cdn.example.com/avatar/N?size=300-SDImageBlurTransformer(10.000000)",
            "SDImageBlurTransformer(10.000000)"
        ),
        (
            "kingfisher", "https://cdn.example.com/p/N.png?w=333&h=333&token=tN", ["drop-params:token"],
            "https://cdn.example.com/p/N.png?w=333&h=333@com.onevcat.Kingfisher.DownsamplingImageProcessor((333.0, 333.0))",
            "com.onevcat.Kingfisher.DownsamplingImageProcessor((333.0, 333.0))"
        ),
    ])
    func namesAProcessedForm(format: String, url: String, rule: [String], processed: String, identifier: String) throws
    {
        let harness = try PrefetchHarness()
        let urls = (1...20).map { url.replacingOccurrences(of: "N", with: "\($0)") }
        let folder = try Self.processedFolder(harness, format: format, urls: urls) {
            processed.replacingOccurrences(of: "N", with: "\($0)")
        }
        let list = try harness.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let text = try harness.run(["keys", "detect", "--cache-format", format, "--disk-cache-path", folder, list])
        #expect(text.status == 0, "\(text.stderr)")
        let words = rule.map { "--key-filter \($0)" }.joined(separator: " ")
        #expect(text.result.stdoutText.hasPrefix("0 of 20 URLs hit with the URL as given"), "\(text.result.stdoutText)")
        #expect(text.result.stdoutText.contains("19 of 20 URLs hit as "), "\(text.result.stdoutText)")
        #expect(text.result.stdoutText.contains("\(identifier)"))
        #expect(text.result.stdoutText.contains("with \(words): imgwarm writes no processed key"))
        #expect(text.result.stdoutText.contains("warm with \(words)"))

        let report = try Self.detect(harness, format: format, folder: folder, list: list)
        let found = try #require((report["processed"] as? [[String: Any]])?.first)
        #expect(found["identifier"] as? String == identifier)
        #expect(found["library"] as? String == (format == "kingfisher" ? "Kingfisher" : "SDWebImage"))
        #expect(found["keyFilter"] as? [String] == rule)
        #expect(found["hits"] as? Int == 19)
        let unexplained = try #require(report["unexplained"] as? [[String: Any]])
        #expect(unexplained.filter { $0["processed"] as? String == identifier }.count == 19)
        #expect(unexplained.first { $0["url"] as? String == urls[6] }?["processed"] == nil)
    }

    /// An app that stores the unprocessed image too (SDWebImage does by default): the rule is
    /// found from those entries, and the thumbnails beside them are named as well.
    @Test func namesAProcessedFormBesideTheOriginals() throws {
        let harness = try PrefetchHarness()
        let urls = (1...20).map { "https://cdn.example.com/p/\($0).jpg?token=t\($0)" }
        let folder = try Self.processedFolder(harness, format: "sdwebimage", urls: urls) {
            "https://cdn.example.com/p/\($0)-Thumbnail(%7B300.000000,300.000000%7D,1).jpg"
        }
        var location = CacheLocation(folder: folder)
        location.format = try #require(CacheFormats.named("sdwebimage"))
        for n in (1...20) where n != 7 {
            let name = try location.entryName(forKey: "https://cdn.example.com/p/\(n).jpg", index: nil)
            #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data([1])))
        }
        let list = try harness.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let report = try Self.detect(harness, format: "sdwebimage", folder: folder, list: list)
        #expect(report["keyFilter"] as? [String] == ["strip-query"])
        #expect(report["hits"] as? Int == 19)
        let found = try #require((report["processed"] as? [[String: Any]])?.first)
        #expect(found["identifier"] as? String == "Thumbnail({300.000000,300.000000},1)")
        #expect(found["keyFilter"] as? [String] == ["strip-query"])
        #expect(found["hits"] as? Int == 19)
    }

    /// A folder with no processed entries reports none.
    @Test func noProcessedFormWhereNoneHits() throws {
        let harness = try PrefetchHarness()
        let folder = harness.temp.path("caches/sdwebimage")
        let urls = try Self.seed(harness, format: "sdwebimage", folder: folder, rule: ["strip-query"])
        let list = try harness.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let report = try Self.detect(harness, format: "sdwebimage", folder: folder, list: list)
        #expect((report["processed"] as? [Any])?.isEmpty == true)
    }
}
