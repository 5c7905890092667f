import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// `PrefetchJob.run` with a scripted network (`ScriptedNetwork`) and, where a test says so,
/// scripted validation (`ScriptedValidation`), through `PrefetchJob.Parts`: the download loop's
/// rules with no server. The list file, the cache folder, the state database and (unless
/// scripted) validation are real, in a temporary folder.
@Suite struct PrefetchLoopTests {
    final class Observer: PrefetchJob.Observer {
        var results: [EntryResult] = []
        var halts: [PrefetchJob.Halt] = []
        func prefetchDidFinish(_ result: EntryResult, source: ListSource) { results.append(result) }
        func prefetchProgress(_ progress: PrefetchJob.Progress) {}
        func prefetchWarning(_ message: String) {}
        func prefetchHalted(_ reason: PrefetchJob.Halt) { halts.append(reason) }
    }

    struct Run {
        let summary: PrefetchJob.Summary
        let observer: Observer
        var totals: PrefetchTotals { summary.totals }

        func result(_ url: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> EntryResult {
            try #require(
                observer.results.first { $0.url == url }, "no result for \(url)", sourceLocation: sourceLocation)
        }

        func urls(_ outcome: Outcome) -> Set<String> {
            Set(observer.results.filter { $0.outcome == outcome }.map(\.url))
        }
    }

    /// A temporary cache folder (SDWebImage's layout) and state database, kept across the runs
    /// of one test.
    final class Bench {
        let temp: TemporaryFolder
        let location: CacheLocation
        let png: [UInt8]
        let stop = StopFlag()

        init() throws {
            temp = try TemporaryFolder(prefix: "imgwarm-loop")
            location = CacheLocation(folder: temp.path("cache"))
            png = try [UInt8](Data(contentsOf: Fixtures.root.appendingPathComponent("images/valid/gradient.png")))
        }

        /// Runs a prefetch of `urls` on `network` (and `validation`, when given). Retries are
        /// quick (10 ms back-off); a run still going after 60 s is stopped as if by SIGTERM, so
        /// a bug fails the test instead of hanging it; `stop` stops it earlier.
        func run(
            _ urls: [String], network: ScriptedNetwork, validation: ScriptedValidation? = nil,
            listName: String = "list.txt",
            configure: (inout PrefetchJob.Configuration) -> Void = { _ in }
        ) throws -> Run {
            let list = try temp.write(listName, Data((urls.joined(separator: "\n") + "\n").utf8))
            var configuration = PrefetchJob.Configuration()
            configuration.retry.delay = 0.01
            configuration.retry.maxWait = 1
            configuration.validationThreads = 1
            configuration.spoolFolder = temp.path
            let (stop, deadline) = (stop, Date().addingTimeInterval(60))
            configuration.stop = StopSource(descriptor: nil) {
                stop.signal != 0 ? stop.signal : Date() > deadline ? SIGTERM : 0
            }
            configure(&configuration)
            var parts = PrefetchJob.Parts.real
            parts.downloader = { _, _, _ in network }
            if let validation { parts.validation = { _, _, _ in validation } }
            let job = PrefetchJob(
                location: location, sources: [ListSource(path: list)], configuration: configuration, parts: parts)
            let observer = Observer()
            job.observer = observer
            let summary = try job.run()
            #expect(summary.stateFailure == nil)
            #expect(observer.results.count == urls.count, "one result per line")
            return Run(summary: summary, observer: observer)
        }

        func blacklistedURLs() throws -> [String] {
            try StateStore(path: StateStore.defaultPath(for: location)).blacklistEntries().map(\.url).sorted()
        }

        func cachedPath(_ url: String) throws -> String { try location.path(forKey: url) }

        func cached(_ url: String) -> [UInt8]? {
            (try? cachedPath(url)).flatMap { FileManager.default.contents(atPath: $0) }.map([UInt8].init)
        }
    }

    /// A 503 asking to retry at once, and a refused connection: each tried again after its
    /// back-off, then stored from the second answer (attempts 2), and never blacklisted.
    @Test func aTransientFailureIsRetriedThenStored() throws {
        let bench = try Bench()
        let busy = "https://example.com/busy.png"
        let refused = "https://example.org/refused.png"
        let network = ScriptedNetwork([
            busy: [.status(503, retryAfter: "0"), .image(bench.png)], refused: [.connectFailed, .image(bench.png)],
        ])
        let run = try bench.run([busy, refused], network: network)
        #expect(!run.summary.interrupted)
        for url in [busy, refused] {
            let result = try run.result(url)
            #expect(result.outcome == .downloaded, "\(url)")
            #expect(result.attempts == 2, "\(url)")
            #expect(network.requests(url) == 2, "\(url)")
            #expect(bench.cached(url) == bench.png, "\(url)")
        }
        #expect(try bench.blacklistedURLs().isEmpty)
    }

