import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `imgwarm keys detect` on folders that `imgwarm prefetch --key-filter` filled from a loopback
/// server: it names the rule that made each, with its hits, and changes nothing in the folder.
struct KeysDetectTests {
    static let rules: [[String]] = [
        [], ["strip-query"], ["scheme-host-path"], ["drop-params:token"], ["drop-params:token,expires,sig"],
        ["keep-params:w,h"],
    ]
    static let parameters = ["w", "h", "token", "expires", "sig", "v"]

    static func schema() throws -> JSONSchema {
        try JSONSchema(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/keys-detect.schema.json"))
    }

    /// Every name under `folder` with its size and modification time.
    static func snapshot(_ folder: String) throws -> [String: String] {
        var files: [String: String] = [:]
        let manager = FileManager.default
        for name in try manager.subpathsOfDirectory(atPath: folder) {
            let attributes = try manager.attributesOfItem(atPath: folder + "/" + name)
            files[name] = "\(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? 0)"
        }
        return files
    }

    /// 20 URLs on distinct paths (the port of the loopback server is one `scheme-host-path`
    /// drops), each with the six parameters; the cache holds 19 of them (5 % absent) and one
    /// entry of a URL not in the list (5 % unrelated), all under `rule`.
    @Test(arguments: ["sdwebimage", "kingfisher", "glide"], rules)
    func namesTheRuleThatMadeTheCache(format: String, rule: [String]) throws {
        let harness = try PrefetchHarness()
        let folder = harness.temp.path("caches/\(format)")
        let urls = (1...20).map { n in
            harness.url("/max-age/\(n)/photo.jpg?")
                + Self.parameters.map { "\($0)=\($0)\(n * 37 % 101)" }.joined(separator: "&")
        }
        let stored = urls.filter { !$0.contains("/max-age/7/") } + [harness.url("/max-age/99/photo.jpg?w=1")]
        let storedList = try harness.temp.write("stored.txt", Data((stored.joined(separator: "\n") + "\n").utf8))
        let list = try harness.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let seeded = try harness.run(
            ["prefetch", "--cache-format", format, "--disk-cache-path", folder, "--quiet"]
                + rule.flatMap { ["--key-filter", $0] } + [storedList])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let before = try Self.snapshot(folder)

        let text = try harness.run(["keys", "detect", "--cache-format", format, "--disk-cache-path", folder, list])
        #expect(text.status == 0, "\(text.stderr)")
        let words = rule.isEmpty ? "the URL as given" : rule.map { "--key-filter \($0)" }.joined(separator: " ")
        #expect(text.result.stdoutText.hasPrefix("19 of 20 URLs hit with \(words)"), "\(text.result.stdoutText)")
        #expect(text.result.stdoutText.contains(urls[6]))

        let json = try harness.run(
            ["keys", "detect", "--json", "--cache-format", format, "--disk-cache-path", folder, list])
        #expect(json.status == 0)
        let report = try json.report
        #expect(try Self.schema().validate(report) == [])
        #expect(report["keyFilter"] as? [String] == rule)
        #expect(report["hits"] as? Int == 19)
        #expect(report["urls"] as? Int == 20)
        #expect(report["plainHits"] as? Int == (rule.isEmpty ? 19 : 0))
        #expect((report["unexplained"] as? [[String: Any]])?.map { $0["url"] as? String } == [urls[6]])
        #expect(try Self.snapshot(folder) == before)
    }

    /// No entry of the folder is any URL's: exit 1, the URL as given.
    @Test func noRuleHitsExitsOne() throws {
        let harness = try PrefetchHarness()
        let list = try harness.temp.write("list.txt", Data((harness.url("/img/photo.jpg") + "\n").utf8))
        let run = try harness.run(["keys", "detect", "--disk-cache-path", harness.folder, list])
        #expect(run.status == 1)
        #expect(run.result.stdoutText.hasPrefix("0 of 1 URLs hit with the URL as given"))
    }

    /// A folder that does not exist is most often a wrong path: the run says so on standard error.
    @Test func aMissingFolderIsNamed() throws {
        let harness = try PrefetchHarness()
        let list = try harness.temp.write("list.txt", Data((harness.url("/img/photo.jpg") + "\n").utf8))
        let missing = harness.temp.path("not-pulled")
        let run = try harness.run(["keys", "detect", "--disk-cache-path", missing, list])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(missing) does not exist: no URL can hit"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing), "keys detect creates nothing")
    }

    /// verify suggests the detector when most keys are not found but the folder holds entries,
    /// and not when the keys are the app's.
    @Test func verifySuggestsTheDetector() throws {
        let harness = try PrefetchHarness()
        let urls = (1...8).map { harness.url("/max-age/\($0)/photo.jpg?token=t\($0)") }
        let list = try harness.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let seeded = try harness.run(
            ["prefetch", "--disk-cache-path", harness.folder, "--quiet", "--key-filter", "strip-query", list])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let missing = try harness.run(["verify", "--disk-cache-path", harness.folder, list])
        #expect(missing.status == 1)
        #expect(missing.result.stdoutText.contains("yet the folder holds 8 entries"), "\(missing.result.stdoutText)")
        #expect(missing.result.stdoutText.contains("run imgwarm keys detect"))
        let found = try harness.run(
            ["verify", "--disk-cache-path", harness.folder, "--key-filter", "strip-query", list])
        #expect(found.status == 0)
        #expect(!found.result.stdoutText.contains("keys detect"), "\(found.result.stdoutText)")
    }

    /// A Kingfisher folder whose names carry the key's path extension
    /// (`autoExtAfterHashedFileName`): the rule is found with the extension, and said to be one
    /// imgwarm does not write.
    @Test func kingfisherNamesWithTheirExtension() throws {
        let harness = try PrefetchHarness()
        let folder = harness.temp.path("caches/kingfisher-ext")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var location = CacheLocation(folder: folder)
        location.format = try #require(CacheFormats.named("kingfisher"))
        let urls = (1...20).map { "https://cdn.example.com/p/\($0).png?token=t\($0)" }
        for url in urls.dropFirst() {
            let name = try location.entryName(forKey: KeyFilter.stripQuery.apply(url), index: nil)
            #expect(FileManager.default.createFile(atPath: folder + "/" + name + ".png", contents: Data()))
        }
        let list = try harness.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let text = try harness.run([
            "keys", "detect", "--cache-format", "kingfisher", "--disk-cache-path", folder, list,
        ])
        #expect(text.status == 1)
        #expect(
            text.result.stdoutText.contains(
                "19 of 20 URLs hit with --key-filter strip-query when the names carry the key's path extension"),
            "\(text.result.stdoutText)")
        let json = try harness.run(
            ["keys", "detect", "--json", "--cache-format", "kingfisher", "--disk-cache-path", folder, list])
        let report = try json.report
        #expect(try Self.schema().validate(report) == [])
        let extended = try #require(report["withExtension"] as? [String: Any])
        #expect(extended["keyFilter"] as? [String] == ["strip-query"])
        #expect(extended["hits"] as? Int == 19)
    }
}
