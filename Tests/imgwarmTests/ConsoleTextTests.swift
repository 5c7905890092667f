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
}
