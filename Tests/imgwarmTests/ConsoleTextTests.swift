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
        var summary = PrefetchJob.Summary(totals: totals, duration: 10)
        summary.interrupted = true
        summary.signal = 2
        let text = PrefetchConsole.summaryText(summary, dryRun: false, reportPath: nil)
        #expect(text.contains("(10 lines/s)"), "\(text)")
        #expect(text.contains("900 URLs did not finish"))
    }

    /// Counts agree with their nouns, invalid lines are not URLs, and a slow run's rate is not 0.
    @Test func wordsAndCounts() {
        var totals = PrefetchTotals()
        totals.lines = 5
        totals.downloaded = 3
        totals.invalid = 1
        totals.duplicates = 1
        let text = PrefetchConsole.summaryText(
            PrefetchJob.Summary(totals: totals, duration: 10), dryRun: false, reportPath: nil)
        #expect(text.contains("3 of 3 URLs in the cache"), "\(text)")
        #expect(text.contains("1 duplicate;") || text.contains("1 duplicate,"), "\(text)")
        #expect(!text.contains("1 duplicates"), "\(text)")
        #expect(text.contains("(0.5 lines/s)"), "\(text)")
        var one = PrefetchTotals()
        one.lines = 1
        one.wouldFetch = 1
        let dry = PrefetchConsole.summaryText(
            PrefetchJob.Summary(totals: one, duration: 1), dryRun: true, reportPath: nil)
        #expect(dry.contains("(dry run): 1 line: 1 would be fetched"), "\(dry)")
        #expect(dry.contains("0 duplicates."), "\(dry)")
        one.noBody = 2
        one.lines = 3
        let offline = PrefetchConsole.summaryText(
            PrefetchJob.Summary(totals: one, duration: 1), dryRun: true, reportPath: nil, offline: true)
        #expect(
            offline.contains("(dry run): 3 lines: 1 would be stored from recorded bodies, 0 cached"), "\(offline)")
        #expect(offline.hasSuffix("0 duplicates, 2 no-body (nothing recorded to store)."), "\(offline)")
        one.noBody = 0
        one.lines = 1
        one.downloaded = 1
        let single = PrefetchConsole.summaryText(
            PrefetchJob.Summary(totals: one, duration: 0), dryRun: false, reportPath: nil)
        #expect(single.contains("1 of 1 URL in the cache"), "\(single)")
        #expect(!single.contains("lines/s"), "no rate for a run that took no time: \(single)")
    }
}
