import Foundation
import LoopbackServer
import TestSupport
import Testing

@testable import ImgwarmKit

/// `PrefetchJob` without the binary: a list file of loopback URLs, a temporary cache folder, the
/// real validation and state database. Asserts on the summary, the results an observer receives,
/// the cache folder and the state database: the recording and retry decisions of
/// `PrefetchJob+Download.swift` and `PrefetchJob+Recording.swift`.
@Suite struct PrefetchJobTests {
    /// Collects what a run reports (on the thread that runs it).
    final class Collector: PrefetchJob.Observer {
        var results: [EntryResult] = []
        var warnings: [String] = []
        var finalProgress: PrefetchJob.Progress?

        func prefetchDidFinish(_ result: EntryResult, source: ListSource) { results.append(result) }
        func prefetchProgress(_ progress: PrefetchJob.Progress) { if progress.isFinal { finalProgress = progress } }
        func prefetchWarning(_ message: String) { warnings.append(message) }
        func prefetchHalted(_ reason: PrefetchJob.Halt) { warnings.append("\(reason)") }

        /// The result of list line `line` (1-based).
        func result(line: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> EntryResult {
            try #require(
                results.first { $0.line == line }, "no result for line \(line)", sourceLocation: sourceLocation)
        }
    }

    struct Run {
        let summary: PrefetchJob.Summary
        let observer: Collector
        var totals: PrefetchTotals { summary.totals }
        func result(line: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> EntryResult {
            try observer.result(line: line, sourceLocation: sourceLocation)
        }
    }

    /// A loopback server with the fixture routes and a temporary cache; stops the server when it
    /// goes away.
    final class Bench {
        let temp: TemporaryFolder
        let fixtures: FixtureServer
        var routes: FixtureRoutes { fixtures.routes }
        var server: LoopbackServer { fixtures.server }
        let location: CacheLocation

        init() throws {
            temp = try TemporaryFolder(prefix: "imgwarm-job")
            fixtures = try FixtureServer()
            location = CacheLocation(folder: temp.path("caches/com.hackemist.SDImageCache/default"))
        }

        func url(_ path: String) -> String { fixtures.url(path) }

        /// Writes `lines` to a list file and runs a prefetch of it. Retries are quick (10 ms
        /// back-off); a run still going after 60 s is stopped as if by SIGTERM, so a bug fails the
        /// test (`summary.interrupted`) instead of hanging it.
        func run(_ lines: [String], configure: (inout PrefetchJob.Configuration) -> Void = { _ in }) throws -> Run {
            let list = try temp.write("list.txt", Data((lines.joined(separator: "\n") + "\n").utf8))
            var configuration = PrefetchJob.Configuration()
            configuration.retry.delay = 0.01
            configuration.retry.maxWait = 1
            configuration.fetch.timeout = 10
            configuration.fetch.maxTime = 30
            configuration.validationThreads = 2
            configuration.spoolFolder = temp.path
            let deadline = Date().addingTimeInterval(60)
            configuration.stop = StopSource(descriptor: nil) { Date() > deadline ? SIGTERM : 0 }
            configure(&configuration)
            let job = PrefetchJob(location: location, sources: [ListSource(path: list)], configuration: configuration)
            let observer = Collector()
            job.observer = observer
            let summary = try job.run()
            #expect(!summary.interrupted, "the run did not finish within 60 s")
            #expect(summary.stateFailure == nil)
            #expect(summary.lockFailure == nil)
            // Every line but blanks and comments ends with exactly one result.
            let urlLines = lines.filter { line in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                return !trimmed.isEmpty && !trimmed.hasPrefix("#")
            }
            #expect(observer.results.count == urlLines.count, "one result per line")
            return Run(summary: summary, observer: observer)
        }

        func state() throws -> StateStore { try StateStore(path: StateStore.defaultPath(for: location)) }

        func blacklistedURLs() throws -> [String] { try state().blacklistEntries().map(\.url).sorted() }

