import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit
@testable import imgwarm

/// What the commands say must be what happened (issue 48, item 3): no "nothing failed" from a run
/// that could not start, no URL "unexplained" that a line above explained, one exit-code section
/// per help, clean's bytes as the format counts them, a closed pipe named as one.
@Suite struct HonestWordsTests {
    /// A run that could not start names no failures and no figures: the error says what and why.
    @Test func aRunThatCouldNotStartSaysNothingOfFailures() {
        var totals = PrefetchTotals()
        totals.lines = 3
        totals.notStarted = 3
        var summary = PrefetchJob.Summary(totals: totals, duration: 0.01)
        summary.startFailure = .cacheFolder(.notADirectory("/tmp/afile"))
        let text = PrefetchConsole.summaryText(summary, dryRun: false, reportPath: nil)
        #expect(
            text
                == "imgwarm prefetch: 3 of 3 URLs not checked (the run could not start); 0 in the cache (0 downloaded, 0 cached)."
        )
        #expect(!text.contains("nothing failed"))
        // A run that started keeps its words.
        summary.startFailure = nil
        summary.totals.notStarted = 0
        summary.totals.cached = 3
        #expect(PrefetchConsole.summaryText(summary, dryRun: false, reportPath: nil).contains("; nothing failed; "))
    }

    /// The URLs the best rule misses that a normalisation, a processed form or another rule hits
    /// are listed as such, not under "unexplained" (which they were, below the line counting them).
    @Test func keysDetectListsAsUnexplainedOnlyWhatNothingExplains() {
        let search = KeyRuleSearch.Result(
            best: .init(filters: ["strip-query"], hits: 7), plainHits: 0,
            candidates: [.init(filters: ["strip-query"], hits: 7)],
            unexplained: [
                .init(url: "https://A.example/1.jpg?t=1", nearest: .normalised("the scheme and host lower-cased")),
                .init(url: "https://a.example/2.jpg?w=2", nearest: .rule(["drop-params:t"])),
                .init(url: "https://a.example/3.jpg", nearest: nil),
            ],
            normalisations: [("the scheme and host lower-cased", 1)])
        let text = Keys.Detect.text(KeysDetectJob.Result(search: search, urls: 10, entries: 9), limit: 20)
        #expect(text.contains("1 more hit with the scheme and host lower-cased"), "\(text)")
        #expect(
            text.contains("2 URLs the rule misses hit otherwise:\n  https://A.example/1.jpg?t=1: hits with"), "\(text)")
        #expect(text.hasSuffix("1 URL unexplained (no rule and no form hits):\n  https://a.example/3.jpg\n"), "\(text)")
        let unexplained = text.components(separatedBy: "unexplained")[1]
        #expect(!unexplained.contains("1.jpg") && !unexplained.contains("2.jpg"), "\(text)")
    }

    /// verify and keys detect print one exit-code section, their own (the generic one said a
    /// miss was "some URLs failed", and 3 "cache or state unusable").
    @Test(arguments: [["verify", "--help"], ["keys", "detect", "--help"]])
    func oneExitCodeSection(command: [String]) throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run(command, home: temp.path)
        #expect(help.status == 0)
        #expect(help.stdoutText.components(separatedBy: "Exit codes").count == 2, "\(help.stdoutText)")
        #expect(!help.stdoutText.contains("some URLs failed"), "\(help.stdoutText)")
        #expect(help.stdoutText.contains("128+N"))
    }

    /// Glide counts its journal's lengths against its limit: the summary's bytes are those
    /// (64.0 KiB of blocks "remained" after --max-size 5K).
    @Test func cleanSaysBytesAsTheFormatCountsThem() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("glide")
        let options = ["--cache-format", "glide", "--disk-cache-path", folder]
        // Each below 5 KiB, together above it: whatever order the downloads finish in (the
        // journal's), the trim keeps at least the newest entry (photo.jpg, 15 KB, made the
        // result depend on that order: last, it left nothing).
        let names = ["gradient.png", "anim.gif", "icon.bmp", "favicon.ico"]
        let seeded = try h.run(
            ["prefetch"] + options + [
                try h.temp.write("l.txt", Data(names.map { h.url("/img/" + $0) + "\n" }.joined().utf8))
            ])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let clean = try h.run(["clean", "--max-size", "5K"] + options)
        #expect(clean.status == 0, "\(clean.stderr)")
        // What the journal lists now: the lengths of its entries that were not removed.
        let journal = try String(contentsOfFile: folder + "/journal", encoding: .utf8).split(separator: "\n")
        let removed = Set(journal.filter { $0.hasPrefix("REMOVE ") }.map { $0.split(separator: " ")[1] })
        let listed = journal.filter { $0.hasPrefix("CLEAN ") && !removed.contains($0.split(separator: " ")[1]) }
        let lengths = listed.reduce(UInt64(0)) { $0 + (UInt64($1.split(separator: " ")[2]) ?? 0) }
        #expect(lengths <= 5 * 1024 && lengths > 0)
        #expect(
            clean.stderr.contains("\(Quantities.formatBytes(lengths)) remain in \(folder) (file sizes, as Glide"),
            "\(clean.stderr)")
    }

    /// `pack --output -` into a pipe whose reader went away: the archive and the pipe are named,
    /// no report, and the exit code is SIGPIPE's (it was "cannot write the report", exit 3).
    @Test func packIntoAClosedPipe() throws {
        let temp = try TemporaryFolder()
        let folder = temp.path("caches/com.hackemist.SDImageCache/default")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let photo = try Fixtures.data("images/valid/photo.jpg")
        for index in 0..<16 {  // well past a pipe's 64 KiB
            try photo.write(to: URL(fileURLWithPath: folder + "/" + String(format: "%032x", index) + ".jpg"))
        }
        let script =
            #""$0" pack --platform ios --disk-cache-path "$1" --output - 2>"$2" | true; echo "${PIPESTATUS[0]}""#
        let run = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/bash"), ["-c", script, CLI.binary.path, folder, temp.path("err")],
            environment: CLI.environment(home: temp.path), timeout: 60)
        let stderr = String(decoding: try Data(contentsOf: URL(fileURLWithPath: temp.path("err"))), as: UTF8.self)
        #expect(run.stdoutText == "141\n", "\(run.stdoutText) \(stderr)")
        #expect(stderr.contains("the archive was cut short"), "\(stderr)")
        #expect(stderr.contains("closed pipe"), "\(stderr)")
        #expect(!stderr.contains("report"), "\(stderr)")
    }
}
