/// The download loop: one thread drives libcurl, starts URLs by priority, routes finished
/// transfers to validation, retries transient failures after their back-off, and records.
extension PrefetchJob {
    /// `recordedBodies`: `--offline`'s HAR bodies (`LocalBodies`); `ahead`: read while the lists were.
    func download(_ scheduler: Scheduler, recordedBodies: HARBodies?, ahead: PrefetchReadAhead?) throws(Error) {
        let warn: (String) -> Void = { self.observer?.prefetchWarning($0) }
        let store: PrefetchStore
        do {
            store = try .open(location: location, lockTimeout: configuration.lockTimeout, ahead: ahead, warn: warn)
        } catch {
            throw .cacheFolder(error)
        }
        storeIndex = store.index
        do {
            try state.open(busyTimeout: configuration.lockTimeout, checked: ahead?.checkedState, warn: warn)
        } catch {
            throw .state(error)
        }
        let downloader: any TransferDriving
        do {
            downloader = TransferRouter(
                network: try parts.downloader(configuration, scheduler.policy, store.cache),
                fetch: configuration.fetch, cache: store.cache, recorded: recordedBodies,
                shared: configuration.fanOut?.shared)
        } catch {
            throw .curl(error)
        }
        let pool = parts.validation(configuration, store.cache, downloader.waker)
        defer { pool.shutdown() }

        state.startWriting()
        var validating = 0
        while true {
            for outcome in pool.results.drain() {
                validating -= 1
                if outcome.diskFull { note(.diskFull) }
                if let timeout = outcome.lockTimeout { note(.lockTimeout(timeout)) }
                // The slot is free again whatever happens next: stored, failed, or retried.
                record(validated: outcome, scheduler: scheduler)
            }
            recorder.settleListings(storeIndex, final: false)
            let signal = configuration.stop.signal
            if signal != 0 && !halts.interrupted {
                halts.interrupt(signal: signal)
                configuration.stop.drain()
                // Running transfers are abandoned (their temporary files removed); bodies already
                // downloaded finish validating, so nothing complete is thrown away.
                for entry in downloader.abortAll() { recorder.recordInterrupted(entry) }
            }
            // No new transfers after a run-level problem or an interruption.
            let halted = halts.stopNewDownloads
            if !halted {
                startTransfers(scheduler: scheduler, downloader: downloader, store: store, validating: validating)
            }
            if downloader.inFlight == 0 && validating == 0 && (scheduler.isEmpty || halted) { break }
            downloader.perform()
            for event in scheduler.multiplexingShown(downloader.multiplexingShown(), now: Monotonic.now()) {
                announce(event)
            }
            var batch: [ValidationPool.Job] = []
            for finished in downloader.completions() {
                for event in scheduler.finished(finished, now: Monotonic.now()) { announce(event) }
                if finished.diskFull { note(.diskFull) }
                if let proxy = finished.proxyHalt { note(.proxy(proxy)) }
                if let job = handle(finished, store: store, scheduler: scheduler) { batch.append(job) }
            }
            validating += batch.count
            pool.submit(contentsOf: batch)
            if let failure = state.writerFailure() { note(.stateFailure(failure)) }
            recorder.emitProgress(inFlight: downloader.inFlight)
            var timeout = 250
            let now = Monotonic.now()
            for due in [scheduler.nextDue(now: now), downloader.resumeDue] {
                if let due { timeout = max(0, min(timeout, Int((due - now) * 1000) + 1)) }
            }
            downloader.poll(milliseconds: timeout, stop: halts.interrupted ? nil : configuration.stop.descriptor)
        }
        // Whatever was still waiting when the run had to stop never started.
        scheduler.drain(recorder.recordNotStarted)
        // Every store is done before the index gets its last lines (the deferred shutdown then
        // has nothing left to do).
        pool.shutdown()
        if let halt = store.finish(maxSize: configuration.maxSize, warn: { observer?.prefetchWarning($0) }) {
            note(halt)
        }
        recorder.settleListings(storeIndex, final: true)
    }

    /// Starts transfers while the scheduler's `SlotPolicy` has room (bodies waiting for
    /// validation count too: they are held in memory). Hits met on the way are touched under one
    /// hold of the shared cache lock.
    private func startTransfers(
        scheduler: Scheduler, downloader: any TransferDriving, store: PrefetchStore, validating: Int
    ) {
        defer { store.endTouches() }
        let now = Monotonic.now()
        // A hit of a busy host is recorded at once; it takes no slot (`--refresh` revalidates
        // hits, so there every URL needs one).
        let refresh = configuration.refresh
        while halts.lock == nil, downloader.readsWaiting < LocalBodies.waitingLimit,
            let entry = scheduler.next(
                now: now, validating: validating,
                needsTransfer: { entry in
                    if !entry.source.usesHostSlot { return false }  // read, not requested
                    if case .hit = store.lookup(&entry).lookup { return refresh }
                    return true
                })
        {
            if start(entry, downloader: downloader, store: store, policy: scheduler.policy), entry.source.usesHostSlot {
                scheduler.started(entry, now: now)
            }
        }
    }

