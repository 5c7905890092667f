import ImgwarmSystem

/// What the job records itself, beyond the `PrefetchRecorder`: what follows from a result in the
/// state database (stored, blacklisted).
extension PrefetchJob {
    /// Records what validation found; a transient failure (a body cut short under a matching
    /// Content-Length is `truncated`) goes through the same retry decision as a failed transfer.
    func record(validated outcome: ValidationPool.Validated, scheduler: Scheduler) {
        let job = outcome.job
        switch outcome.result {
        case .success(let image):
            let now = Timestamp.now().secondsSinceEpoch
            let stored = StateStore.Record(
                key: job.entry.key, fileName: job.fileName, size: job.count, format: image.format.rawValue,
                width: image.width, height: image.height, etag: job.headers.etag,
                lastModified: job.headers.lastModified,
                fetchedAt: now, validatedAt: now)
            let unblacklist = state.blacklistMayHoldEntries ? job.entry.url : nil
            state.write { state throws(StateError) in
                try state.recordStored(stored)
                if let unblacklist { try state.unblacklist(unblacklist) }
            }
            recorder.recordDownloaded(job, image, index: storeIndex)
        case .failure(var failure):
            failure.httpStatus = job.entry.source.reportedStatus(job.httpStatus)
            retryOrRecord(job.entry, failure, retryAfter: nil, scheduler: scheduler)
        }
    }

    /// A final failure: reported, and its URL blacklisted with `blacklist` (FailurePolicy).
    func recordFailure(_ entry: PendingEntry, _ failure: Failure, blacklist listed: StateStore.BlacklistEntry?) {
        if let listed {
            state.noteBlacklisted()
            state.write { state throws(StateError) in try state.blacklist(listed) }
        }
        recorder.recordFailed(entry, failure)
    }
}
