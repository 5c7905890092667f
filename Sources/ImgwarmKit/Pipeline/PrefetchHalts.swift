extension PrefetchJob {
    /// The run-level problems a run met, and the signal that interrupted it: noted where they
    /// happen (`note(_:)` tells the observer once per problem), read where new downloads would
    /// start, and turned into the summary in one place (`summarize(into:)`).
    struct Halts {
        private(set) var diskFull = false
        private(set) var state: StateError?
        private(set) var lock: CacheLock.Timeout?
        private(set) var index: CacheIndexError?
        private(set) var proxy: String?
        /// Set once a signal stopped the run.
        private(set) var interrupted = false
        /// The first signal that interrupted the run (0 when none did, or when it is not known).
        private(set) var signal: Int32 = 0

        /// True when something stops new downloads: a problem, or an interruption.
        var stopNewDownloads: Bool {
            diskFull || interrupted || state != nil || lock != nil || proxy != nil
        }

        /// Notes `halt`; true when it is the first of its kind (the observer is told then).
        mutating func note(_ halt: PrefetchJob.Halt) -> Bool {
            switch halt {
            case .diskFull:
                guard !diskFull else { return false }
                diskFull = true
            case .lockTimeout(let timeout):
                guard lock == nil else { return false }
                lock = timeout
            case .stateFailure(let error):
                guard state == nil else { return false }
                state = error
            case .indexFailure(let error):
                guard index == nil else { return false }
                index = error
            case .proxy(let message):
                guard proxy == nil else { return false }
                proxy = message
            }
            return true
        }

        /// Notes that `signal` stopped the run; the first signal known is the one reported.
        mutating func interrupt(signal: Int32) {
            interrupted = true
            if self.signal == 0 { self.signal = signal }
        }

        /// The one place the halts become the summary's fields.
        func summarize(into summary: inout PrefetchJob.Summary) {
            summary.diskFull = diskFull
            summary.stateFailure = state
            summary.lockFailure = lock
            summary.indexFailure = index
            summary.proxyFailure = proxy
            summary.interrupted = interrupted
            summary.signal = signal
        }
    }

    /// Notes `halt` and tells the observer, once per problem.
    func note(_ halt: PrefetchJob.Halt) {
        if halts.note(halt) { observer?.prefetchHalted(halt) }
    }
}
