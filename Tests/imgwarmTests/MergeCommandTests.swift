import Foundation
import ImgwarmKit
import ImgwarmSystem
import TestSupport
import Testing

/// `imgwarm merge` on the command line (docs/merge.md): its help, its exit codes, its report. The
/// engine's rules are `MergeJobTests`' (in process).
@Suite struct MergeCommandTests {
    static let urls = (1...6).map { "https://cdn.example.com/cli/\($0).png" }

    /// A cache of `format` in the caches root `root`, holding `urls` as prefetch stores them.
    static func fill(_ root: String, format: String, urls: [String]) throws {
        let location = try CacheLocation(root: root, format: try #require(CacheFormats.named(format)))
        let store = try CacheStore(location: location)
        let image = [UInt8](try Fixtures.data("images/valid/gradient.png"))
        for url in urls {
            let name = try location.entryName(forKey: url, index: store.index)
            try image.withUnsafeBytes { try store.store($0, as: name) }
        }
        try store.flushIndex(lockTimeout: 5)
    }

    @Test func helpSaysTheRulesAndTheExitCodes() throws {
        let text = try HelpTextTests.help(["merge"])
        #expect(text.contains("docs/merge.md"), "\(text)")
        #expect(text.contains("OkHttp-Received-Millis"), "\(text)")
        #expect(text.contains("a second merge of the same sources changes nothing"), "\(text)")
        #expect(text.contains("flutter's touched"), "\(text)")
    }

    /// Two shards merged, the report valid against its schema; merged again, nothing changes.
    @Test func twoShardsMergeAndTheReportFollowsItsSchema() throws {
        let temp = try TemporaryFolder()
        try Self.fill(temp.path("m1"), format: "glide", urls: Array(Self.urls.prefix(3)))
        try Self.fill(temp.path("m2"), format: "glide", urls: Array(Self.urls.suffix(3)))
        let arguments = ["merge", "--cache-format", "glide", "--cache-dir", temp.path("all"), "--report", "-"]
        let run = try CLI.run(arguments + [temp.path("m1"), temp.path("m2")], home: temp.path)
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.stderrText.contains("6 added, 0 replaced, 0 kept, 0 unchanged, 0 skipped (0 conflicts)"))
        #expect(run.stderrText.hasPrefix("imgwarm merge: merged 6 entries of 2 sources"), "\(run.stderrText)")
        let document = try CLI.json(run)
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/merge-report.schema.json"))
        #expect(schema.validate(document) == [])
        let list = try temp.write("list.txt", Data(Self.urls.map { $0 + "\n" }.joined().utf8))
        let verify = try CLI.run(
            ["verify", "--quiet", "--cache-format", "glide", "--cache-dir", temp.path("all"), list], home: temp.path)
        #expect(verify.status == 0, "\(verify.stdoutText)")
        let again = try CLI.run(
            [
                "merge", "--quiet", "--cache-format", "glide", "--cache-dir", temp.path("all"), temp.path("m1"),
                temp.path("m2"),
            ], home: temp.path)
        #expect(again.status == 0 && again.stderrText.isEmpty, "\(again.stderrText)")
    }

    /// A missing source, or one of another format, is exit 2, and the destination is not made.
    @Test func aSourceThatIsNoCacheIsAUsageErrorThatChangesNothing() throws {
        let temp = try TemporaryFolder()
        try Self.fill(temp.path("m1"), format: "glide", urls: Self.urls)
        try Self.fill(temp.path("sd"), format: "sdwebimage", urls: Self.urls)
        let base = ["merge", "--cache-format", "glide", "--disk-cache-path", temp.path("all/image_manager_disk_cache")]
        let missing = try CLI.run(
            base + [temp.path("m1/image_manager_disk_cache"), temp.path("nowhere")], home: temp.path)
        #expect(missing.status == 2, "\(missing.stderrText)")
        #expect(missing.stderrText.contains("there is no cache folder at \(temp.path("nowhere"))"))
        let other = try CLI.run(
            base + [temp.path("m1/image_manager_disk_cache"), temp.path("sd/com.hackemist.SDImageCache/default")],
            home: temp.path)
        #expect(other.status == 2, "\(other.stderrText)")
        #expect(other.stderrText.contains("is not a glide cache"), "\(other.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: temp.path("all")))
    }
}
