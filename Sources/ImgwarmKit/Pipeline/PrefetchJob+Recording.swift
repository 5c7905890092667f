/// Recording outcomes: totals, the report, the observer, and the state database.
extension PrefetchJob {
    /// Records what validation found; a transient failure (a body cut short under a matching
    /// Content-Length is `truncated`) goes through the same retry decision as a failed transfer.
    func record(validated outcome: ValidationPool.Outcome, scheduler: Scheduler) {
        let job = outcome.job
        switch outcome.result {
        case .success(let image):
            var result = EntryResult(job.entry, outcome: .downloaded)
            result.fileName = job.fileName
            result.httpStatus = job.httpStatus
            result.attempts = job.entry.attempts
            result.duration = Monotonic.now() - job.entry.firstStarted
            result.bytes = job.count
            result.format = image.format
            result.width = image.width
            result.height = image.height
            let now = Timestamp.now().secondsSinceEpoch
            let stored = StateStore.Record(
                key: job.entry.key, fileName: job.fileName, size: job.count, format: image.format.rawValue,
                width: image.width, height: image.height, etag: job.etag, lastModified: job.lastModified,
                fetchedAt: now, validatedAt: now)
            let unblacklist = blacklistMayHoldEntries ? job.entry.url : nil
            writeState { state throws(StateError) in
                try state.recordStored(stored)
                if let unblacklist { try state.unblacklist(unblacklist) }
            }
            if let index = storeIndex, index.awaitsListing(job.fileName) {
                // In the cache only once the index lists it (`settleListings`).
                awaitingListing.append(result)
            } else {
                record(result)
            }
        case .failure(var failure):
            failure.httpStatus = job.httpStatus
            retryOrRecord(job.entry, failure, retryAfter: nil, scheduler: scheduler)
        }
    }

    /// A final failure: reported, and its URL blacklisted with `blacklist` (FailurePolicy).
    func recordFailure(_ entry: PendingEntry, _ failure: Failure, blacklist listed: StateStore.BlacklistEntry?) {
        var result = EntryResult(entry, outcome: .failed)
        result.fileName = entry.cacheFileName(in: location.format)
        result.httpStatus = failure.httpStatus
        result.attempts = entry.attempts
        result.duration = entry.firstStarted > 0 ? Monotonic.now() - entry.firstStarted : 0
        result.failure = failure
        if let listed {
            blacklistMayHoldEntries = true
            writeState { state throws(StateError) in try state.blacklist(listed) }
        }
        record(result)
    }

    /// A transfer abandoned because the run was interrupted: it did not finish.
    func recordInterrupted(_ entry: PendingEntry) {
        var result = EntryResult(entry, outcome: .interrupted)
        result.fileName = entry.cacheFileName(in: location.format)
        result.attempts = entry.attempts
        result.duration = entry.firstStarted > 0 ? Monotonic.now() - entry.firstStarted : 0
        result.failure = Failure(.interrupted, "the run was interrupted while this URL was downloading")
        record(result)
    }

    /// A URL the run stopped before it started (interrupted, or a run-level problem): every line
    /// gets its entry.
    func recordNotStarted(_ entry: PendingEntry) {
        var result = EntryResult(entry, outcome: .notStarted)
        result.fileName = entry.cacheFileName(in: location.format)
        result.attempts = entry.attempts
        record(result)
    }

    func record(_ result: EntryResult) {
        totals.add(result)
        report?.add(result)
        observer?.prefetchDidFinish(result, source: sources[result.input])
    }

    func emitProgress(inFlight: Int, final: Bool = false) {
        let now = Monotonic.now()
        guard final || now - lastProgress >= 0.1 else { return }
        lastProgress = now
        observer?.prefetchProgress(
            PrefetchProgress(
                total: total, totals: totals, elapsed: now - runStarted, inFlight: inFlight, isFinal: final))
    }

    // MARK: - State

    /// Opens the state database before any download; a damaged one is rebuilt with a warning.
    func openState() throws(PrefetchError) {
        do {
            let opened = try StateStore(path: statePath, busyTimeout: configuration.lockTimeout)
            if let aside = opened.movedAside {
                observer?.prefetchWarning(
                    "the state database \(statePath) was damaged: moved aside to \(aside) and rebuilt (cache files are untouched)"
                )
            }
            try opened.checkWritable()
            blacklistMayHoldEntries = try opened.hasBlacklistEntries()
            blacklistCheckedAt = Monotonic.now()
            state = opened
        } catch {
            throw .state(error)
        }
    }

    /// Queues a state write for the writer thread (`StateWriter`: grouped into transactions,
    /// committed every 500 writes or second); a failure stops new downloads.
    func writeState(_ body: @escaping StateWriter.Write) {
        guard halts.state == nil else { return }
        stateWriter?.submit(body)
    }

    /// Reads the state after every write queued so far; nil without a state database.
    func readState<T>(_ body: (StateStore) -> T?) -> T? {
        if let stateWriter { return stateWriter.read(body) }
        return state.flatMap(body)
    }

    /// Takes note of a write that failed on the writer thread (once).
    func checkStateWriter() {
        guard halts.state == nil, let failure = stateWriter?.failure else { return }
        note(.stateFailure(failure))
    }

    /// Logs the run, then lets the writer commit everything and stop.
    func finishState(interrupted: Bool) {
        guard let stateWriter else { return }
        let run = StateStore.RunRecord(
            command: "prefetch", startedAt: startedAt.secondsSinceEpoch, finishedAt: Timestamp.now().secondsSinceEpoch,
            totals: StateStore.RunRecord.Totals(
                lines: totals.lines, downloaded: totals.downloaded, cached: totals.cached,
                revalidated: totals.revalidated, failed: totals.failed, blacklisted: totals.blacklisted,
                invalid: totals.invalid),
            interrupted: interrupted)
        writeState { state throws(StateError) in try state.recordRun(run) }
        let failure = stateWriter.finish()
        self.stateWriter = nil
        if let failure { note(.stateFailure(failure)) }
    }

    func stateRecord(_ key: String) -> StateStore.Record? {
        readState { state in try? state.record(forKey: key) }
    }

    /// Whether the blacklist may hold entries now. An empty blacklist is looked at again at most
    /// once a second: another process (a prefetch beside this one) may blacklist URLs meanwhile.
    func blacklistMayHoldEntriesNow() -> Bool {
        if blacklistMayHoldEntries { return true }
        let now = Monotonic.now()
        guard now - blacklistCheckedAt >= 1 else { return false }
        blacklistCheckedAt = now
        blacklistMayHoldEntries = readState { state in (try? state.hasBlacklistEntries()) ?? true } ?? false
        return blacklistMayHoldEntries
    }

    /// The blacklist entry in force for `url` (the blacklist is by URL, not key), if any.
    func activeBlacklistEntry(url: String) -> StateStore.BlacklistEntry? {
        let now = Timestamp.now().secondsSinceEpoch
        let ttl = configuration.blacklistTTL
        let client = clientFingerprint
        return readState { state in try? state.blacklistEntry(forURL: url, now: now, ttl: ttl, client: client) }
    }
}