        /// The names in the cache folder (none when it does not exist).
        func cacheContents() -> Set<String> {
            Set((try? FileManager.default.contentsOfDirectory(atPath: location.folder)) ?? [])
        }

        func cached(_ key: String) -> [UInt8]? {
            (try? location.path(forKey: key)).flatMap { FileManager.default.contents(atPath: $0) }.map([UInt8].init)
        }

        /// Requests for `path` with exactly `query` (the flaky and cut routes count per target).
        func requests(_ target: String) -> Int { server.requests.filter { $0.target == target }.count }
    }

    // MARK: - Retries

    /// A body cut short under a matching Content-Length passes libcurl and is caught by
    /// validation (`truncated`, transient): the same retry decision as a transfer failure.
    /// Cut once: stored on the second attempt. Always cut: failed after retries + 1 attempts, and
    /// not blacklisted.
    @Test func transientValidationFailureIsRetried() throws {
        let bench = try Bench()
        let once = bench.url("/cut/photo.jpg?fail=1")
        let always = bench.url("/cut/gradient.png")
        let run = try bench.run([once, always]) { $0.retry.retries = 2 }

        let recovered = try run.result(line: 1)
        #expect(recovered.outcome == .downloaded)
        #expect(recovered.attempts == 2)
        #expect(bench.requests("/cut/photo.jpg?fail=1") == 2)
        #expect(bench.cached(once) == bench.routes.valid["photo.jpg"], "the whole image is stored, not the cut one")

        let cut = try run.result(line: 2)
        #expect(cut.outcome == .failed)
        #expect(cut.failure?.reason == .truncated)
        #expect(cut.failure?.message.contains("IEND") == true, "validation found it: \(cut.failure?.message ?? "")")
        #expect(cut.httpStatus == 200)
        #expect(cut.attempts == 3, "retries + 1 attempts")
        #expect(bench.requests("/cut/gradient.png") == 3)

        #expect(run.totals.downloaded == 1)
        #expect(run.totals.failed == 1)
        #expect(run.totals.errorClasses == ["truncated": 1])
        #expect(bench.cacheContents() == [SDFileName.forKey(once)])
        #expect(try bench.blacklistedURLs().isEmpty, "a transient failure is never blacklisted")
        #expect(try bench.state().record(forKey: always) == nil)

        // Not blacklisted: the next run asks again.
        _ = try bench.run([always]) { $0.retry.retries = 0 }
        #expect(bench.requests("/cut/gradient.png") == 4)
    }

    /// 503 then 200: downloaded on the second attempt, recorded in the state database.
    @Test func serviceUnavailableThenOKIsDownloadedOnTheSecondAttempt() throws {
        let bench = try Bench()
        let flaky = bench.url("/flaky/photo.jpg?fail=1&status=503")
        let run = try bench.run([flaky])
        let result = try run.result(line: 1)
        let photo = try #require(bench.routes.valid["photo.jpg"])
        #expect(result.outcome == .downloaded)
        #expect(result.attempts == 2)
        #expect(result.httpStatus == 200)
        #expect(result.bytes == photo.count)
        #expect(result.format == .jpeg)
        #expect(bench.requests("/flaky/photo.jpg?fail=1&status=503") == 2)
        #expect(bench.cached(flaky) == photo)
        #expect(run.totals.downloaded == 1 && run.totals.failed == 0)
        #expect(run.totals.bytesReceived == Int64(photo.count))
        #expect(run.totals.allInCache)

        let state = try bench.state()
        let record = try #require(try state.record(forKey: flaky))
        #expect(record.fileName == SDFileName.forKey(flaky))
        #expect(record.size == photo.count)
        #expect(record.format == ImageFormat.jpeg.rawValue)
        #expect(try state.blacklistEntries().isEmpty)
        let lastRun = try #require(try state.lastRun())
        #expect(lastRun.command == "prefetch")
        #expect(
            lastRun.totals.lines == 1 && lastRun.totals.downloaded == 1 && lastRun.totals.failed == 0,
            "the run is logged with its totals")
        #expect(!lastRun.interrupted)
    }

