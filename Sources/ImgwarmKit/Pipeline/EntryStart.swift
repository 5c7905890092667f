/// What starting a list entry comes to: the one rule the real run acts on (it locks, touches,
/// records or starts a transfer) and the dry run reports (it writes nothing), so that
/// `prefetch --dry-run` says what the run would do. Pure: no locks and no I/O; what costs a read
/// (the state record, the blacklist, the host's breaker) is asked through closures, and only
/// when the rule needs it.
enum EntryStart: Equatable {
    /// A hit: recorded as cached, with the file's size.
    case cached(size: Int)
    /// A hit `--refresh` asks about again, conditionally when the state holds validators for the
    /// file that is there now.
    case revalidate(Downloader.Validators?)
    /// A miss whose URL is on the blacklist: skipped without a request.
    case blacklisted(StateStore.BlacklistEntry)
    /// The entry's host is unavailable for the rest of the run: it ends without a request.
    case hostUnavailable(Failure)
    /// A folder stands where the file should go: it can never be written.
    case blocked(name: String)
    /// A miss: a transfer starts.
    case fetch

    /// The settings the rule reads.
    struct Rules: Sendable {
        /// Revalidate hits (`--refresh`).
        var refresh = false
        /// Request blacklisted URLs anyway (`--retry-failed`).
        var retryFailed = false
    }

    /// The decision for entry file `name` with cache lookup `lookup` (a damaged hit already
    /// counted as a miss). `firstAttempt` is false for a retry, which the blacklist does not hold
    /// back (its own failure is not yet listed). `record` is the state record of the entry's key;
    /// `blacklisted` the blacklist entry in force for its URL; `hostUnavailable` the failure its
    /// host's breaker ends it with.
    static func decide(
        _ lookup: CacheStore.Lookup, name: String, firstAttempt: Bool, rules: Rules,
        record: () -> StateStore.Record?, blacklisted: () -> StateStore.BlacklistEntry?,
        hostUnavailable: () -> Failure?
    ) -> EntryStart {
        let start: EntryStart
        switch lookup {
        case .blocked:
            return .blocked(name: name)
        case .hit(let size):
            guard rules.refresh else { return .cached(size: size) }
            start = .revalidate(validators(record(), name: name, size: size))
        case .miss:
            if firstAttempt, !rules.retryFailed, let listed = blacklisted() { return .blacklisted(listed) }
            start = .fetch
        }
        if let failure = hostUnavailable() { return .hostUnavailable(failure) }
        return start
    }

    /// The validators of `record`, which count only if it describes the file that is there now
    /// (same name and size) and holds one.
    static func validators(_ record: StateStore.Record?, name: String, size: Int) -> Downloader.Validators? {
        guard let record, record.fileName == name, record.size == size,
            record.etag != nil || record.lastModified != nil
        else { return nil }
        return Downloader.Validators(etag: record.etag, lastModified: record.lastModified)
    }

    /// The result of a start that ends `entry` at once and alike in the run and the dry run
    /// (blocked, blacklisted); nil for the others, which the run acts on.
    func result(of entry: PendingEntry, fileName: String) -> EntryResult? {
        var result: EntryResult
        switch self {
        case .blocked(let name):
            result = EntryResult(entry, outcome: .failed)
            result.failure = Failure(
                .writeFailed, "a folder named \(name) is in the cache folder where the file should go")
        case .blacklisted(let listed):
            result = EntryResult(entry, outcome: .blacklisted)
            result.httpStatus = listed.httpStatus
            result.failure = EntryStart.failure(listed)
        case .cached, .revalidate, .hostUnavailable, .fetch:
            return nil
        }
        result.fileName = fileName
        return result
    }

    /// What a blacklisted URL is reported with: the failure that listed it, and since when.
    static func failure(_ listed: StateStore.BlacklistEntry) -> Failure {
        let since = Timestamp(seconds: Int64(listed.failedAt)).iso8601
        return Failure(
            FailureReason(rawValue: listed.errorClass) ?? .transferFailed,
            "blacklisted since \(since): \(listed.message)", httpStatus: listed.httpStatus)
    }
}
