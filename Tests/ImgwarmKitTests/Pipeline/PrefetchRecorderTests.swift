import Testing

@testable import ImgwarmKit

/// `PrefetchRecorder` with an in-memory observer, without a cache, a database or a server: each
/// line's end reaches the totals, the observer and the report once; entries the run never
/// started or abandoned carry the file name the format gives their key; damaged hits make one
/// warning, worded for the run or the dry run.
@Suite struct PrefetchRecorderTests {
    final class Observer: PrefetchJob.Observer {
        var results: [EntryResult] = []
        var warnings: [String] = []
        var progress: [PrefetchJob.Progress] = []
        func prefetchDidFinish(_ result: EntryResult, source: ListSource) { results.append(result) }
        func prefetchProgress(_ progress: PrefetchJob.Progress) { self.progress.append(progress) }
        func prefetchWarning(_ message: String) { warnings.append(message) }
        func prefetchHalted(_ reason: PrefetchJob.Halt) {}
    }

    static func entry(_ line: Int, attempts: Int = 0) -> PendingEntry {
        var entry = PendingEntry(line: line, input: 0, url: "https://example.com/\(line).png", priority: .normal)
        entry.attempts = attempts
        return entry
    }

    @Test func everyEndReachesTheTotalsAndTheObserver() throws {
        let format = SDWebImageFormat()
        let recorder = PrefetchRecorder(
            sources: [ListSource(path: "list.txt")], location: CacheLocation(folder: "/c", format: format))
        let observer = Observer()
        recorder.observer = observer
        recorder.total = 4
        recorder.recordNotStarted(Self.entry(1))
        recorder.recordInterrupted(Self.entry(2, attempts: 1))
        recorder.recordFailed(Self.entry(3, attempts: 2), Failure(.httpStatus, "404", httpStatus: 404))
        recorder.recordOtherShard()
        recorder.emitProgress(inFlight: 0, final: true)

        #expect(observer.results.map(\.outcome) == [.notStarted, .interrupted, .failed])
        #expect(observer.results.map(\.line) == [1, 2, 3])
        let names = observer.results.map(\.fileName)
        #expect(names == [1, 2, 3].map { format.fileName(forKey: "https://example.com/\($0).png") })
        let failed = try #require(observer.results.last)
        #expect(failed.httpStatus == 404 && failed.attempts == 2 && failed.duration == 0)
        #expect(recorder.totals.failed == 1 && recorder.totals.otherShard == 1)
        let final = try #require(observer.progress.last)
        #expect(final.isFinal && final.total == 4 && final.totals == recorder.totals)
    }

    @Test(arguments: [false, true])
    func damagedHitsMakeOneWarning(dryRun: Bool) {
        let recorder = PrefetchRecorder(
            sources: [ListSource(path: "list.txt")], location: CacheLocation(folder: "/c", format: SDWebImageFormat()))
        let observer = Observer()
        recorder.observer = observer
        recorder.warnAboutDamagedHits(dryRun: dryRun)
        #expect(observer.warnings.isEmpty, "no damaged hit, no warning")
        recorder.noteDamagedHit("a.png", "the body ends before its last marker")
        recorder.noteDamagedHit("b.png", "the body is empty")
        recorder.warnAboutDamagedHits(dryRun: dryRun)
        #expect(recorder.damagedHits == 2)
        let next = dryRun ? "a run would download them again" : "requested again"
        #expect(
            observer.warnings == [
                "2 cached files were damaged, a miss for the app (the first, a.png: the file ends before its last marker): \(next)"
            ])
    }
}
