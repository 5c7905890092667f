import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// Cache keys the way apps compute them (docs/cache-contract.md §6): explicit JSON Lines keys and --key-filter,
/// through prefetch, path, --dry-run, reports and the blacklist, with the real binary.
@Suite struct CacheKeyTests {
    /// The issue's acceptance example, and `path -` with a chain of filters.
    @Test func pathPrintsTheFileAnAppWithTheFilterReads() throws {
        let temp = try TemporaryFolder()
        let folder = temp.path("cache")
        let filtered = try CLI.run(
            [
                "path", "--disk-cache-path", folder, "--key-filter", "strip-query",
                "https://cdn.example.com/a.jpg?token=1",
            ], home: temp.path)
        #expect(filtered.status == 0)
        #expect(filtered.stdoutText == folder + "/" + SDFileName.forKey("https://cdn.example.com/a.jpg") + "\n")
        let plain = try CLI.run(
            ["path", "--disk-cache-path", folder, "https://cdn.example.com/a.jpg"], home: temp.path)
        #expect(filtered.stdoutText == plain.stdoutText)
        let unfiltered = try CLI.run(
            ["path", "--disk-cache-path", folder, "https://cdn.example.com/a.jpg?token=1"], home: temp.path)
        #expect(unfiltered.stdoutText != filtered.stdoutText)

        // Standard input, two filters left to right.
        let input = Data("https://a.com/x.png?w=1&sig=2\nhttp://a.com/y.png?sig=3\n".utf8)
        let chained = try CLI.run(
            [
                "path", "--name-only", "--key-filter", "drop-params:sig", "--key-filter", "regex:#^http://#https://#",
                "-",
            ], stdin: input, home: temp.path)
        #expect(chained.status == 0)
        #expect(
            chained.stdoutText == SDFileName.forKey("https://a.com/x.png?w=1") + "\n"
                + SDFileName.forKey("https://a.com/y.png") + "\n")

