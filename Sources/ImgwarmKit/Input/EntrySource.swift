/// Where a list line's bytes come from, and the rules of the run that differ by it: the one
/// owner of "this entry is read, not requested". The job, the router, the slot policy, the
/// recorder and the dry run ask these rules (`PendingEntry.source`); only Input (which gives an
/// entry its `BodySource`) and Fetching (`LocalBodies`, which reads it) look at the body itself.
///
/// - `network`: the URL is requested. It takes a slot of its host, its answer tells the host's
///   `SlotPolicy` (the adaptive limit and the breaker) and an unavailable host ends it; its URL's
///   blacklist entry stops it; a transient failure is retried and a permanent one blacklists
///   its URL (`FailurePolicy`); the report has its HTTP status.
/// - `localFile`: a JSON Lines `"file"`, read from disk. A file has no response: no status.
/// - `recordedBody`: `--offline`, the body a HAR capture recorded, read from the ingest's
///   scratch file, with the recorded status.
/// - `noRecordedBody`: `--offline`, a HAR entry (or a plain URL line) with nothing to store: it
///   ends as `no-body`, with why, before anything is read.
///
/// Every source but the network is read, not requested: it takes no host slot, tells the host
/// nothing, is not stopped by its host nor by its URL's blacklist entry (the blacklist is of
/// URLs' answers), and its failure is the body's, not the URL's: final, never blacklisted.
///
/// - `copied`: several formats in one run: another format's bytes of the same URL (this run's
///   download for an earlier format, or a hit of another format's folder: `CopiedBody`). Read,
///   not requested, like the others; but a copy that cannot be stored is not the URL's failure:
///   the entry goes back to the scheduler and is requested (`fallsBackToNetwork`).
public enum EntrySource: Sendable, Equatable {
    case network
    case localFile
    case recordedBody
    case noRecordedBody(reason: String)
    /// The bytes of another format, named.
    case copied(from: String)

    /// The source of an entry with `body` (nil: its URL is fetched).
    init(_ body: BodySource?) {
        switch body {
        case nil: self = .network
        case .file: self = .localFile
        case .recorded: self = .recordedBody
        case .missing(let reason): self = .noRecordedBody(reason: reason)
        }
    }

    /// Its bytes come from a request (the `Downloader`); else `LocalBodies` reads them
    /// (`TransferRouter`).
    public var isRequested: Bool { self == .network }

    /// It takes a slot of its host in the scheduler (`Scheduler.next`'s `needsTransfer`,
    /// `Scheduler.started`).
    public var usesHostSlot: Bool { isRequested }

    /// Its end tells its host's `SlotPolicy` (the latency, the adaptive limit, the breaker).
    public var countsForHost: Bool { isRequested }

    /// An unavailable host (its breaker tripped) ends it without a request.
    public var stoppedByUnavailableHost: Bool { isRequested }

    /// Its URL's active blacklist entry stops it.
    public var stoppedByBlacklist: Bool { isRequested }

    /// A transient failure goes back to the scheduler after its back-off (`FailurePolicy`);
    /// otherwise every failure is final: reading the same bytes again changes nothing.
    public var isRetried: Bool { isRequested }

    /// A permanent failure blacklists its URL (`FailurePolicy`); a body read is the body's
    /// failure, not the URL's answer.
    public var failuresBlacklistTheURL: Bool { isRequested }

    /// It had a response, with a status: all but a local file and another format's copy (whose
    /// response, if any, was another entry's).
    public var hasHTTPStatus: Bool {
        if case .copied = self { return false }
        return self != .localFile
    }

    /// A failure to store it sends the entry to the network instead (once): another format's
    /// copy, whose failure says nothing of the URL.
    public var fallsBackToNetwork: Bool {
        if case .copied = self { return true }
        return false
    }

    /// The status the report and a failure give it: `status` when it had a response, else nil.
    public func reportedStatus(_ status: Int?) -> Int? { hasHTTPStatus ? status : nil }

    /// The failure it ends with before anything is requested or read (`--offline`'s `no-body`,
    /// with why), as the run (`LocalBodies`) and the dry run both end it; nil for any other.
    public var failureBeforeReading: Failure? {
        guard case .noRecordedBody(let reason) = self else { return nil }
        return Failure(.noBody, reason)
    }
}

extension PendingEntry {
    /// Where its bytes come from (`EntrySource`): another format's copy, else its `body`.
    public var source: EntrySource {
        if let copy { return .copied(from: copy.format) }
        return EntrySource(body)
    }
}
