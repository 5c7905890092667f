import ImgwarmSystem

/// What the job records itself, beyond the `PrefetchRecorder`: what follows from a result in the
/// state database (stored, blacklisted) and the run's log line.
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
            let unblacklist = state.blacklistMayHoldEntries ? job.entry.url : nil
            state.write { state throws(StateError) in
                try state.recordStored(stored)
                if let unblacklist { try state.unblacklist(unblacklist) }
            }
            // In the cache only once the index lists it.
            recorder.recordStored(result, index: storeIndex)
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
            state.noteBlacklisted()
            state.write { state throws(StateError) in try state.blacklist(listed) }
        }
        recorder.record(result)
    }

    /// Logs the run, then lets the state's writer commit everything and stop.
    func finishState() {
        let totals = recorder.totals
        let run = StateStore.RunRecord(
            command: "prefetch", startedAt: startedAt.secondsSinceEpoch, finishedAt: Timestamp.now().secondsSinceEpoch,
            totals: StateStore.RunRecord.Totals(
                lines: totals.lines, downloaded: totals.downloaded, cached: totals.cached,
                revalidated: totals.revalidated, failed: totals.failed, blacklisted: totals.blacklisted,
                invalid: totals.invalid),
            interrupted: halts.interrupted)
        if let failure = state.finish(run) { note(.stateFailure(failure)) }
    }
}
