import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `clean --cache-format a,b` (issue 54): one format after another, each exactly as a clean of
/// it alone (its lines, its rules, its defaults, its lock), the options each format takes given
/// to it, the exit status the worst, one report of each format's document, one metrics file of
/// each format's figures.
@Suite struct SeveralFormatsCleanTests {
    static let schema = Fixtures.repositoryRoot.appendingPathComponent("docs/clean-report.schema.json")

    /// SDWebImage's and Glide's folders under one caches root, each filled by a prefetch of the
    /// fixture images.
    struct Seeded {
        let h: PrefetchHarness
        let root: String
        let sdwebimage: CacheLocation
        let glide: CacheLocation

        init() throws {
            h = try PrefetchHarness()
            root = h.temp.path("caches")
            let urls = ["/img/photo.jpg", "/img/gradient.png", "/img/anim.gif"].map(h.url)
            let list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
            for name in ["sdwebimage", "glide"] {
                let run = try h.run(["prefetch", "--cache-format", name, "--cache-dir", root, "--quiet", list])
                #expect(run.status == 0, "\(name): \(run.stderr)")
            }
            sdwebimage = try CacheLocation(root: root, format: try #require(CacheFormats.named("sdwebimage")))
            glide = try CacheLocation(root: root, format: try #require(CacheFormats.named("glide")))
        }

        func clean(_ formats: String, _ options: [String]) throws -> PrefetchHarness.Run {
            try h.run(["clean", "--cache-format", formats, "--cache-dir", root] + options)
        }

        /// The names of `location`'s folder.
        func names(_ location: CacheLocation) -> Set<String> {
            Set((try? FileManager.default.contentsOfDirectory(atPath: location.folder)) ?? [])
        }

        /// Copies the caches root (times kept) to `name`, or back from it.
        func copy(from source: String, to target: String) throws {
            try? FileManager.default.removeItem(atPath: target)
            let run = try ProcessRunner.run(URL(fileURLWithPath: "/bin/cp"), ["-a", source, target])
            #expect(run.status == 0, "\(run.stderrText)")
        }
    }

    static func report(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Each folder is trimmed by its own rule to the one --max-size, as a clean of it alone
    /// trims it: the same lines, in the order given, and the same files left.
    @Test func eachFormatIsCleanedAsAloneInTheOrderGiven() throws {
        let s = try Seeded()
        let logical = try FileManager.default.contentsOfDirectory(atPath: s.sdwebimage.folder).reduce(0) {
            $0
                + ((try FileManager.default.attributesOfItem(atPath: s.sdwebimage.folder + "/" + $1)[.size] as? Int)
                    ?? 0)
        }
        let size = String(logical * 3 / 4)
        let saved = s.h.temp.path("saved")
        try s.copy(from: s.root, to: saved)

        // Judged by modification time, which the copies keep (reading a file may move its access
        // time): --expire-type is SDWebImage's alone, and given to it alone.
        let byModification = ["--expire-type", "modification"]
        var alone: [PrefetchHarness.Run] = []
        for (name, options) in [("glide", []), ("sdwebimage", byModification)] {
            alone.append(try s.clean(name, ["--max-size", size] + options))
        }
        let left = (s.names(s.glide), s.names(s.sdwebimage))
        try s.copy(from: saved, to: s.root)

        let report = s.h.temp.path("clean.json")
        let several = try s.clean("glide,sdwebimage", ["--max-size", size, "--report", report] + byModification)
        #expect(several.status == 0, "\(several.stderr)")
        #expect(several.stderr == alone.map(\.stderr).joined(), "\(several.stderr)")
        #expect(several.stderr.contains("deleted") && !alone.contains { $0.stderr.contains(" 0 trimmed") })
        #expect(s.names(s.glide) == left.0 && s.names(s.sdwebimage) == left.1)

        let document = try Self.report(report)
        #expect(try JSONSchema(contentsOf: Self.schema).validate(document) == [])
        #expect(Set(document.keys) == ["schemaVersion", "tool", "command", "caches"])
        let caches = try #require(document["caches"] as? [[String: Any]])
        #expect(caches.map { $0["cacheFormat"] as? String } == ["glide", "sdwebimage"])
        #expect(caches.map { $0["cacheFolder"] as? String } == [s.glide.folder, s.sdwebimage.folder])
        let options = caches.map { $0["options"] as? [String: Any] ?? [:] }
        let glideDate = try CleanOptions().policy(for: s.glide.format).expireType.rawValue
        #expect(options.map { $0["expireType"] as? String } == [glideDate, "modification"])
        for cache in caches {
            #expect((cache["options"] as? [String: Any])?["maxSizeBytes"] as? Int == Int(size))
            #expect(((cache["totals"] as? [String: Any])?["trimmed"] as? Int ?? 0) > 0)
        }

        // One format writes today's document, not a list of one.
        let one = try s.clean("glide", ["--dry-run", "--report", "-"])
        #expect(one.status == 0)
        #expect(try one.report["cacheFormat"] as? String == "glide")
        #expect(try JSONSchema(contentsOf: Self.schema).validate(try one.report) == [])
    }

    /// Left out, an option takes each format's own default (Glide's 250 MiB, SDWebImage's
    /// none); an option only some formats take goes to those; one that none takes is refused
    /// with each format's own refusal, before anything is done.
    @Test func eachFormatTakesItsOwnDefaultsAndTheOptionsItTakes() throws {
        let temp = try TemporaryFolder()
        let root = temp.path("caches")
        let names = ["sdwebimage", "glide", "kingfisher"]
        let formats = try names.map { try #require(CacheFormats.named($0)) }
        #expect(CleanOptions.format(formats[0], takes: .maxAge))
        #expect(!CleanOptions.format(formats[1], takes: .maxAge) && !CleanOptions.format(formats[2], takes: .maxAge))

        let run = try CLI.run(
            ["clean", "--cache-format", names.joined(separator: ","), "--cache-dir", root, "--dry-run"]
                + ["--max-age", "1d", "--report", "-"], home: temp.path)
        #expect(run.status == 0, "\(run.stderrText)")
        let document = try CLI.json(run)
        #expect(try JSONSchema(contentsOf: Self.schema).validate(document) == [])
        let options = try #require(document["caches"] as? [[String: Any]]).map { $0["options"] as? [String: Any] }
        #expect(options.map { $0?["maxSizeBytes"] as? UInt64 } == formats.map(\.cleanRules.defaultMaxSize))
        #expect(options[1]?["maxSizeBytes"] as? Int == 250 * 1024 * 1024)
        #expect(options.map { $0?["maxAgeSeconds"] as? Double } == [86400, nil, nil])

        // --max-age: neither glide nor kingfisher takes it. Each refusal as a clean of it alone
        // says it, and nothing is done.
        var refusals = ""
        for name in ["glide", "kingfisher"] {
            let alone = try CLI.run(
                ["clean", "--cache-format", name, "--cache-dir", root, "--max-age", "1d"], home: temp.path)
            #expect(alone.status == 2)
            refusals += alone.stderrText
        }
        let refused = try CLI.run(
            ["clean", "--cache-format", "glide,kingfisher", "--cache-dir", root, "--max-age", "1d"], home: temp.path)
        #expect(refused.status == 2)
        #expect(refused.stderrText == refusals, "\(refused.stderrText)")
        #expect(refused.stderrText.contains("imgwarm: --max-age does not apply to kingfisher: "))

        let state = try CLI.run(
            ["clean", "--cache-format", "glide,kingfisher", "--cache-dir", root, "--state", temp.path("s.sqlite")],
            home: temp.path)
        #expect(state.status == 2)
        #expect(state.stderrText.contains("--state names one database"), "\(state.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: root))
    }

    /// A format whose clean fails (its lock held too long) is said, its document closed with the
    /// error; the others are cleaned; the exit status is the worst. The metrics file holds each
    /// folder's figures, each family once, each folder's last success its own.
    @Test func aFormatThatFailsLetsTheOthersGoOn() throws {
        let s = try Seeded()
        let metrics = s.h.temp.path("clean.prom")
        let first = try s.clean("glide,sdwebimage", ["--dry-run", "--all", "--metrics", metrics])
        #expect(first.status == 0, "\(first.stderr)")
        let before = try MetricsTests.parse(String(contentsOfFile: metrics, encoding: .utf8))
        let glide = "cache=\"\(s.glide.folder)\""
        let sdwebimage = "cache=\"\(s.sdwebimage.folder)\""
        let glideSuccess = try #require(before["imgwarm_clean_last_success_timestamp_seconds{\(glide)}"])
        #expect(before["imgwarm_clean_last_success_timestamp_seconds{\(sdwebimage)}"] != nil)

        let glideFiles = s.names(s.glide)
        let lock = try CacheLock(location: s.glide)
        try lock.lockExclusive(timeout: 5)
        defer { lock.unlock() }
        usleep(20_000)
        let report = s.h.temp.path("clean.json")
        let run = try s.clean(
            "glide,sdwebimage", ["--all", "--lock-timeout", "0.2", "--report", report, "--metrics", metrics])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("imgwarm: the cache lock \(s.glide.privateFolder)/lock is held"), "\(run.stderr)")
        #expect(run.stderr.contains("imgwarm clean: deleted 3 files"), "\(run.stderr)")
        #expect(s.names(s.glide) == glideFiles && s.names(s.sdwebimage).isEmpty)

        let document = try Self.report(report)
        #expect(try JSONSchema(contentsOf: Self.schema).validate(document) == [])
        let caches = try #require(document["caches"] as? [[String: Any]])
        #expect((caches[0]["error"] as? String)?.hasPrefix("the cache lock ") == true)
        #expect(caches[0]["totals"] == nil)
        #expect((caches[1]["totals"] as? [String: Any])?["cleared"] as? Int == 3)

        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        #expect(text.components(separatedBy: "# HELP imgwarm_clean_exit_status ").count == 2, "\(text)")
        let after = try MetricsTests.parse(text)
        #expect(after["imgwarm_clean_exit_status{\(glide)}"] == 3)
        #expect(after["imgwarm_clean_exit_status{\(sdwebimage)}"] == 0)
        #expect(after["imgwarm_clean_last_success_timestamp_seconds{\(glide)}"] == glideSuccess)
        let cleaned = try #require(after["imgwarm_clean_last_success_timestamp_seconds{\(sdwebimage)}"])
        #expect(cleaned > glideSuccess)
        #expect(after["imgwarm_clean_removed_files{\(sdwebimage),reason=\"cleared\"}"] == 3)
        #expect(after["imgwarm_cache_files{\(sdwebimage),command=\"clean\"}"] == 0)
        if let accepted = try MetricsTests.promtoolAccepts(metrics) { #expect(accepted, "promtool check metrics") }
    }
}
