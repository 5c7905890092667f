import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// A HAR saved under another name (`capture.json`) or piped on standard input is read as a HAR
/// under `--format auto` (issue 48, item 2): it gave 187 invalid lines and a hint to use JSON
/// Lines.
@Suite struct HARByContentTests {
    static let stored = 4  // the images of `HARRunTests.capture`

    @Test(arguments: ["capture.json", "session.txt"])
    func aFileNamedOtherwise(name: String) throws {
        let h = try PrefetchHarness()
        let list = try h.temp.write(name, try HARRunTests.capture(h))
        let run = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", list])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(h.cacheContents().count == Self.stored)
        #expect(try run.totals["invalid"] as? Int == 0)
        let inputs = try #require(try run.report["inputs"] as? [[String: Any]])
        #expect(inputs.first?["format"] as? String == "har")
        #expect(try run.entries.map { $0["line"] as? Int ?? 0 }.sorted() == [1, 2, 5, 6, 7])
        #expect(run.stderr.contains("\(list) was read as a HAR capture (its content is one)."), "\(run.stderr)")
        #expect(!run.stderr.contains("JSON Lines"), "\(run.stderr)")
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        #expect(schema.validate(try run.report) == [])

        let verify = try h.run(["verify", "--disk-cache-path", h.folder, list])
        #expect(verify.status == 0, "\(verify.result.stdoutText)\(verify.stderr)")
        #expect(verify.result.stdoutText.contains("4 keys: 4 hit, 0 missing"), "\(verify.result.stdoutText)")
    }

    /// Standard input, which cannot be read twice: the bytes read to tell are read as the HAR's.
    @Test func standardInput() throws {
        let h = try PrefetchHarness()
        let run = try h.run(
            ["prefetch", "--disk-cache-path", h.folder, "--report", "-", "-"], stdin: try HARRunTests.capture(h))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(h.cacheContents().count == Self.stored)
        let inputs = try #require(try run.report["inputs"] as? [[String: Any]])
        #expect(inputs.first?["format"] as? String == "har")
        #expect(run.stderr.contains("standard input was read as a HAR capture"), "\(run.stderr)")

        let verify = try h.run(["verify", "--disk-cache-path", h.folder, "-"], stdin: try HARRunTests.capture(h))
        #expect(verify.status == 0, "\(verify.result.stdoutText)\(verify.stderr)")
        // An invalid entry is named as a HAR's entry, also by verify.
        let bad = try HARRunTests.har([["request": ["url": 7], "response": ["status": 200]]])
        let invalid = try h.run(["verify", "--disk-cache-path", h.folder, "-"], stdin: bad)
        #expect(invalid.status == 1)
        #expect(invalid.result.stdoutText.contains("standard input entry 1: invalid"), "\(invalid.result.stdoutText)")
    }

    /// JSON Lines and plain lists keep their rules, and an explicit --format wins.
    @Test func otherListsAreReadAsBefore() throws {
        let h = try PrefetchHarness()
        let jsonl = try h.temp.write("feed.txt", Data("{\"url\": \"\(h.url("/img/gradient.png"))\"}\n".utf8))
        let run = try h.run(["prefetch", "--disk-cache-path", h.folder, "--report", "-", jsonl])
        #expect(run.status == 1)
        #expect(run.stderr.contains("it looks like JSON Lines"), "\(run.stderr)")
        let forced = try h.temp.write("capture.json", try HARRunTests.capture(h))
        let plain = try h.run(["prefetch", "--disk-cache-path", h.folder, "--format", "plain", "--report", "-", forced])
        #expect(plain.status == 1)
        let inputs = try #require(try plain.report["inputs"] as? [[String: Any]])
        #expect(inputs.first?["format"] as? String == "plain")
    }
}
