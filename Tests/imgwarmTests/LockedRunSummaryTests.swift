import Foundation
import SQLite
import TestSupport
import Testing

@testable import ImgwarmKit
@testable import imgwarm

/// The summary of a run that could not take a lock in time: the URLs it never looked up are
/// "not checked", not "not in the cache" (they were cached images, and still are).
@Suite struct LockedRunSummaryTests {
    /// The cache lock held by another process past `--lock-timeout`: the three cached images
    /// are not checked, and the summary says why instead of "0 of 3 URLs in the cache".
    @Test func cacheLockHeld() throws {
        let h = try PrefetchHarness()
        let keys = [h.url("/img/photo.jpg"), h.url("/img/gradient.png"), h.url("/img/anim.gif")]
        #expect(try h.prefetch(keys).status == 0)
        let fd = open(h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/lock"), O_RDWR)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        let blocked = try h.prefetch(keys, options: ["--lock-timeout", "0.3"])
        #expect(blocked.status == 3)
        #expect(
            blocked.stderr.contains(
                "imgwarm prefetch: 3 of 3 URLs not checked (the run could not take the cache lock); 0 in the cache (0 downloaded, 0 cached);"
            ), "\(blocked.stderr)")
        #expect(!blocked.stderr.contains("in the cache (0 downloaded, 0 cached); 3 not started"), "\(blocked.stderr)")
        #expect(h.cacheContents().count == 3, "they are still there")
    }

    /// The state database locked past `--lock-timeout`: the same words, for that lock.
    @Test func stateDatabaseLocked() throws {
        let h = try PrefetchHarness()
        #expect(try h.prefetch([h.url("/img/photo.jpg")]).status == 0)
        let holder = try SQLiteDatabase(
            path: h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/state.sqlite"))
        try holder.execute("BEGIN EXCLUSIVE")
        defer { try? holder.execute("ROLLBACK") }
        let run = try h.prefetch(
            [h.url("/img/photo.jpg"), "not a url", h.url("/img/anim.gif")], options: ["--lock-timeout", "0.3"])
        #expect(run.status == 3)
        #expect(
            run.stderr.contains(
                "imgwarm prefetch: 2 of 2 URLs not checked (the run could not take the state database's lock); 0 in the cache (0 downloaded, 0 cached); 1 invalid."
            ), "\(run.stderr)")
    }

    /// An interrupted run keeps its own words ("not started", "did not finish"), and a run
    /// without a run-level problem its usual ones.
    @Test func otherRunsKeepTheirWords() {
        var totals = PrefetchTotals()
        totals.lines = 10
        totals.cached = 4
        totals.notStarted = 6
        var summary = PrefetchJob.Summary(totals: totals, duration: 1)
        summary.interrupted = true
        summary.signal = 15
        let interrupted = PrefetchConsole.summaryText(summary, dryRun: false, reportPath: nil)
        #expect(interrupted.contains("4 of 10 URLs in the cache"), "\(interrupted)")
        #expect(interrupted.contains("6 not started"), "\(interrupted)")
        #expect(!interrupted.contains("not checked"), "\(interrupted)")

        summary.interrupted = false
        summary.lockFailure = CacheLock.Timeout(path: "/c/lock", seconds: 1, exclusive: false)
        let locked = PrefetchConsole.summaryText(summary, dryRun: false, reportPath: nil)
        #expect(
            locked.hasPrefix(
                "imgwarm prefetch: 6 of 10 URLs not checked (the run could not take the cache lock); 4 in the cache (0 downloaded, 4 cached); nothing failed;"
            ), "\(locked)")
    }
}
