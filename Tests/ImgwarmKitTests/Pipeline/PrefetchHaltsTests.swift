import Testing

@testable import ImgwarmKit

/// `PrefetchJob.Halts`: each problem is noted once (the observer is told once), every problem
/// stops new downloads, and the summary gets them in one place with `failureMessage` unchanged.
@Suite struct PrefetchHaltsTests {
    @Test func eachProblemIsNotedOnce() {
        var halts = PrefetchJob.Halts()
        #expect(!halts.stopNewDownloads)
        let told = [
            halts.note(.diskFull), halts.note(.diskFull),
            halts.note(.proxy("proxy.example:3128 refused the connection")), halts.note(.proxy("another message")),
        ]
        #expect(told == [true, false, true, false], "a second full disk, a second proxy failure: the same problems")
        #expect(halts.proxy == "proxy.example:3128 refused the connection", "the first is kept")
        #expect(halts.stopNewDownloads)
    }

    @Test func anInterruptionStopsNewDownloadsAndKeepsTheFirstSignal() {
        var halts = PrefetchJob.Halts()
        halts.interrupt(signal: 0)
        #expect(halts.stopNewDownloads)
        halts.interrupt(signal: 15)
        halts.interrupt(signal: 2)
        var summary = PrefetchJob.Summary(totals: PrefetchTotals(), duration: 0)
        halts.summarize(into: &summary)
        #expect(summary.interrupted && summary.signal == 15)
        #expect(summary.failureMessage == nil, "an interruption is not a failure")
    }

    @Test func theSummaryGetsEveryHalt() {
        var halts = PrefetchJob.Halts()
        _ = halts.note(.proxy("the proxy"))
        var summary = PrefetchJob.Summary(totals: PrefetchTotals(), duration: 0)
        halts.summarize(into: &summary)
        #expect(summary.proxyFailure == "the proxy" && !summary.diskFull)
        #expect(summary.failureMessage == "the proxy: no new downloads started")
        _ = halts.note(.diskFull)
        halts.summarize(into: &summary)
        #expect(summary.diskFull)
        #expect(summary.failureMessage == "the disk is full: no new downloads started")
    }
}
