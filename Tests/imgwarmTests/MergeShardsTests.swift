import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// Issue 52 as a user meets it: three per-machine shards (`prefetch --shard K/3`, each into a
/// caches root of its own), merged with `imgwarm merge`, give a cache `verify` finds every key
/// of the list in, for every format; a second merge changes no file.
@Suite struct MergeShardsTests {
    static let images = ["photo.jpg", "gradient.png", "anim.gif", "icon.bmp", "sticker.webp", "scan.tiff"]

    /// The DiskLruCache journals' headers: app version, values per entry, the image's value.
    static let journals: [String: (appVersion: Int, valueCount: Int, dataIndex: Int)] = [
        "glide": (1, 1, 0), "coil": (3, 2, 1), "coil2": (1, 2, 1),
    ]

    static func md5(_ data: Data) throws -> String {
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/openssl"), ["dgst", "-md5", "-r"], stdin: data)
        return String(result.stdoutText.prefix { $0 != " " })
    }

    /// The files merge writes anew rather than copies: the journals, flutter's database, and
    /// imgwarm's own folder (the state database, the lock).
    static func isIndex(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return path.hasPrefix(".imgwarm/") || path.contains("/.imgwarm/") || name.hasPrefix("journal")
            || name.hasPrefix("libCachedImageData.db")
    }

    /// Every file under `root` with its size and modification time (nanoseconds), by path.
    static func snapshot(_ root: String) throws -> [String: [Int]] {
        var files: [String: [Int]] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        while let path = enumerator.nextObject() as? String {
            var status = stat()
            guard lstat(root + "/" + path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            files[path] = [
                Int(status.st_size), Int(status.st_mtim.tv_sec) * 1_000_000_000 + Int(status.st_mtim.tv_nsec),
            ]
        }
        return files
    }

    @Test(arguments: CacheFormats.names)
    func threeShardsMergedHoldEveryKey(format: String) throws {
        let h = try PrefetchHarness()
        // Fresh for a day, so the HTTP caches (OkHttp, Picasso, Coil 1) serve them as hits too.
        let urls = (0..<24).map { h.url("/max-age/86400/\(Self.images[$0 % Self.images.count])?n=\($0)") }
        let list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let roots = (1...3).map { h.temp.path("machine\($0)") }
        var stored = 0
        for (index, root) in roots.enumerated() {
            let run = try h.run([
                "prefetch", "--cache-format", format, "--cache-dir", root, "--shard", "\(index + 1)/3", "--report",
                "-", list,
            ])
            #expect(run.status == 0, "shard \(index + 1): \(run.stderr)")
            stored += try run.totals["downloaded"] as? Int ?? 0
        }
        #expect(stored == urls.count, "the shards stored every URL once between them")

        let all = h.temp.path("all")
        let merge = ["merge", "--cache-format", format, "--cache-dir", all] + roots
        let first = try h.run(merge)
        #expect(first.status == 0, "\(first.stderr)")
        let verify = try h.run(["verify", "--cache-format", format, "--cache-dir", all, list])
        #expect(verify.status == 0, "every key hits: \(verify.result.stdoutText) \(verify.stderr)")

        if let journal = Self.journals[format], OkHttpJava.available {
            // OkHttp's own DiskLruCache (the lineage of Glide's and Coil's, the same journal)
            // serves every merged entry, each with the bytes the server sent.
            let location = try CacheLocation(root: all, format: try #require(CacheFormats.named(format)))
            let served = try OkHttpJava.probe(
                ["journal", location.folder, "\(journal.appVersion)", "\(journal.valueCount)", "\(journal.dataIndex)"],
                urls: [])
            #expect(served.count == urls.count, "\(served)")
            let bodies = Set(try Self.images.map { try Self.md5(Fixtures.data("images/valid/" + $0)) })
            #expect(served.allSatisfy { bodies.contains(String($0.split(separator: " ").last ?? "")) }, "\(served)")
        }

        // Each file of a source is in the destination under its path with its modification time
        // (companions too: OkHttp's and Coil's `<key>.0`), but for the indexes merge rewrites.
        var compared = 0
        for root in roots {
            let source = try Self.snapshot(root)
            let destination = try Self.snapshot(all)
            for (path, status) in source where !Self.isIndex(path) {
                guard let copy = destination[path] else { continue }
                #expect(copy == status, "\(path): size and modification time \(copy) against the source's \(status)")
                compared += 1
            }
        }
        #expect(compared >= urls.count, "the files compared: \(compared)")

        let before = try Self.snapshot(all)
        #expect(before.count >= urls.count, "\(before.keys.sorted())")
        let second = try h.run(merge + ["--quiet"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try Self.snapshot(all) == before, "a second merge changes no file")
    }

    /// A merge ended by SIGTERM midway (the binary: the process is what is tested) leaves a
    /// cache the library reads, with some entries missing and none half there (verify finds
    /// hits and misses, nothing damaged); merged again, it holds every entry.
    @Test func aMergeEndedBySIGTERMIsCompletedByTheNext() throws {
        let temp = try TemporaryFolder()
        let urls = (0..<3000).map { "https://cdn.example.com/stop/\($0).png" }
        let roots = (0..<3).map { temp.path("machine\($0)") }
        for (index, root) in roots.enumerated() {
            try MergeCommandTests.fill(
                root, format: "glide", urls: urls.enumerated().filter { $0.offset % 3 == index }.map(\.element))
        }
        let list = try temp.write("list.txt", Data(urls.map { $0 + "\n" }.joined().utf8))
        let all = temp.path("all")
        let merge = ["merge", "--quiet", "--cache-format", "glide", "--cache-dir", all] + roots
        let process = try BackgroundProcess(
            CLI.binary, merge, environment: CLI.environment(home: temp.path), folder: temp.url)
        let folder = all + "/image_manager_disk_cache"
        _ = eventually(timeout: 60) {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).count > 100
        }
        process.signal(SIGTERM)
        let end = process.wait(timeout: 60)
        #expect(!end.timedOut)
        #expect(end.signaled && end.status == SIGTERM, "the merge was stopped midway: \(end)")

        let stopped = try CLI.run(
            ["verify", "--json", "--cache-format", "glide", "--cache-dir", all, list], home: temp.path)
        #expect(stopped.status == 0 || stopped.status == 1, "\(stopped.stderrText)")
        let entries = try CLI.json(stopped)["entries"] as? [[String: Any]] ?? []
        #expect(entries.count == urls.count)
        let reasons = Set(entries.compactMap { $0["reason"] as? String })
        #expect(
            reasons.isSubset(of: ["absent", "not-indexed"]), "only missing entries, never a damaged one: \(reasons)")

        let again = try CLI.run(merge, home: temp.path)
        #expect(again.status == 0, "\(again.stderrText)")
        let whole = try CLI.run(
            ["verify", "--quiet", "--cache-format", "glide", "--cache-dir", all, list], home: temp.path)
        #expect(whole.status == 0, "\(whole.stdoutText)")
    }
}