    /// A transient HTTP status that outlasts the retries ends failed, with its status, and is not
    /// blacklisted.
    @Test func transientStatusOutlastingTheRetriesIsNotBlacklisted() throws {
        let bench = try Bench()
        let busy = bench.url("/flaky/photo.jpg?fail=5&status=503")
        let run = try bench.run([busy]) { $0.retry.retries = 1 }
        let result = try run.result(line: 1)
        #expect(result.outcome == .failed)
        #expect(result.failure?.reason == .httpStatus)
        #expect(result.httpStatus == 503)
        #expect(result.attempts == 2)
        #expect(bench.requests("/flaky/photo.jpg?fail=5&status=503") == 2)
        #expect(try bench.blacklistedURLs().isEmpty)
        #expect(bench.cacheContents().isEmpty)
    }

    // MARK: - Permanent failures and the blacklist

    /// HTML served as an image fails validation permanently: one attempt whatever the retries,
    /// and the URL goes on the blacklist with what was found.
    @Test func permanentValidationFailureIsBlacklistedNotRetried() throws {
        let bench = try Bench()
        let html = bench.url("/html")
        let run = try bench.run([html]) { $0.retry.retries = 3 }
        let result = try run.result(line: 1)
        #expect(result.outcome == .failed)
        #expect(result.failure?.reason == .notAnImage)
        #expect(result.attempts == 1)
        #expect(bench.server.requestCount("/html") == 1, "a permanent failure is not retried")
        #expect(run.totals.errorClasses == ["not-an-image": 1])
        #expect(bench.cacheContents().isEmpty)

        let entries = try bench.state().blacklistEntries()
        #expect(entries.count == 1)
        let listed = try #require(entries.first)
        #expect(listed.url == html)
        #expect(listed.errorClass == FailureReason.notAnImage.rawValue)
        #expect(listed.httpStatus == 200)
        #expect(listed.attempts == 1)
    }

    /// A blacklisted URL is skipped on the next run without a request; `retryFailed` requests it
    /// again; once it succeeds, the success takes it off the blacklist.
    @Test func blacklistedURLsAreSkippedUntilRetryFailed() throws {
        let bench = try Bench()
        let missing = bench.url("/dynamic/missing.png")
        let first = try bench.run([missing])
        #expect(try first.result(line: 1).outcome == .failed)
        #expect(try first.result(line: 1).httpStatus == 404)
        #expect(bench.server.requestCount("/dynamic/missing.png") == 1)
        #expect(try bench.blacklistedURLs() == [missing])

        let second = try bench.run([missing])
        let skipped = try second.result(line: 1)
        #expect(skipped.outcome == .blacklisted)
        #expect(skipped.attempts == 0)
        #expect(skipped.httpStatus == 404)
        #expect(skipped.failure?.reason == .httpStatus)
        #expect(skipped.failure?.message.contains("blacklisted since") == true)
        #expect(bench.server.requestCount("/dynamic/missing.png") == 1, "no request to a blacklisted URL")
        #expect(second.totals.blacklisted == 1 && second.totals.failed == 0)

        let forced = try bench.run([missing]) { $0.retryFailed = true }
        #expect(try forced.result(line: 1).outcome == .failed)
        #expect(try forced.result(line: 1).attempts == 1)
        #expect(bench.server.requestCount("/dynamic/missing.png") == 2, "retryFailed asks again")
        #expect(try bench.blacklistedURLs() == [missing], "still failing: still listed")

        let png = try #require(bench.routes.valid["gradient.png"])
        bench.routes.setDynamic("missing.png", .init(body: png))
        let fixed = try bench.run([missing]) { $0.retryFailed = true }
        #expect(try fixed.result(line: 1).outcome == .downloaded)
        #expect(bench.server.requestCount("/dynamic/missing.png") == 3)
        #expect(try bench.blacklistedURLs().isEmpty, "the success removes the entry")
        #expect(bench.cached(missing) == png)
    }

