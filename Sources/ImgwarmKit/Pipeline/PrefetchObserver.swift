extension PrefetchJob {
    /// Receives what a prefetch does, on the thread that runs it: the CLI prints from here.
    public protocol Observer: AnyObject {
        /// One list line reached its final state.
        func prefetchDidFinish(_ result: EntryResult, source: ListSource)
        /// Called about ten times a second while the run goes on, and once at the end.
        func prefetchProgress(_ progress: PrefetchJob.Progress)
        /// Something the user should know that is not a per-URL failure.
        func prefetchWarning(_ message: String)
        /// A run-level problem stopped new downloads: the run ends once those under way finish, and
        /// fails (`PrefetchJob.Summary` says why again). Called once per problem.
        func prefetchHalted(_ reason: PrefetchJob.Halt)
        /// A host's limit moved by half or more since it was last told (`--concurrency auto`).
        /// Nothing by default.
        func prefetchHostLimitChanged(_ change: HostLimitChange)
        /// A host is unavailable for the rest of the run (`HostBreaker`): its URLs end as
        /// `host-unavailable` without requests. Called once per host; nothing by default.
        func prefetchHostUnavailable(_ host: String, reason: String)
    }

    /// Why a prefetch stopped starting downloads before its lists were done.
    public enum Halt: Sendable, CustomStringConvertible {
        /// A write found the disk full (or the quota used up).
        case diskFull
        /// The cache lock could not be had in time.
        case lockTimeout(CacheLock.Timeout)
        /// The state database stopped being usable.
        case stateFailure(StateError)
        /// The cache's index (a journal) could not be written: the entries stored are not listed.
        case indexFailure(CacheIndexError)
        /// The proxy could not be reached, or a request did not go through it (the proxy's name,
        /// never its password, and what happened): every request would fare the same way.
        case proxy(String)

        public var description: String {
            switch self {
            case .proxy(let message): return message
            case .diskFull: return "the disk is full"
            case .indexFailure(let error): return error.description
            case .lockTimeout(let timeout): return timeout.description
            case .stateFailure(let error): return error.description
            }
        }
    }

    /// A snapshot of a running prefetch, for progress lines.
    public struct Progress: Sendable {
        /// URL lines found in the lists (known once they are read).
        public var total: Int
        public var totals: PrefetchTotals
        /// Seconds since downloads started.
        public var elapsed: Double
        public var inFlight: Int
        public var isFinal: Bool
    }
}

extension PrefetchJob.Observer {
    public func prefetchHostLimitChanged(_ change: HostLimitChange) {}
    public func prefetchHostUnavailable(_ host: String, reason: String) {}
}

extension PrefetchJob {
    /// Tells the observer what the slot policy saw.
    func announce(_ event: SlotPolicy.Event) {
        switch event {
        case .limitChanged(let change):
            observer?.prefetchHostLimitChanged(change)
        case .unavailable(let host, let reason):
            observer?.prefetchHostUnavailable(host, reason: SlotPolicy.unavailableMessage(host, reason: reason))
        }
    }
}
