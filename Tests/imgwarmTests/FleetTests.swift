import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// `--shard K/N` (docs/usage.md, "Running on many machines"): N processes at once on one cache folder store exactly what one
/// unsharded run stores, and the server sees each URL once.
@Suite struct FleetTests {
    static let images = ["photo.jpg", "gradient.png", "anim.gif", "icon.bmp", "sticker.webp", "scan.tiff"]

    /// The keys do not depend on the test server's port (the filters give every URL the same
    /// host), so which shard owns which key is the same on every run.
    let filters = [
        "--key-filter", "drop-params:token", "--key-filter", "regex:#^http://[^/]+#https://cdn.example.com#",
    ]

    func key(_ path: String) -> String { "https://cdn.example.com" + path }

    @Test func shardsTogetherStoreWhatOneRunStores() throws {
        let h = try PrefetchHarness()
        let count = 3
        // 24 distinct keys; 4 lines repeat a key under another token; one invalid line.
        let paths = (0..<24).map { "/img/\(FleetTests.images[$0 % FleetTests.images.count])?n=\($0)" }
        var lines = paths.enumerated().map { h.url($1 + "&token=t\($0)") }
        lines.insert(h.url(paths[3] + "&token=again"), at: 10)
        lines.insert(h.url(paths[5] + "&token=again"), at: 15)
        lines.insert(h.url(paths[0] + "&token=again"), at: 25)
        lines.append(h.url(paths[23] + "&token=again"))
        lines.insert("not a url", at: 7)
        let list = try h.temp.write("fleet.txt", Data((lines.joined(separator: "\n") + "\n").utf8))
        let keys = paths.map(key)
        // Each shard owns some keys: the split is real, not one process doing everything.
        let owners = keys.map { Shard.of(key: $0, count: count) }
        #expect(Set(owners) == Set(1...count), "\(owners)")

        let shards = try (1...count).map { k in
            try BackgroundProcess(
                CLI.binary,
                [
                    "prefetch", "--disk-cache-path", h.folder, "--shard", "\(k)/\(count)", "--report",
                    h.temp.path("shard-\(k).json"),
                ]
                    + filters + [list],
                environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
        }
        for shard in shards {
            let end = shard.wait(timeout: 120)
            #expect(!end.timedOut)
            #expect(end.status == 1, "the invalid line: \(shard.stderr)")
        }

        // Each URL was requested once, by one shard; the repeated keys' other URLs never.
        let targets = h.server.requests.map(\.target)
        #expect(targets.count == keys.count, "\(targets)")
        for (index, path) in paths.enumerated() {
            #expect(targets.filter { $0 == path + "&token=t\(index)" }.count == 1, "\(path)")
        }
        #expect(!targets.contains { $0.hasSuffix("token=again") })

        // The reports: every listed key is the shard's own; the invalid line in each; the
        // duplicates where their key belongs; the counts add up.
        var downloaded = 0
        var duplicates = 0
        var listedKeys: [String] = []
        for k in 1...count {
            let report = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: h.temp.url.appendingPathComponent("shard-\(k).json"))) as? [String: Any])
            let entries = try #require(report["entries"] as? [[String: Any]])
            let totals = try #require(report["totals"] as? [String: Any])
            #expect((report["options"] as? [String: Any])?["shard"] as? String == "\(k)/\(count)")
            #expect(entries.filter { $0["outcome"] as? String == "invalid" }.map { $0["line"] as? Int } == [8])
            let mine = owners.filter { $0 == k }.count
            let dupes = [3, 5, 0, 23].filter { owners[$0] == k }.count
            #expect(totals["downloaded"] as? Int == mine)
            #expect(totals["duplicates"] as? Int == dupes)
            #expect(totals["lines"] as? Int == lines.count)
            #expect(totals["otherShard"] as? Int == lines.count - 1 - mine - dupes)
            #expect(totals["finishedCount"] as? Int == 1 + mine + dupes)
            // The invalid line is no URL: every URL of the shard is in the cache.
            #expect(
                shards[k - 1].stderr.contains("\(mine) of \(plural(mine, "URL")) in the cache"),
                "\(shards[k - 1].stderr)")
            #expect(
                shards[k - 1].stderr.contains("\(plural(lines.count - 1 - mine - dupes, "line")) left to other shards.")
            )
            #expect(entries.count == 1 + mine + dupes, "other shards' lines are not listed")
            for entry in entries where entry["outcome"] as? String != "invalid" {
                let key = try #require(entry["key"] as? String)
                #expect(Shard.of(key: key, count: count) == k)
                if entry["outcome"] as? String == "downloaded" { listedKeys.append(key) }
            }
            downloaded += totals["downloaded"] as? Int ?? 0
            duplicates += totals["duplicates"] as? Int ?? 0
        }
        #expect(downloaded == keys.count)
        #expect(duplicates == 4)
        #expect(listedKeys.sorted() == keys.sorted())

        // One unsharded run into another folder stores the same files, byte for byte.
        h.server.clearLog()
        let single = h.temp.path("single/com.hackemist.SDImageCache/default")
        let run = try h.run(["prefetch", "--disk-cache-path", single, "--report", "-"] + filters + [list])
        #expect(run.status == 1)
        #expect(try run.totals["downloaded"] as? Int == keys.count)
        #expect(try run.totals["otherShard"] as? Int == 0)
        let shardFiles = try FileManager.default.contentsOfDirectory(atPath: h.folder).sorted()
        let singleFiles = try FileManager.default.contentsOfDirectory(atPath: single).sorted()
        #expect(shardFiles == singleFiles)
        #expect(Set(shardFiles) == Set(keys.map(SDFileName.forKey)))
        for name in singleFiles {
            #expect(
                FileManager.default.contents(atPath: h.folder + "/" + name)
                    == FileManager.default.contents(atPath: single + "/" + name), "\(name)")
        }
    }

    /// The container script of `examples/kubernetes-indexed-job.yaml` (shown in docs/usage.md), run
    /// by `sh` the way the Job runs it: one process per completion index, all at once.
    @Test func theKubernetesManifestScriptWarmsEveryShard() throws {
        let manifestURL = Fixtures.repositoryRoot.appendingPathComponent("examples/kubernetes-indexed-job.yaml")
        let manifest = try String(contentsOf: manifestURL, encoding: .utf8)
        let readme = try String(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/usage.md"), encoding: .utf8)
        #expect(readme.contains(manifest), "the manual shows the manifest as it is in examples/")
        let script = try #require(FleetTests.blockScalar(after: "args:", in: manifest))
        #expect(script.contains("--shard auto/8"))
        #expect(!script.contains("$(("), "no shell arithmetic on the index")
        #expect(manifest.contains("completions: 8 "))

        let h = try PrefetchHarness()
        let urls = (0..<15).map { h.url("/img/\(FleetTests.images[$0 % FleetTests.images.count])?n=\($0)") }
        let list = try h.temp.write("feed.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let shards = 8
        var environment = CLI.environment(home: h.temp.path)
        environment["PATH"] = Fixtures.productsFolder.path + ":/usr/bin:/bin"
        environment["IMGWARM_CACHE_DIR"] = h.temp.path("caches")
        environment["LIST"] = list
        environment["REPORTS"] = h.temp.path("reports")
        let pods = try (0..<shards).map { index in
            var env = environment
            env["JOB_COMPLETION_INDEX"] = String(index)
            return try BackgroundProcess(
                URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: env, folder: h.temp.url)
        }
        for pod in pods {
            let end = pod.wait(timeout: 120)
            #expect(!end.timedOut)
            #expect(end.status == 0, "\(pod.stderr)")
        }
        // IMGWARM_CACHE_DIR/com.hackemist.SDImageCache/default is the harness's folder.
        h.expectCache(
            exactly: Dictionary(
                uniqueKeysWithValues: urls.map { url in
                    let name = String(url.split(separator: "/").last!.split(separator: "?").first!)
                    return (
                        url,
                        [UInt8](
                            FileManager.default.contents(
                                atPath: Fixtures.root.appendingPathComponent("images/valid/" + name).path)!)
                    )
                }))
        #expect(h.server.requests.count == urls.count)
        // Pod i ran as shard i+1 of 8, read from its JOB_COMPLETION_INDEX.
        var otherShards = 0
        for index in 0..<shards {
            let data = try #require(FileManager.default.contents(atPath: h.temp.path("reports/pod-\(index).json")))
            let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let totals = try #require(report["totals"] as? [String: Any])
            let shard = try #require(totals["shard"] as? [String: Any], "pod \(index)'s report names its shard")
            #expect(shard["index"] as? Int == index + 1)
            #expect(shard["count"] as? Int == shards)
            let scheduler = try #require(shard["scheduler"] as? [String: Any])
            #expect(scheduler["id"] as? String == "kubernetes")
            #expect(scheduler["variables"] as? [String: String] == ["JOB_COMPLETION_INDEX": String(index)])
            #expect((report["options"] as? [String: Any])?["shard"] as? String == "\(index + 1)/\(shards)")
            let own = urls.filter { Shard.of(key: $0, count: shards) == index + 1 }.count
            #expect(totals["downloaded"] as? Int == own)
            otherShards += totals["otherShard"] as? Int ?? 0
        }
        #expect(otherShards == urls.count * (shards - 1))
    }

    /// The text of the YAML block scalar (`- |`) that follows the line holding `marker`.
    static func blockScalar(after marker: String, in yaml: String) -> String? {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains(marker) }), start + 2 < lines.count,
            lines[start + 1].trimmingCharacters(in: .whitespaces) == "- |"
        else { return nil }
        let body = lines[(start + 2)...]
        let indent = body.first!.prefix { $0 == " " }.count
        var script: [Substring] = []
        for line in body {
            if !line.isEmpty && line.prefix(while: { $0 == " " }).count < indent { break }
            script.append(line.dropFirst(min(indent, line.count)))
        }
        return script.joined(separator: "\n")
    }

    /// A shard's dry run classifies only its own lines.
    @Test func dryRunsAreSharded() throws {
        let h = try PrefetchHarness()
        let lines = (0..<12).map { h.url("/img/photo.jpg?n=\($0)") }
        var wouldFetch = 0
        for k in 1...2 {
            let run = try h.prefetch(lines, options: ["--shard", "\(k)/2", "--dry-run"])
            #expect(run.status == 0)
            let own = lines.filter { Shard.of(key: $0, count: 2) == k }.count
            #expect(try run.totals["wouldFetch"] as? Int == own)
            #expect(try run.totals["otherShard"] as? Int == lines.count - own)
            #expect(try run.entries.count == own)
            #expect(run.stderr.contains("(dry run): \(plural(own, "line")): \(own) would be fetched"), "\(run.stderr)")
            #expect(run.stderr.contains("\(plural(lines.count - own, "line")) left to other shards."))
            wouldFetch += own
        }
        #expect(wouldFetch == lines.count)
        #expect(h.server.requests.isEmpty)
    }
}

/// "1 line", "2 lines", as the summary says them.
func plural(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
