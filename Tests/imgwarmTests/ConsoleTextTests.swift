import Testing

@testable import ImgwarmKit
@testable import imgwarm

/// The wording of the lines `prefetch` prints, checked without a run.
@Suite struct ConsoleTextTests {
    /// An interrupted run's rate counts the lines that finished, not those that never started.
    @Test func interruptedRateCountsFinishedLinesOnly() {
        var totals = PrefetchTotals()
        totals.lines = 1000
        totals.notStarted = 900
        totals.downloaded = 100
        var summary = PrefetchSummary(totals: totals, duration: 10)
        summary.interrupted = true
        summary.signal = 2
        let text = PrefetchConsole.summaryText(summary, dryRun: false, reportPath: nil)
        #expect(text.contains("(10 lines/s)"), "\(text)")
        #expect(text.contains("900 URLs did not finish"))
    }

    @Test func progressBarAndLogLine() {
        var totals = PrefetchTotals()
        totals.lines = 45
        totals.failed = 3
        let progress = PrefetchProgress(total: 100, totals: totals, elapsed: 9, inFlight: 6, isFinal: false)
        #expect(PrefetchConsole.barLine(progress) == "[#########...........]  45% 45/100, 5/s, 0 B, 3 failed, ETA 0:11")
        #expect(PrefetchConsole.status(progress) == "45/100 (45%), 5/s, 0 B, 3 failed, ETA 0:11")
    }

    /// Counts agree with their nouns, invalid lines are not URLs, and a slow run's rate is not 0.
    @Test func wordsAndCounts() {
        var totals = PrefetchTotals()
        totals.lines = 5
        totals.downloaded = 3
        totals.invalid = 1
        totals.duplicates = 1
        let text = PrefetchConsole.summaryText(
            PrefetchSummary(totals: totals, duration: 10), dryRun: false, reportPath: nil)
        #expect(text.contains("3 of 3 URLs in the cache"), "\(text)")
        #expect(text.contains("1 duplicate;") || text.contains("1 duplicate,"), "\(text)")
        #expect(!text.contains("1 duplicates"), "\(text)")
        #expect(text.contains("(0.5 lines/s)"), "\(text)")
        var one = PrefetchTotals()
        one.lines = 1
        one.wouldFetch = 1
        let dry = PrefetchConsole.summaryText(PrefetchSummary(totals: one, duration: 1), dryRun: true, reportPath: nil)
        #expect(dry.contains("(dry run): 1 line: 1 would be fetched"), "\(dry)")
        #expect(dry.contains("0 duplicates."), "\(dry)")
        one.downloaded = 1
        let single = PrefetchConsole.summaryText(
            PrefetchSummary(totals: one, duration: 0), dryRun: false, reportPath: nil)
        #expect(single.contains("1 of 1 URL in the cache"), "\(single)")
        #expect(!single.contains("lines/s"), "no rate for a run that took no time: \(single)")
    }

    /// The bar line fits the terminal, leaving its last column free: a 40-column terminal once
    /// wrapped it, and every redraw left a stale line. A wide terminal gets the whole line.
    @Test(arguments: [200, 80, 70, 40, 20, 2])
    func barLineFitsTheTerminal(columns: Int) {
        var totals = PrefetchTotals()
        totals.lines = 4500
        totals.failed = 3
        totals.bytesReceived = 12_900_000
        let progress = PrefetchProgress(total: 10000, totals: totals, elapsed: 5.5, inFlight: 16, isFinal: false)
        let line = PrefetchConsole.barLine(progress, columns: columns)
        #expect(line.count <= max(1, columns - 1), "\(columns): '\(line)'")
        if columns >= 80 { #expect(line == PrefetchConsole.barLine(progress), "nothing cut at \(columns)") }
        if columns == 70 { #expect(line.hasPrefix("[") && line.contains("45%"), "a narrower bar: '\(line)'") }
    }
}
