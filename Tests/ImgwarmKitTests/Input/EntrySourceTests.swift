import Testing

@testable import ImgwarmKit

/// `EntrySource` (issue 51, item 1): each rule that differs by where an entry's bytes come from,
/// for each source, as the run, the router, the slot policy, the recorder and the dry run ask it.
@Suite struct EntrySourceTests {
    static let recorded = RecordedResponse(offset: 0, length: 10, status: 203, headers: [])
    static let reason = "the recorded response is a 304 Not Modified, which has no body"
    static let sources: [EntrySource] = [.network, .localFile, .recordedBody, .noRecordedBody(reason: reason)]

    func entry(_ body: BodySource?) -> PendingEntry {
        var entry = PendingEntry(line: 1, input: 0, url: "https://example.com/a.png", priority: .normal)
        entry.body = body
        return entry
    }

    @Test func theBodyGivesTheSource() {
        #expect(entry(nil).source == .network)
        #expect(entry(.file("/tmp/a.png")).source == .localFile)
        #expect(entry(.recorded(Self.recorded)).source == .recordedBody)
        #expect(entry(.missing(Self.reason)).source == .noRecordedBody(reason: Self.reason))
    }

    /// Only the network is requested; every rule of a request follows it.
    @Test(arguments: sources) func requestRulesFollowTheNetwork(_ source: EntrySource) {
        let requested = source == .network
        #expect(source.isRequested == requested)
        #expect(source.usesHostSlot == requested)
        #expect(source.countsForHost == requested)
        #expect(source.stoppedByUnavailableHost == requested)
        #expect(source.stoppedByBlacklist == requested)
        #expect(source.isRetried == requested)
        #expect(source.failuresBlacklistTheURL == requested)
    }

    /// A local file had no response: no status, in the report or in a failure.
    @Test func onlyALocalFileHasNoStatus() {
        #expect(EntrySource.network.hasHTTPStatus)
        #expect(!EntrySource.localFile.hasHTTPStatus)
        #expect(EntrySource.recordedBody.hasHTTPStatus)
        #expect(EntrySource.noRecordedBody(reason: Self.reason).hasHTTPStatus)
        #expect(EntrySource.network.reportedStatus(404) == 404)
        #expect(EntrySource.network.reportedStatus(nil) == nil)
        #expect(EntrySource.localFile.reportedStatus(200) == nil)
        #expect(EntrySource.recordedBody.reportedStatus(203) == 203)
        #expect(EntrySource.noRecordedBody(reason: Self.reason).reportedStatus(304) == 304)
    }

    /// Only `--offline`'s entry with nothing recorded ends before anything is read: `no-body`,
    /// with why, never retried nor blacklisted, with the `no-body` outcome.
    @Test func onlyNothingRecordedFailsBeforeReading() throws {
        #expect(EntrySource.network.failureBeforeReading == nil)
        #expect(EntrySource.localFile.failureBeforeReading == nil)
        #expect(EntrySource.recordedBody.failureBeforeReading == nil)
        let failure = try #require(EntrySource.noRecordedBody(reason: Self.reason).failureBeforeReading)
        #expect(failure == Failure(.noBody, Self.reason))
        #expect(Outcome(finalFailure: failure) == .noBody)
    }

    /// The outcome a final failure gives its line, in the run's recorder and the dry run alike.
    @Test func aFinalFailuresOutcome() {
        #expect(Outcome(finalFailure: Failure(.noBody, "")) == .noBody)
        #expect(Outcome(finalFailure: Failure(.unsupported, "")) == .unsupported)
        #expect(Outcome(finalFailure: Failure(.httpStatus, "", httpStatus: 404)) == .failed)
        #expect(Outcome(finalFailure: Failure(.tooLarge, "")) == .failed)
    }

    /// The run ends an entry with nothing recorded through `LocalBodies` with the same failure
    /// the dry run reports (`failureBeforeReading`), without reading anything.
    @Test func localBodiesEndNothingRecordedWithTheSameFailure() throws {
        let bodies = LocalBodies(maxBytes: 1 << 20, memoryLimit: 1 << 10, spillFolder: "/nonexistent", spillPrefix: "x")
        bodies.start(entry(.missing(Self.reason)))
        let finished = try #require(bodies.completions().first)
        guard case .failure(let failure) = finished.result else {
            Issue.record("a missing body read as a success")
            return
        }
        #expect(failure == EntrySource.noRecordedBody(reason: Self.reason).failureBeforeReading)
        #expect(finished.httpStatus == nil)
    }
}
