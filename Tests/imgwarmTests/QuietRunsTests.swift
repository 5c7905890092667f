import Foundation
import TestSupport
import Testing

/// What `--quiet` prints run after run, as a cron job's mail shows it (the README's cron recipe,
/// docs/usage.md "Running unattended", and `--quiet`'s help).
@Suite struct QuietRunsTests {
    /// The same list twice, quietly. The first run prints the permanent failure (it blacklists
    /// it), the transient one, the invalid line and the unavailable host; the second prints the
    /// transient failure, the invalid line and the unavailable host again, and nothing of the
    /// blacklisted URL.
    @Test func whatRepeatsEveryRun() throws {
        let h = try PrefetchHarness()
        let dead = try AdaptiveConcurrencyTests.closedPort()
        let lines =
            [h.url("/status/404"), h.url("/status/503"), "not a url", h.url("/img/photo.jpg")]
            // More than the 12 requests the breaker lets a refusing host have (5 rounds).
            + (0..<14).map { "http://127.0.0.1:\(dead)/d/\($0).jpg" }
        let list = try h.temp.write("list.txt", Data((lines.joined(separator: "\n") + "\n").utf8))
        func run() throws -> [Substring] {
            let result = try h.run(["prefetch", "--disk-cache-path", h.folder, "--quiet", "--retries", "0", list])
            #expect(result.status == 1, "\(result.stderr)")
            return result.stderr.split(separator: "\n")
        }
        func printed(_ lines: [Substring], _ text: String) -> Int { lines.filter { $0.contains(text) }.count }

        let first = try run()
        #expect(printed(first, "\(list):1: ") == 1, "the permanent failure: \(first)")
        #expect(printed(first, "\(list):2: ") == 1, "the transient failure: \(first)")
        #expect(printed(first, "\(list):3: invalid") == 1, "\(first)")
        #expect(printed(first, "is unavailable") == 1, "\(first)")
        #expect(printed(first, "\(list):4: ") == 0, "nothing of a success: \(first)")

        let second = try run()
        #expect(printed(second, "\(list):1: ") == 0, "blacklisted: skipped without a line: \(second)")
        #expect(printed(second, "\(list):2: ") == 1, "transient: printed again: \(second)")
        #expect(printed(second, "\(list):3: invalid") == 1, "invalid: printed again: \(second)")
        #expect(printed(second, "is unavailable") == 1, "\(second)")
        #expect(printed(second, "\(list):4: ") == 0, "\(second)")
    }

    /// `--quiet`'s help says what the runs above print (it once said blacklisted lines print).
    @Test func helpSaysWhatQuietPrints() throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run(["prefetch", "--help"], home: temp.path).stdoutText
        let text = help.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(
            of: "  +", with: " ", options: .regularExpression)
        #expect(!text.contains("Failed, blacklisted and invalid lines"), "\(text)")
        #expect(
            text.contains(
                "Every run still prints its failed URLs and invalid lines (the first 50, then their count), unavailable hosts, warnings and run-level errors. A URL that fails permanently is printed by the run that blacklists it; the runs that skip it print nothing."
            ), "\(text)")
    }
}
