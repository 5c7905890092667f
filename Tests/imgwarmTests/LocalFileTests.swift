import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// Issue 33, item 4: a JSON Lines line `{"url": ..., "file": PATH}` stores the local file under
/// the URL's key with no request, validated and stored as a download is; `verify` with the same
/// list finds every such key a hit.
@Suite struct LocalFileTests {
    /// Copies fixture `valid/NAME` (or `hostile/NAME`) to `imgs/NAME` beside the list; returns its bytes.
    @discardableResult
    static func copy(_ name: String, _ h: PrefetchHarness, from sub: String = "valid") throws -> [UInt8] {
        let data = try Fixtures.data("images/\(sub)/\(name)")
        _ = try h.temp.write("imgs/\(name)", data)
        return [UInt8](data)
    }

    static func line(_ url: String, file: String) -> String { #"{"url": "\#(url)", "file": "\#(file)"}"# }

    /// A list mixing file lines and a URL line into SDWebImage: the file lines' URLs are never
    /// requested, the URL line is; the cache holds the files' bytes; verify finds every key.
    @Test func fileLinesStoreWithoutARequestBesideURLLines() throws {
        let h = try PrefetchHarness()
        let photo = try Self.copy("photo.jpg", h)
        let gradient = try Self.copy("gradient.png", h)
        let (photoURL, gradientURL, gifURL) = (
            h.url("/img/photo.jpg"), h.url("/img/gradient.png"), h.url("/img/anim.gif")
        )
        let lines = [
            Self.line(photoURL, file: "imgs/photo.jpg"), Self.line(gradientURL, file: "imgs/gradient.png"),
            #"{"url": "\#(gifURL)"}"#,
        ]
        let run = try h.prefetch(lines, listName: "list.jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(h.server.requestCount("/img/photo.jpg") == 0)
        #expect(h.server.requestCount("/img/gradient.png") == 0)
        #expect(h.server.requestCount("/img/anim.gif") == 1)
        for line in [1, 2] {
            let entry = try run.entry(line: line)
            #expect(entry["outcome"] as? String == "downloaded")
            #expect(entry["httpStatus"] is NSNull, "a file had no HTTP response")
        }
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        #expect(schema.validate(try run.report) == [], "the report's schema holds file lines")
        let gif = [UInt8](try Fixtures.data("images/valid/anim.gif"))
        h.expectCache(exactly: [photoURL: photo, gradientURL: gradient, gifURL: gif])

        let verify = try h.run(["verify", "--disk-cache-path", h.folder, h.temp.path("list.jsonl")])
        #expect(verify.status == 0, "\(verify.result.stdoutText)\(verify.stderr)")
        #expect(verify.result.stdoutText.contains("3 hit"), "\(verify.result.stdoutText)")
    }

    /// An indexed format (Glide's journal) gets its index records for file lines too, and no
    /// request is made at all: verify reads every key through the journal.
    @Test func fileLinesIntoGlideAreIndexedHits() throws {
        let h = try PrefetchHarness()
        try Self.copy("photo.jpg", h)
        try Self.copy("sticker.webp", h)
        let lines = [
            Self.line(h.url("/img/photo.jpg"), file: "imgs/photo.jpg"),
            Self.line(h.url("/img/sticker.webp"), file: "imgs/sticker.webp"),
        ]
        let folder = h.temp.path("glide")
        let run = try h.run(
            ["prefetch", "--cache-format", "glide", "--disk-cache-path", folder, "--report", "-"]
                + [try h.temp.write("list.jsonl", Data((lines.joined(separator: "\n") + "\n").utf8))])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.totals["downloaded"] as? Int == 2)
        #expect(h.server.requestCount("/img/photo.jpg") == 0 && h.server.requestCount("/img/sticker.webp") == 0)
        let journal = try String(contentsOfFile: folder + "/journal", encoding: .utf8)
        #expect(journal.components(separatedBy: "CLEAN ").count == 3, "\(journal)")
        let verify = try h.run(
            ["verify", "--cache-format", "glide", "--disk-cache-path", folder, h.temp.path("list.jsonl")])
        #expect(verify.status == 0, "\(verify.result.stdoutText)\(verify.stderr)")
        #expect(verify.result.stdoutText.contains("2 hit"), "\(verify.result.stdoutText)")
    }

    /// A file that is not a valid image fails validation with the class and message a download
    /// of the same bytes gets; its URL is not blacklisted (the file is at fault, not the URL).
    @Test(arguments: ["page.html", "corrupt.jpg"])
    func aFileThatIsNotAnImageFailsAsADownloadWould(name: String) throws {
        let h = try PrefetchHarness()
        try Self.copy(name, h, from: "hostile")
        let fileURL = h.url("/img/not-requested-\(name)")
        let lines = [Self.line(fileURL, file: "imgs/\(name)"), #"{"url": "\#(h.url("/hostile/" + name))"}"#]
        let run = try h.prefetch(lines, listName: "list.jsonl")
        #expect(run.status != 0)
        let (local, fetched) = (try run.entry(line: 1), try run.entry(line: 2))
        #expect(local["outcome"] as? String == "failed")
        #expect(local["errorClass"] as? String == fetched["errorClass"] as? String)
        #expect(local["errorMessage"] as? String == fetched["errorMessage"] as? String)
        #expect(h.server.requestCount("/img/not-requested-\(name)") == 0)
        let blacklist = try h.run(["blacklist", "list", "--disk-cache-path", h.folder])
        #expect(blacklist.result.stdoutText.contains("/hostile/"), "the download is: \(blacklist.result.stdoutText)")
        #expect(!blacklist.result.stdoutText.contains("not-requested"), "\(blacklist.result.stdoutText)")
    }

    /// Refused paths are per-line failures naming the line and why; the rest of the run goes on,
    /// and `--files-root` allows what it holds.
    @Test func refusedPathsAreLineFailuresAndFilesRootAllowsThem() throws {
        let h = try PrefetchHarness()
        let photo = try Self.copy("photo.jpg", h)
        let outside = try h.temp.write("outside/gradient.png", try Fixtures.data("images/valid/gradient.png"))
        let (up, absolute, good) = (h.url("/img/up.png"), h.url("/img/absolute.png"), h.url("/img/good.jpg"))
        let lines = [
            Self.line(up, file: "../outside/gradient.png"), Self.line(absolute, file: outside),
            Self.line(good, file: "imgs/photo.jpg"),
        ]
        let list = try h.temp.write("lists/list.jsonl", Data((lines.joined(separator: "\n") + "\n").utf8))
        _ = try h.temp.write("lists/imgs/photo.jpg", Data(photo))
        let run = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(run.status != 0)
        #expect(try run.entry(line: 1)["outcome"] as? String == "invalid")
        #expect((try run.entry(line: 1)["errorMessage"] as? String)?.contains("leaves the list's folder") == true)
        #expect(try run.entry(line: 2)["outcome"] as? String == "invalid")
        #expect((try run.entry(line: 2)["errorMessage"] as? String)?.contains("absolute path") == true)
        #expect(try run.entry(line: 3)["outcome"] as? String == "downloaded")
        #expect(run.stderr.contains("list.jsonl:1:"), "\(run.stderr)")

        let rooted = try h.run(
            ["prefetch", "--disk-cache-path", h.folder, "--report", "-", "--files-root", h.temp.path("."), list])
        // Relative paths now resolve against the root: "../outside" leaves it, the absolute path is in it.
        #expect(try rooted.entry(line: 1)["outcome"] as? String == "invalid")
        #expect(try rooted.entry(line: 2)["outcome"] as? String == "downloaded", "\(rooted.stderr)")
        #expect(h.server.requestCount("/img/absolute.png") == 0)
    }

    /// `--dry-run` reports a file line of a missing key as a fetch (its source local) and a
    /// cached key as a hit, as any line.
    @Test func dryRunSaysWouldFetchThenCached() throws {
        let h = try PrefetchHarness()
        try Self.copy("photo.jpg", h)
        let lines = [Self.line(h.url("/img/photo.jpg"), file: "imgs/photo.jpg")]
        let dry = try h.prefetch(lines, options: ["--dry-run"], listName: "list.jsonl")
        #expect(try dry.entry(line: 1)["outcome"] as? String == "would-fetch")
        #expect(h.cacheContents().isEmpty)
        _ = try h.prefetch(lines, listName: "list.jsonl")
        let again = try h.prefetch(lines, options: ["--dry-run"], listName: "list.jsonl")
        #expect(try again.entry(line: 1)["outcome"] as? String == "cached")
        #expect(h.server.requestCount("/img/photo.jpg") == 0)
    }

    /// A `--files-root` that is not a folder is a usage error before any line is read.
    @Test func aFilesRootThatIsNotAFolderIsAUsageError() throws {
        let h = try PrefetchHarness()
        let file = try h.temp.write("plain.txt", Data("x".utf8))
        for (root, why) in [(h.temp.path("missing"), "No such file or directory"), (file, "is not a folder")] {
            let run = try h.prefetch([h.url("/img/photo.jpg")], options: ["--files-root", root])
            #expect(run.status == 2)
            #expect(run.stderr.contains("--files-root \(root)") && run.stderr.contains(why), "\(run.stderr)")
        }
        #expect(h.server.requestCount("/img/photo.jpg") == 0)
    }
}