        // A key the filters make empty is skipped with a message; the others are printed.
        let empty = try CLI.run(["path", "--name-only", "--key-filter", "regex:/^.*$//", "x"], home: temp.path)
        #expect(empty.status == 1)
        #expect(empty.stdoutText.isEmpty)
        #expect(empty.stderrText.contains("the key filters made the key empty"))
    }

    /// Bad filter syntax is a usage error with an example, before anything is read or created.
    @Test(arguments: ["strip", "drop-params:", "regex:/a/", "regex:/(/x/", "regex:/a/$z/"])
    func badFiltersAreUsageErrors(spec: String) throws {
        let h = try PrefetchHarness()
        for arguments in [
            ["path", "--key-filter", spec, "https://a.com/x.jpg"],
            ["prefetch", "--disk-cache-path", h.folder, "--key-filter", spec, "-"],
        ] {
            let run = try h.run(arguments, stdin: Data())
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.contains("e.g. --key-filter"), "\(run.stderr)")
            #expect(run.result.stdoutText.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: h.folder))
    }

    /// Key → file name, duplicates and report; URL → what is fetched. Prefetch, path and
    /// --dry-run agree on the key.
    @Test func explicitKeysAndFiltersDecideTheFile() throws {
        let h = try PrefetchHarness()
        let photo = [UInt8](
            FileManager.default.contents(atPath: Fixtures.root.appendingPathComponent("images/valid/photo.jpg").path)!)
        let gradient = [UInt8](
            FileManager.default.contents(
                atPath: Fixtures.root.appendingPathComponent("images/valid/gradient.png").path)!)
        let signed = h.url("/img/gradient.png?w=64&token=abc")
        let lines = [
            #"{"url": "\#(h.url("/img/photo.jpg?token=a"))", "key": "photo-key"}"#,
            // Another URL, the same key: a duplicate, not fetched.
            #"{"url": "\#(h.url("/img/photo.jpg?token=b"))", "key": "photo-key"}"#,
            // No key: computed by the filter.
            #"{"url": "\#(signed)"}"#,
            // The same key by the filter, another token: a duplicate.
            #"{"url": "\#(h.url("/img/gradient.png?token=zzz&w=64"))"}"#,
        ]
        let options = ["--key-filter", "drop-params:token", "--verbose"]
        let run = try h.prefetch(lines, options: options, listName: "list.jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let filteredKey = h.url("/img/gradient.png?w=64")
        h.expectCache(exactly: ["photo-key": photo, filteredKey: gradient])
        #expect(h.server.requestCount("/img/photo.jpg") == 1)
        #expect(h.server.requestCount("/img/gradient.png") == 1)
        #expect(
            h.server.requests.map(\.target).contains("/img/photo.jpg?token=a"),
            "the first line's URL is the one fetched")

        let first = try run.entry(line: 1)
        #expect(first["url"] as? String == h.url("/img/photo.jpg?token=a"))
        #expect(first["key"] as? String == "photo-key")
        #expect(first["fileName"] as? String == SDFileName.forKey("photo-key"))
        #expect(first["outcome"] as? String == "downloaded")
        let second = try run.entry(line: 2)
        #expect(second["outcome"] as? String == "duplicate")
        #expect(second["url"] as? String == h.url("/img/photo.jpg?token=b"))
        #expect(second["key"] as? String == "photo-key")
        let third = try run.entry(line: 3)
        #expect(third["url"] as? String == signed)
        #expect(third["key"] as? String == filteredKey)
        #expect(try run.entry(line: 4)["outcome"] as? String == "duplicate")
        #expect(try run.totals["duplicates"] as? Int == 2)
        #expect(try (run.report["options"] as? [String: Any])?["keyFilters"] as? [String] == ["drop-params:token"])

        // --verbose shows both when they differ.
        #expect(
            run.stderr.contains("list.jsonl:1: \(h.url("/img/photo.jpg?token=a")) (key photo-key): downloaded"),
            "\(run.stderr)")
        #expect(run.stderr.contains("list.jsonl:3: \(signed) (key \(filteredKey)): downloaded"))

        // path with the same filter names the stored file.
        let path = try h.run([
            "path", "--disk-cache-path", h.folder, "--key-filter", "drop-params:token",
            h.url("/img/gradient.png?token=new&w=64"),
        ])
        #expect(path.result.stdoutText == h.folder + "/" + SDFileName.forKey(filteredKey) + "\n")
        #expect(FileManager.default.fileExists(atPath: String(path.result.stdoutText.dropLast())))

        // A dry run and a second run compute the same keys: everything is a hit.
        h.server.clearLog()
        let dry = try h.prefetch(
            lines, options: ["--key-filter", "drop-params:token", "--dry-run"], listName: "list.jsonl")
        #expect(try dry.entry(line: 3)["outcome"] as? String == "cached")
        #expect(try dry.entry(line: 3)["fileName"] as? String == SDFileName.forKey(filteredKey))
        #expect(try dry.entry(line: 1)["outcome"] as? String == "cached")
        let again = try h.prefetch(lines, options: ["--key-filter", "drop-params:token"], listName: "list.jsonl")
        #expect(try again.totals["cached"] as? Int == 2)
        #expect(h.server.requests.isEmpty)

        // Without the filter the URL is the key: a different file, fetched again.
        let unfiltered = try h.prefetch([signed])
        #expect(try unfiltered.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(try unfiltered.entry(line: 1)["key"] as? String == signed)
        #expect(h.cacheContents().contains(SDFileName.forKey(signed)))
    }

    /// The blacklist holds the URL that failed, not the key: another URL under the same key is
    /// fetched; the failed URL under another key is skipped without a request.
    @Test func theBlacklistIsByURL() throws {
        let h = try PrefetchHarness()
        let missing = h.url("/status/404")
        let failed = try h.prefetch([#"{"url": "\#(missing)", "key": "shared"}"#], listName: "a.jsonl")
        #expect(failed.status == 1)
        #expect(try failed.entry(line: 1)["outcome"] as? String == "failed")
        #expect(try failed.entry(line: 1)["key"] as? String == "shared")
        let listed = try h.run(["blacklist", "list", "--disk-cache-path", h.folder, "--json"])
        let entries = try #require(try listed.report["entries"] as? [[String: Any]])
        #expect(entries.map { $0["url"] as? String } == [missing])

        let other = try h.prefetch([#"{"url": "\#(h.url("/img/photo.jpg"))", "key": "shared"}"#], listName: "b.jsonl")
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try other.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(h.cacheContents() == [SDFileName.forKey("shared")])

        let skipped = try h.prefetch([#"{"url": "\#(missing)", "key": "elsewhere"}"#], listName: "c.jsonl")
        #expect(try skipped.entry(line: 1)["outcome"] as? String == "blacklisted")
        #expect(h.server.requestCount("/status/404") == 1, "no second request to the blacklisted URL")
        // A success removes the URL's entry, not the key's: the 404 URL stays listed.
        let still = try h.run(["blacklist", "list", "--disk-cache-path", h.folder, "--json"])
        #expect(try (still.report["entries"] as? [[String: Any]])?.count == 1)
    }

    /// A line whose key the filters make empty is invalid, with its line number and reason; the
    /// rest of the list goes on.
    @Test func anEmptyComputedKeyIsAnInvalidLine() throws {
        let h = try PrefetchHarness()
        let run = try h.prefetch(
            [h.url("/img/photo.jpg"), h.url("/img/anim.gif?drop=1")], options: ["--key-filter", "regex:/^.*drop=1$//"])
        #expect(run.status == 1)
        let entry = try run.entry(line: 2)
        #expect(entry["outcome"] as? String == "invalid")
        #expect((entry["errorMessage"] as? String)?.contains("made the key of this URL empty") == true)
        #expect(run.stderr.contains("list.txt:2: invalid"))
        #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(h.server.requestCount("/img/anim.gif") == 0)
    }

    /// Reports with keys, filters and a shard validate against the schema.
    @Test func reportsWithKeysAndShardsMatchTheSchema() throws {
        let h = try PrefetchHarness()
        let lines =
            [
                #"{"url": "\#(h.url("/img/photo.jpg?t=1"))", "key": "k1"}"#,
                #"{"url": "\#(h.url("/img/anim.gif?t=2"))"}"#,
                #"{"url": "ftp://nope", "key": "k3"}"#,
            ] + (0..<6).map { n in #"{"url": "\#(h.url("/img/icon.bmp?n=\(n)"))"}"# }
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        for options in [["--key-filter", "strip-query"], ["--shard", "1/2"], ["--shard", "2/2", "--dry-run"]] {
            let run = try h.prefetch(lines, options: options, listName: "list.jsonl")
            #expect(schema.validate(try run.report) == [], "\(options)")
        }
        var broken = try h.prefetch(lines, options: ["--shard", "1/2"], listName: "list.jsonl").report
        var totals = try #require(broken["totals"] as? [String: Any])
        totals.removeValue(forKey: "otherShard")
        broken["totals"] = totals
        #expect(!schema.validate(broken).isEmpty, "otherShard is required")
    }
}
