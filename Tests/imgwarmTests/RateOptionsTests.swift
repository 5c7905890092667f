import Foundation
import TestSupport
import Testing

/// `--limit-rate` and `--max-rate-per-host`: the values they take, as the help says.
@Suite struct RateOptionsTests {
    /// `--limit-rate 0` is no limit, as for curl: the run downloads, and the engine got no limit
    /// (the report's `limitRate` is null, as when the option is left out). A value that rounds
    /// down to 0 bytes is refused rather than taken for no limit.
    @Test func limitRateZeroIsNoLimit() throws {
        let h = try PrefetchHarness()
        let run = try h.prefetch(
            [h.url("/img/photo.jpg"), h.url("/img/gradient.png")], options: ["--limit-rate", "1K", "--limit-rate", "0"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.totals["downloaded"] as? Int == 2)
        let options = try #require(try run.report["options"] as? [String: Any])
        #expect(options["limitRate"] is NSNull, "\(String(describing: options["limitRate"]))")

        let half = try h.prefetch([h.url("/img/photo.jpg")], options: ["--limit-rate", "0.5"])
        #expect(half.status == 2)
        #expect(half.stderr.contains("--limit-rate 0.5 is less than 1 byte per second: use 0 for no limit"))
    }

    /// `--max-rate-per-host` is 0.01 to 10000 requests a second: below one request every 100 s
    /// (1e-9 was taken: one every 31 years) is a usage error that says the range.
    @Test(arguments: ["1e-9", "0.009", "0", "-1", "10001", "nan", "inf"])
    func requestRateOutOfRangeIsAUsageError(value: String) throws {
        let temp = try TemporaryFolder()
        let list = try temp.write("list.txt", Data("http://127.0.0.1:1/a.jpg\n".utf8))
        let result = try CLI.run(
            ["prefetch", "--dry-run", "--max-rate-per-host", value, list], home: temp.path)
        #expect(result.status == 2)
        #expect(
            result.stderrText.contains(
                "--max-rate-per-host must be a number of requests per second from 0.01 (one request every 100 s) to 10000"
            ), "\(result.stderrText)")
    }

    /// The ends of the range are taken, and reach the engine (the report's options).
    @Test(arguments: [("0.01", 0.01), ("10000", 10_000.0)])
    func requestRateRangeEndsAreTaken(value: String, expected: Double) throws {
        let h = try PrefetchHarness()
        let run = try h.prefetch([h.url("/img/photo.jpg")], options: ["--max-rate-per-host", value])
        #expect(run.status == 0, "\(run.stderr)")
        let options = try #require(try run.report["options"] as? [String: Any])
        #expect(options["maxRatePerHost"] as? Double == expected)
    }

    /// The help says both.
    @Test func helpSaysTheValues() throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run(["prefetch", "--help"], home: temp.path).stdoutText
        let text = help.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(
            of: "  +", with: " ", options: .regularExpression)
        #expect(text.contains("K, M, G are powers of 1024 and 0 is no limit, as for curl"), "\(text)")
        #expect(text.contains("evenly spaced: 0.01 (one request every 100 s) to 10000, e.g. 10 or 0.5"), "\(text)")
    }
}

/// The CLI's enum options share one parser (issue 51, item 6): any case is taken, and a bad value
/// is a usage error naming the option's kind of value and every valid one, in order.
@Suite(.startsTheBinary) struct EnumOptionTests {
    @Test(arguments: [
        (["prefetch", "--dry-run", "--priority"], "invalid priority 'urgent': use high, normal or low"),
        (["prefetch", "--dry-run", "--order"], "invalid order 'urgent': use fifo or lifo"),
        (["prefetch", "--dry-run", "--format"], "invalid list format 'urgent': use auto, plain, jsonl or har"),
        (["prefetch", "--dry-run", "--validate"], "invalid validation 'urgent': use header or full"),
        (["prefetch", "--dry-run", "--progress"], "invalid progress mode 'urgent': use auto, bar, log or none"),
        (
            ["clean", "--dry-run", "--expire-type"],
            "invalid expire type 'urgent': use access, modification, creation or change"
        ),
    ])
    func aBadValueNamesEveryValidOne(command: [String], message: String) throws {
        let temp = try TemporaryFolder()
        let list = try temp.write("list.txt", Data("http://127.0.0.1:1/a.jpg\n".utf8))
        let arguments = command + ["urgent"] + (command[0] == "prefetch" ? [list] : [])
        let bad = try CLI.run(arguments, home: temp.path)
        #expect(bad.status == 2)
        #expect(bad.stderrText.contains(message), "\(bad.stderrText)")
    }

    /// Upper case is taken as lower case (`--order LiFo` too): the dry run's report carries the
    /// list's priority given as `HIGH`.
    @Test func anyCaseIsTaken() throws {
        let temp = try TemporaryFolder()
        let list = try temp.write("list.txt", Data("http://127.0.0.1:1/a.jpg\n".utf8))
        let run = try CLI.run(
            ["prefetch", "--dry-run", "--quiet", "--priority", "HIGH", "--order", "LiFo", "--report", "-", list],
            home: temp.path)
        #expect(run.status == 0, "\(run.stderrText)")
        let report = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let inputs = try #require(report["inputs"] as? [[String: Any]], "\(report.keys)")
        #expect(inputs.first?["priority"] as? String == "high", "\(inputs)")
    }
}
