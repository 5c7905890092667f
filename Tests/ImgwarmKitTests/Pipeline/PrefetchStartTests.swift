import Curl
import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// `PrefetchJob.start` with an in-memory stand-in for the downloader, a real cache folder and a
/// real state database, and no server: what it records, and which transfers it starts with
/// which validators, for each `EntryStart`.
@Suite struct PrefetchStartTests {
    /// Takes the transfers the job starts, without a network.
    final class Starter: TransferStarting {
        var started: [(entry: PendingEntry, validators: Downloader.Validators?)] = []
        func start(_ entry: PendingEntry, validators: Downloader.Validators?) throws(CurlError) {
            started.append((entry, validators))
        }
    }

    final class Observer: PrefetchJob.Observer {
        var results: [EntryResult] = []
        func prefetchDidFinish(_ result: EntryResult, source: ListSource) { results.append(result) }
        func prefetchProgress(_ progress: PrefetchJob.Progress) {}
        func prefetchWarning(_ message: String) {}
        func prefetchHalted(_ reason: PrefetchJob.Halt) {}
    }

    /// A cache folder holding `hit` (a valid PNG), a state database listing `blacklisted`, and
    /// the record of `hit` with an ETag.
    final class Bench {
        let temp: TemporaryFolder
        let location: CacheLocation
        let hit = "https://example.com/hit.png"
        let blacklisted = "https://example.com/gone.png"
        let png: [UInt8]

        init() throws {
            temp = try TemporaryFolder(prefix: "imgwarm-start")
            location = CacheLocation(folder: temp.path("cache"))
            png = try [UInt8](Data(contentsOf: Fixtures.root.appendingPathComponent("images/valid/gradient.png")))
        }

        /// Runs `start` on `urls` in a job of `configure`d settings; returns what the stand-in
        /// started and what was recorded.
        func start(
            _ urls: [String], configure: (inout PrefetchJob.Configuration) -> Void = { _ in }
        ) throws -> (started: [(entry: PendingEntry, validators: Downloader.Validators?)], results: [EntryResult]) {
            var configuration = PrefetchJob.Configuration()
            configure(&configuration)
            let job = PrefetchJob(
                location: location, sources: [ListSource(path: "list.txt")], configuration: configuration)
            let observer = Observer()
            job.observer = observer
            // Before the store, which notes the names in the folder when it opens.
            try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
            try Data(png).write(to: URL(fileURLWithPath: location.folder + "/" + SDFileName.forKey(hit)))
            let store = try PrefetchStore(location: location, lockTimeout: 5)
            defer { store.endTouches() }
            // Listed before the job opens the database: it reads the blacklist only when it was
            // not empty then (or a second later).
            let database = try StateStore(path: StateStore.defaultPath(for: location))
            try database.blacklist(
                StateStore.BlacklistEntry(
                    url: blacklisted, failedAt: Date().timeIntervalSince1970,
                    errorClass: FailureReason.httpStatus.rawValue,
                    message: "the server answered 404", httpStatus: 404, attempts: 1))
            try database.recordStored(
                StateStore.Record(
                    key: hit, fileName: SDFileName.forKey(hit), size: png.count, format: "png", width: 1, height: 1,
                    etag: "\"v1\"", lastModified: nil, fetchedAt: 0, validatedAt: 0))
            try job.state.open(busyTimeout: 5) { _ in }
            let starter = Starter()
            for (line, url) in urls.enumerated() {
                let entry = PendingEntry(line: line + 1, input: 0, url: url, priority: .normal)
                job.start(entry, downloader: starter, store: store, policy: nil)
            }
            return (starter.started, observer.results)
        }
    }

    @Test func aHitIsRecordedAndAMissStartsATransfer() throws {
        let bench = try Bench()
        let miss = "https://example.com/miss.png"
        let run = try bench.start([bench.hit, miss])
        #expect(run.results.map(\.outcome) == [.cached])
        #expect(run.results.first?.bytes == bench.png.count)
        #expect(run.started.map(\.entry.url) == [miss])
        #expect(run.started.first?.entry.attempts == 1)
        #expect(run.started.first?.validators == nil)
    }

    @Test func theBlacklistHoldsBackUntilRetryFailed() throws {
        let bench = try Bench()
        let held = try bench.start([bench.blacklisted])
        #expect(held.started.isEmpty)
        #expect(held.results.map(\.outcome) == [.blacklisted])
        #expect(held.results.first?.httpStatus == 404)
        let forced = try bench.start([bench.blacklisted]) { $0.retryFailed = true }
        #expect(forced.results.isEmpty)
        #expect(forced.started.map(\.entry.url) == [bench.blacklisted])
    }

    @Test func refreshRevalidatesWithTheRecordsValidators() throws {
        let bench = try Bench()
        let run = try bench.start([bench.hit]) { $0.refresh = true }
        #expect(run.results.isEmpty)
        let started = try #require(run.started.first)
        #expect(started.entry.isRefresh)
        #expect(started.validators == Downloader.Validators(etag: "\"v1\"", lastModified: nil))
    }
}
