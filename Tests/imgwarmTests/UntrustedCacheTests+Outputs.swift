import Foundation
import ImgwarmKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--report` and `--metrics` never land inside the cache folder or imgwarm's own folder, never
/// name one file together, never name no file (exit 2, nothing done); a `--metrics` FIFO nobody
/// reads is skipped with a warning instead of holding the run.
extension UntrustedCacheTests {
    @Test func reportAndMetricsTargetsThatAreRefused() throws {
        let h = try PrefetchHarness()
        let url = h.url("/img/photo.jpg")
        #expect(try h.prefetch([url]).status == 0)
        let state = h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/state.sqlite")
        let stateBefore = try #require(AndroidJournalTests.bytes(state))
        let cacheBefore = h.cacheContents()
        let linkToCache = h.temp.path("link-to-cache")
        try FileManager.default.createSymbolicLink(atPath: linkToCache, withDestinationPath: h.folder)
        let list = try h.temp.write("refused.txt", Data((url + "\n").utf8))
        let cases: [([String], String)] = [
            (["--report", ""], "--report '' names no file"),
            (["--metrics", ""], "--metrics '' names no file"),
            (["--report", h.temp.path("same.txt"), "--metrics", h.temp.path("same.txt")], "name the same file"),
            (["--report", h.folder + "/report.json"], "inside the cache folder"),
            (["--report", linkToCache + "/report.json"], "inside the cache folder"),
            (["--metrics", state], "inside imgwarm's own folder"),
            (["--metrics", h.temp.path("state.sqlite"), "--state", h.temp.path("state.sqlite")], "state database"),
        ]
        for (options, message) in cases {
            for command in ["prefetch", "clean"] {
                let arguments =
                    [command, "--disk-cache-path", h.folder] + options + (command == "prefetch" ? [list] : ["--all"])
                let run = try h.run(arguments)
                #expect(run.status == 2, "\(arguments): \(run.stderr)")
                #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            }
        }
        let verify = try h.run(["verify", "--disk-cache-path", h.folder, "--report", h.folder + "/v.json", list])
        #expect(verify.status == 2 && verify.stderr.contains("inside the cache folder"), "\(verify.stderr)")
        #expect(h.cacheContents() == cacheBefore, "nothing was written into the cache folder")
        #expect(AndroidJournalTests.bytes(state) == stateBefore, "the state database is untouched")
        #expect(!FileManager.default.fileExists(atPath: h.temp.path("same.txt")))
        // Beside the cache folder, and /dev/null for both, are fine.
        let fine = try h.run(
            ["clean", "--disk-cache-path", h.folder, "--dry-run", "--report", "/dev/null", "--metrics", "/dev/null"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    /// A `--metrics` FIFO that nobody reads no longer holds the run: it is skipped with a warning.
    @Test func aMetricsFIFOWithoutAReaderIsSkipped() throws {
        let h = try PrefetchHarness()
        let fifo = h.temp.path("metrics.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let run = try h.prefetch([h.url("/img/photo.jpg")], options: ["--metrics", fifo], timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("FIFO nobody reads"), "\(run.stderr)")
        #expect(try run.totals["downloaded"] as? Int == 1)
        let clean = try h.run(["clean", "--disk-cache-path", h.folder, "--metrics", fifo], timeout: 30)
        #expect(clean.status == 0 && clean.stderr.contains("FIFO nobody reads"), "\(clean.stderr)")
    }
}
