import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// A dry run says what the real run would do, line by line: both take the one start rule
/// (`EntryStart`). Before it, `prefetch --dry-run --retry-failed` reported a blacklisted URL as
/// blacklisted while the real run requested it.
@Suite struct DryRunAgreementTests {
    /// Whether the real run's entry is what the dry run's promised: `would-fetch` is a request
    /// (downloaded, or failed after at least one attempt); anything else the same outcome.
    static func expectAgreement(
        dry: PrefetchHarness.Run, real: PrefetchHarness.Run, lines: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for line in 1...lines {
            let promised = try dry.entry(line: line)["outcome"] as? String
            let done = try real.entry(line: line)
            let outcome = done["outcome"] as? String
            if promised == "would-fetch" {
                #expect(
                    (outcome == "downloaded" || outcome == "failed") && (done["attempts"] as? Int ?? 0) >= 1,
                    "line \(line): would-fetch, then \(outcome ?? "nothing")", sourceLocation: sourceLocation)
            } else {
                #expect(promised == outcome, "line \(line)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: [false, true])
    func theDryRunSaysWhatTheRunDoes(retryFailed: Bool) throws {
        let h = try PrefetchHarness()
        let missing = h.url("/dynamic/missing.png")
        let cached = h.url("/img/photo.jpg")
        let first = try h.prefetch([missing, cached])
        #expect(first.status == 1, "the 404 fails and is blacklisted: \(first.stderr)")
        #expect(h.server.requestCount("/dynamic/missing.png") == 1)

        let lines = [missing, cached, h.url("/img/gradient.png")]
        let options = retryFailed ? ["--retry-failed"] : []
        let dry = try h.prefetch(lines, options: options + ["--dry-run"])
        #expect(h.server.requestCount("/dynamic/missing.png") == 1, "a dry run requests nothing")
        let real = try h.prefetch(lines, options: options)
        try Self.expectAgreement(dry: dry, real: real, lines: lines.count)

        // The blacklisted URL: skipped by both without --retry-failed, requested with it.
        let promised = try dry.entry(line: 1)
        #expect(promised["outcome"] as? String == (retryFailed ? "would-fetch" : "blacklisted"))
        #expect(try real.entry(line: 1)["outcome"] as? String == (retryFailed ? "failed" : "blacklisted"))
        #expect(h.server.requestCount("/dynamic/missing.png") == (retryFailed ? 2 : 1))
        if !retryFailed {
            #expect(promised["httpStatus"] as? Int == 404)
            #expect(try real.entry(line: 1)["errorMessage"] as? String == promised["errorMessage"] as? String)
        }
        // Exit 1 for a line the run certainly would not store (the blacklisted one); a would-fetch
        // may succeed, so the dry run with --retry-failed exits 0 although its run then fails.
        #expect(dry.status == (retryFailed ? 0 : 1), "\(dry.stderr)")
        #expect(real.status == 1)
        #expect(try dry.entry(line: 2)["outcome"] as? String == "cached")
        #expect(try dry.entry(line: 3)["outcome"] as? String == "would-fetch")
    }

    /// A folder where an entry's file should go: the run fails it as `write-failed`, and the dry
    /// run says so (before `EntryStart` it said `would-fetch`).
    @Test func aFolderAtTheEntrysNameFailsInBoth() throws {
        let h = try PrefetchHarness()
        let key = h.url("/img/photo.jpg")
        try FileManager.default.createDirectory(
            atPath: h.folder + "/" + SDFileName.forKey(key), withIntermediateDirectories: true)
        let dry = try h.prefetch([key], options: ["--dry-run"])
        let real = try h.prefetch([key])
        try Self.expectAgreement(dry: dry, real: real, lines: 1)
        #expect(try dry.entry(line: 1)["outcome"] as? String == "failed")
        #expect(dry.status == 1 && real.status == 1, "\(dry.stderr)")
        #expect(try dry.entry(line: 1)["errorMessage"] as? String == real.entry(line: 1)["errorMessage"] as? String)
        #expect(h.server.requestCount("/img/photo.jpg") == 0)
    }
}