    /// A 404 is final after one request and blacklists its URL; the next run reports it as
    /// blacklisted without a request, until `--retry-failed`.
    @Test func aPermanentFailureIsBlacklistedAndNotRequestedAgain() throws {
        let bench = try Bench()
        let gone = "https://example.com/gone.png"
        let first = ScriptedNetwork([gone: [.status(404)]])
        let failed = try bench.run([gone], network: first).result(gone)
        #expect(failed.outcome == .failed)
        #expect(failed.httpStatus == 404)
        #expect(failed.attempts == 1)
        #expect(first.requests(gone) == 1)
        #expect(try bench.blacklistedURLs() == [gone])

        let second = ScriptedNetwork([:])
        let skipped = try bench.run([gone], network: second).result(gone)
        #expect(skipped.outcome == .blacklisted)
        #expect(skipped.httpStatus == 404)
        #expect(second.requests.isEmpty)

        let forced = ScriptedNetwork([gone: [.image(bench.png)]])
        let retried = try bench.run([gone], network: forced) { $0.retryFailed = true }.result(gone)
        #expect(retried.outcome == .downloaded)
        #expect(forced.requests(gone) == 1)
        #expect(try bench.blacklistedURLs().isEmpty, "a URL stored is taken off the blacklist")
    }

    /// A signal while transfers run: the ones in flight are abandoned and reported interrupted,
    /// bodies already received are still validated and stored, the entries never started are
    /// reported not started; nothing else starts.
    @Test func aStopRecordsInFlightEntriesAsInterruptedAndTheRestAsNotStarted() throws {
        let bench = try Bench()
        let urls = (1...20).map { "https://example.com/\($0).png" }
        let (hanging, received) = (Set(urls.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)), bench.png)
        let network = ScriptedNetwork(
            Dictionary(uniqueKeysWithValues: urls.map { ($0, hanging.contains($0) ? [.hang] : [.image(received)]) }))
        let stop = bench.stop
        network.onPoll = { if $0.inFlight > 0 { stop.trip(SIGTERM) } }
        let run = try bench.run(urls, network: network)
        #expect(run.summary.interrupted)
        #expect(run.summary.signal == SIGTERM)
        let requested = Set(network.requests.map(\.url))
        #expect(requested.count < urls.count, "the first round starts some: \(requested.count)")
        #expect(network.requests.count == requested.count, "nothing starts after the stop")
        #expect(!requested.intersection(hanging).isEmpty)
        #expect(run.urls(.interrupted) == requested.intersection(hanging))
        #expect(!requested.subtracting(hanging).isEmpty)
        #expect(run.urls(.downloaded) == requested.subtracting(hanging))
        for url in requested.subtracting(hanging) { #expect(bench.cached(url) == received, "\(url)") }
        #expect(run.urls(.notStarted) == Set(urls).subtracting(requested))
    }

    /// What stops a run, met by the network (a full disk while a body is written, the proxy
    /// down) or by validation (a full disk, the cache lock held too long).
    enum Halt: CaseIterable {
        case networkDiskFull, proxyDown, validationDiskFull, lock
    }

    /// A halt stops new transfers from the first result that met it; the observer hears of it
    /// once however many entries met it, and the summary says so. Such local trouble blacklists
    /// nothing.
    @Test(arguments: Halt.allCases) func aHaltStopsNewStartsAndIsReportedOnce(_ halt: Halt) throws {
        let bench = try Bench()
        let urls = (1...20).map { "https://example.com/\($0).png" }
        let answer: ScriptedNetwork.Answer =
            switch halt {
            case .networkDiskFull: .diskFull
            case .proxyDown: .proxyDown
            case .validationDiskFull, .lock: .image(bench.png)
            }
        let network = ScriptedNetwork(Dictionary(uniqueKeysWithValues: urls.map { ($0, [answer]) }))
        var events: [String] = []
        network.onStart = { _ in events.append("start") }
        let timeout = CacheLock.Timeout(path: bench.location.folder + "/.lock", seconds: 1, exclusive: false)
        var validation: ScriptedValidation?
        if case .image = answer {
            validation = ScriptedValidation { job in
                events.append("halt")
                let lock = halt == .lock
                let failure = Failure(.writeFailed, lock ? "\(timeout)" : "No space left on device")
                return ValidationPool.Validated(
                    job: job, result: .failure(failure), diskFull: !lock, lockTimeout: lock ? timeout : nil)
            }
        } else {
            network.onFinish = { _ in events.append("halt") }
        }
        let run = try bench.run(urls, network: network, validation: validation)
        let firstHalt = try #require(events.firstIndex(of: "halt"))
        #expect(!events[firstHalt...].contains("start"), "no start after the halt: \(events)")
        #expect(network.requests.count < urls.count)
        #expect(run.observer.halts.count == 1, "told once: \(run.observer.halts)")
        #expect(run.summary.diskFull == (halt == .networkDiskFull || halt == .validationDiskFull))
        #expect((run.summary.lockFailure != nil) == (halt == .lock))
        #expect((run.summary.proxyFailure != nil) == (halt == .proxyDown))
        #expect(run.totals.failed == network.requests.count)
        #expect(run.totals.notStarted == urls.count - network.requests.count)
        #expect(try bench.blacklistedURLs().isEmpty, "local trouble says nothing about the URL")
    }