    /// Acts on the entry's `EntryStart`: a hit is touched and recorded (or revalidated with
    /// `--refresh`), a blacklisted or blocked entry or one of an unavailable host is recorded,
    /// anything else starts a transfer (or, with several formats, stores another format's copy:
    /// `FormatFanOut`). True when a transfer that takes a slot of its host started.
    @discardableResult
    func start(
        _ entry: PendingEntry, downloader: any TransferStarting, store: PrefetchStore, policy: SlotPolicy?
    ) -> Bool {
        var entry = entry
        let (name, lookup, damage) = store.lookup(&entry)
        // The app would not decode a damaged hit and downloads it again: so does the run.
        if let damage { recorder.noteDamagedHit(name, damage) }
        // A miss another cache holds is its copy (`FormatFanOut`): not requested, so no blacklist.
        if case .miss = lookup, let copy = configuration.fanOut?.copy(of: entry, into: location) { entry.take(copy) }
        let decision = EntryStart.decide(
            lookup, name: name, firstAttempt: entry.attempts == 0, rules: startRules,
            record: { state.record(forKey: entry.key) },
            blacklisted: {
                entry.source.stoppedByBlacklist && state.blacklistMayHoldEntriesNow()
                    ? state.activeBlacklistEntry(url: entry.url) : nil
            },
            hostUnavailable: { entry.source.stoppedByUnavailableHost ? policy?.unavailableFailure(of: entry) : nil })
        var validators: Downloader.Validators?
        switch decision {
        case .cached(let size):
            do {
                try store.touchHit(name)
            } catch {
                note(.lockTimeout(error))
                recorder.recordNotStarted(entry)
                return false
            }
            var result = EntryResult(entry, outcome: .cached)
            result.bytes = size
            recorder.record(result)
            return false
        case .hostUnavailable(let failure):
            recordFailure(entry, failure, blacklist: nil)
            return false
        case .blocked, .blacklisted:
            if let result = decision.result(of: entry, fileName: name) { recorder.record(result) }
            return false
        case .revalidate(let stored):
            entry.isRefresh = true
            validators = stored
        case .fetch:
            break
        }
        entry.attempts += 1
        if entry.firstStarted == 0 { entry.firstStarted = Monotonic.now() }
        do {
            try downloader.start(entry, validators: validators)
            return entry.source.usesHostSlot
        } catch {
            var result = EntryResult(entry, outcome: .failed)
            result.attempts = entry.attempts
            result.failure = Failure(.transferFailed, error.message)
            recorder.record(result)
            return false
        }
    }

    /// Routes a finished transfer; returns the validation job when there is a body to check.
    func handle(_ finished: Downloader.Finished, store: PrefetchStore, scheduler: Scheduler)
        -> ValidationPool.Job?
    {
        let entry = finished.entry
        let name = entry.fileName
        switch finished.result {
        case .success(let body) where body.status == 304:
            guard entry.isRefresh else {
                retryOrRecord(
                    entry,
                    Failure(
                        .httpStatus, "the server answered 304 to a request that was not conditional", httpStatus: 304),
                    retryAfter: nil, scheduler: scheduler)
                return nil
            }
            let response = CacheIndexResponse(
                key: entry.key, url: entry.url, headers: finished.headers, receivedAt: .now(), length: 0)
            var result = EntryResult(entry, outcome: .revalidated)
            result.bytes = store.touchRevalidated(name, by: response)
            result.httpStatus = 304
            result.attempts = entry.attempts
            result.duration = Monotonic.now() - entry.firstStarted
            let (key, etag, lastModified) = (entry.key, finished.headers.etag, finished.headers.lastModified)
            let now = Timestamp.now().secondsSinceEpoch
            state.write { state throws(StateError) in
                try state.recordRevalidated(key: key, etag: etag, lastModified: lastModified, at: now)
            }
            recorder.record(result)
            return nil
        case .success(let body):
            return ValidationPool.Job(
                entry: entry, fileName: name, bytes: body.bytes, spillName: body.spillName, count: body.count,
                httpStatus: body.status, headers: finished.headers, receivedAt: .now(), duration: finished.duration)
        case .failure(var failure):
            if failure.httpStatus == nil { failure.httpStatus = finished.httpStatus }
            retryOrRecord(entry, failure, retryAfter: finished.headers.retryAfter, scheduler: scheduler)
            return nil
        }
    }

    /// The one retry decision for every failure, of the transfer or of the validation: a
    /// transient failure with tries left goes back to the scheduler after its back-off (or the
    /// server's `Retry-After`); anything else is final, reported and, when permanent, blacklisted.
    func retryOrRecord(_ entry: PendingEntry, _ failure: Failure, retryAfter: String?, scheduler: Scheduler) {
        let source = entry.source  // a body read, not requested, fails for good (`EntrySource`)
        if source.fallsBackToNetwork { return scheduler.retry(entry.droppingCopy(), at: Monotonic.now()) }
        guard source.isRetried else { return recordFailure(entry, failure, blacklist: nil) }
        let policy = FailurePolicy(retry: configuration.retry, clientFingerprint: state.clientFingerprint)
        switch policy.verdict(
            on: failure, url: entry.url, attempts: entry.attempts, retryAfter: retryAfter,
            now: Timestamp.now().secondsSinceEpoch)
        {
        case .retry(let delay):
            if let failure = scheduler.policy?.unavailableFailure(of: entry) {
                recordFailure(entry, failure, blacklist: nil)
            } else {
                scheduler.retry(entry, at: Monotonic.now() + delay)
            }
        case .final(let failure, let blacklist):
            recordFailure(entry, failure, blacklist: source.failuresBlacklistTheURL ? blacklist : nil)
        }
    }
}
