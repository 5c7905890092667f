import ImgwarmSystem

/// `prefetch --dry-run` past the reading of the lists: every entry gets what the run would do
/// with it (`EntryStart`, as the run decides it), from the cache folder, its index and the state
/// database as they are; nothing is requested, locked or written. An entry another cache would
/// fill (`--from-cache`, another format's hit: `FormatFanOut`) is `would-copy`.
struct PrefetchDryRun {
    let location: CacheLocation
    let rules: EntryStart.Rules
    let state: PrefetchState
    let recorder: PrefetchRecorder
    let configuration: PrefetchJob.Configuration
    var stop: StopSource { configuration.stop }

    /// Classifies every entry `scheduler` holds, with `index` as the library would read it;
    /// returns the signal that stopped it (what it did not classify is then not started), or 0.
    func classify(_ scheduler: Scheduler, index: (any CacheIndex)?) -> Int32 {
        let folder = try? FileDescriptor.openFolder(location.folder)
        defer { folder?.close() }
        while let entry = scheduler.next(now: .infinity) {
            let signal = stop.signal
            if signal != 0 {
                recorder.recordNotStarted(entry)
                scheduler.drain(recorder.recordNotStarted)
                return signal
            }
            let name = (try? location.entryName(forKey: entry.key, index: index)) ?? ""
            let lookup = folder.map { self.lookup(name, in: $0, index: index) } ?? .miss
            // The dry run has no slot policy: no host is unavailable.
            let decision = EntryStart.decide(
                lookup, name: name, firstAttempt: true, rules: rules, record: { state.record(forKey: entry.key) },
                blacklisted: { entry.source.stoppedByBlacklist ? state.activeBlacklistEntry(url: entry.url) : nil },
                hostUnavailable: { nil })
            var result = decision.result(of: entry, fileName: name) ?? EntryResult(entry, outcome: .wouldFetch)
            if result.outcome == .wouldFetch, let copy = configuration.fanOut?.copy(of: entry, into: location) {
                (result.outcome, result.copiedFrom) = (.wouldCopy, copy.format)
            } else if result.outcome == .wouldFetch, let failure = entry.source.failureBeforeReading {
                // --offline: an entry with nothing to store ends as the run would end it.
                result.outcome = Outcome(finalFailure: failure)
                result.failure = failure
            }
            if case .hit(let size) = lookup {
                // Cached; or revalidated with `--refresh`, which a dry run reports as a hit, as
                // it did before `EntryStart`.
                result.outcome = .cached
                result.bytes = size
            }
            result.fileName = name
            recorder.record(result)
        }
        return 0
    }

    /// The index as the library would read it (nil for a plain-files cache), and why the library
    /// would not read it, if it would not: the dry run then fails as the real run would (every key
    /// is then a miss).
    static func readIndex(of location: CacheLocation) -> (index: (any CacheIndex)?, failure: CacheIndexError?) {
        guard let index = location.makeIndex() else { return (nil, nil) }
        do {
            try index.load()
        } catch {
            return (index, error)
        }
        return (index, nil)
    }

    /// What `CacheStore.lookup` would find, without a store: a damaged hit is a miss.
    private func lookup(_ name: String, in folder: FileDescriptor, index: (any CacheIndex)?) -> CacheStore.Lookup {
        guard let info = try? folder.status(of: name) else { return .miss }
        switch location.format.read(info, now: .now()) {
        case .hit(let bytes) where index?.check(name) == nil:
            if let damage = CacheStore.damage(
                of: name, size: bytes, in: folder, storesEncoded: location.format is any RequestProfileFormat)
            {
                recorder.noteDamagedHit(name, damage)
                return .miss
            }
            return .hit(size: bytes)
        case .miss(.folder): return .blocked
        case .hit, .miss: return .miss
        }
    }
}