    /// A cached file is touched as the app's read would (its access time) and reported cached;
    /// the network never sees it.
    @Test func aHitIsTouchedAndNeverRequested() throws {
        let bench = try Bench()
        let url = "https://example.com/hit.png"
        _ = try bench.run([url], network: ScriptedNetwork([url: [.image(bench.png)]]))
        let path = try bench.cachedPath(url)
        var old = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &old, 0) == 0)

        let network = ScriptedNetwork([:])
        let run = try bench.run([url], network: network)
        #expect(try run.result(url).outcome == .cached)
        #expect(try run.result(url).bytes == bench.png.count)
        #expect(network.requests.isEmpty)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_atim.tv_sec > 1_000_000_000, "the hit's access time is now")
    }

    /// With `--refresh` a hit is asked for with the validators its download stored, and a 304
    /// revalidates it; a 304 to a request that was not conditional is a failure.
    @Test func aConditionalRequestAnswered304IsRevalidated() throws {
        let bench = try Bench()
        let url = "https://example.com/etag.png"
        let odd = "https://example.com/odd.png"
        let first = try bench.run(
            [url, odd], network: ScriptedNetwork([url: [.image(bench.png, etag: "\"v1\"")], odd: [.notModified]]))
        #expect(try first.result(url).outcome == .downloaded)
        let unasked = try first.result(odd)
        #expect(unasked.outcome == .failed)
        #expect(unasked.httpStatus == 304)

        let network = ScriptedNetwork([url: [.notModified]])
        let run = try bench.run([url], network: network) { $0.refresh = true }
        #expect(network.requests.map(\.validators) == [Downloader.Validators(etag: "\"v1\"", lastModified: nil)])
        let result = try run.result(url)
        #expect(result.outcome == .revalidated)
        #expect(result.httpStatus == 304)
        #expect(result.bytes == bench.png.count)
        #expect(bench.cached(url) == bench.png)
    }

    /// A JSON Lines "file" line is read, never handed to the network, beside a URL line that is;
    /// the blacklist of its URL (the server's answer) does not hold back the local file, and
    /// its own failure (not an image) blacklists nothing.
    @Test func aFileLineIsReadNotRequestedAndIgnoresTheBlacklist() throws {
        let bench = try Bench()
        let (local, fetched, broken) = (
            "https://example.com/local.png", "https://example.com/fetched.png", "https://example.com/broken.png"
        )
        _ = try bench.temp.write("local.png", Data(bench.png))
        _ = try bench.temp.write("broken.png", Data("not an image".utf8))
        _ = try bench.run([local], network: ScriptedNetwork([local: [.status(404)]]))
        #expect(try bench.blacklistedURLs() == [local])

        let network = ScriptedNetwork([fetched: [.image(bench.png)]])
        let lines = [
            #"{"url": "\#(local)", "file": "local.png"}"#, #"{"url": "\#(fetched)"}"#,
            #"{"url": "\#(broken)", "file": "broken.png"}"#,
        ]
        let run = try bench.run(lines, network: network, listName: "list.jsonl")
        #expect(network.requests.map(\.url) == [fetched])
        #expect(try run.result(local).outcome == .downloaded)
        #expect(try run.result(local).httpStatus == nil)
        #expect(try run.result(fetched).outcome == .downloaded)
        #expect(try run.result(broken).failure?.reason == .notAnImage)
        #expect(bench.cached(local) == bench.png)
        #expect(try bench.blacklistedURLs().isEmpty, "stored: taken off the blacklist; the broken file lists nothing")
    }

    /// A file line takes no slot of its URL's host: with the host's every slot held by transfers
    /// that hang, it is still read and stored at once.
    @Test func aFileLineTakesNoSlotOfItsHost() throws {
        let bench = try Bench()
        _ = try bench.temp.write("local.png", Data(bench.png))
        let hanging = (1...(SlotPolicy.Configuration.initialPerHost + 2)).map { "https://example.com/hang-\($0).png" }
        let local = "https://example.com/local.png"
        let network = ScriptedNetwork(Dictionary(uniqueKeysWithValues: hanging.map { ($0, [.hang]) }))
        let stop = bench.stop
        network.onPoll = { _ in if bench.cached(local) != nil { stop.trip(SIGTERM) } }
        let lines = hanging.map { #"{"url": "\#($0)"}"# } + [#"{"url": "\#(local)", "file": "local.png"}"#]
        let run = try bench.run(lines, network: network, listName: "list.jsonl")
        #expect(network.requests.count == SlotPolicy.Configuration.initialPerHost, "the host's slots are full")
        #expect(try run.result(local).outcome == .downloaded)
        #expect(run.summary.signal == SIGTERM, "stopped by the test, not by the 60 s deadline")
    }
}