    /// An entry older than the blacklist TTL no longer holds the URL back.
    @Test func expiredBlacklistEntriesAreRequestedAgain() throws {
        let bench = try Bench()
        let gone = bench.url("/status/410")
        _ = try bench.run([gone])
        #expect(try bench.blacklistedURLs() == [gone])
        let held = try bench.run([gone]) { $0.blacklistTTL = .after(seconds: 3600) }
        #expect(try held.result(line: 1).outcome == .blacklisted)
        #expect(bench.server.requestCount("/status/410") == 1)
        let expired = try bench.run([gone]) { $0.blacklistTTL = .after(seconds: 0) }
        #expect(try expired.result(line: 1).outcome == .failed)
        #expect(bench.server.requestCount("/status/410") == 2)
    }

    // MARK: - Duplicates and the cache

    /// The same key on several lines is fetched once and counted as duplicates; a second run finds
    /// everything cached and makes no request.
    @Test func duplicatesAreFetchedOnceAndCachedFilesAreNotRequested() throws {
        let bench = try Bench()
        let photo = bench.url("/img/photo.jpg")
        let icon = bench.url("/img/icon.bmp")
        let run = try bench.run([photo, icon, photo, "# a comment", photo])
        #expect(bench.server.requestCount("/img/photo.jpg") == 1)
        #expect(bench.server.requestCount("/img/icon.bmp") == 1)
        #expect(try run.result(line: 1).outcome == .downloaded)
        #expect(try run.result(line: 2).outcome == .downloaded)
        #expect(try run.result(line: 3).outcome == .duplicate)
        #expect(try run.result(line: 5).outcome == .duplicate)
        #expect(try run.result(line: 5).fileName == SDFileName.forKey(photo))
        #expect(run.totals.lines == 4)
        #expect(run.totals.downloaded == 2)
        #expect(run.totals.duplicates == 2)
        #expect(bench.cacheContents() == [SDFileName.forKey(photo), SDFileName.forKey(icon)])
        #expect(bench.cached(photo) == bench.routes.valid["photo.jpg"])
        #expect(bench.cached(icon) == bench.routes.valid["icon.bmp"])
        #expect(try bench.state().counts().trackedKeys == 2)

        let again = try bench.run([photo, icon])
        #expect(again.totals.cached == 2)
        #expect(try again.result(line: 1).outcome == .cached)
        #expect(try again.result(line: 1).bytes == bench.routes.valid["photo.jpg"]?.count)
        #expect(bench.server.requests.count == 2, "cached files are not requested")
    }

    // MARK: - Duplicates past memory

    /// With room for 3 keys in memory, the lines past them are judged after the lists are read:
    /// every line that repeats an earlier key is a duplicate, whether that key is in memory or not,
    /// nothing is requested twice, and a dry run finds the same lines.
    @Test(arguments: [false, true])
    func duplicatesPastTheMemoryLimit(dryRun: Bool) throws {
        let bench = try Bench()
        let names = [
            "A": "photo.jpg?a", "B": "gradient.png?b", "C": "anim.gif?c", "D": "sticker.webp?d", "E": "icon.bmp?e",
        ]
        let order = ["A", "B", "A", "C", "D", "A", "E", "D", "B", "E"]
        let run = try bench.run(order.map { bench.url("/img/" + names[$0]!) }) {
            $0.duplicateMemoryLimit = 3
            $0.dryRun = dryRun
        }
        for line in [1, 2, 4, 5, 7] {
            #expect(try run.result(line: line).outcome == (dryRun ? .wouldFetch : .downloaded), "line \(line)")
        }
        for line in [3, 6, 8, 9, 10] {
            let result = try run.result(line: line)
            #expect(result.outcome == .duplicate, "line \(line)")
            #expect(result.fileName == SDFileName.forKey(bench.url("/img/" + names[order[line - 1]]!)))
        }
        #expect(run.totals.duplicates == 5)
        #expect(run.observer.results.count == 10)
        for name in names.values {
            #expect(bench.requests("/img/" + name) == (dryRun ? 0 : 1), "\(name)")
        }
    }
}
