import Curl

extension PrefetchJob {
    /// What a finished run reports to its caller.
    public struct Summary: Sendable {
        public var totals: PrefetchTotals
        public var duration: Double
        /// Set when the run stopped early because the disk was full.
        public var diskFull = false
        /// Set when a signal stopped the run.
        public var interrupted = false
        /// The signal that interrupted the run, when one did.
        public var signal: Int32 = 0
        /// Set when the signal came while the lists were being read: where reading stopped (the
        /// lines after it were not read, and are in no count).
        public var listCut: ListCut?
        /// Cache hits whose bytes the app would not decode (cut short, empty of an image, another
        /// kind of file): counted as misses and requested again (`CacheStore.damage`).
        public var damagedHits = 0
        /// Entries stored in this run that the app's client will not serve without the network
        /// (OkHttp: stored headers its `CacheStrategy` finds stale; `--freshness` changes that).
        public var storedStale = 0
        /// Set when the state database stopped being usable during the run.
        public var stateFailure: StateError?
        /// Set when the cache lock could not be had in time.
        public var lockFailure: CacheLock.Timeout?
        /// Set when the cache's index (a journal) could not be written at the end of the run.
        public var indexFailure: CacheIndexError?
        /// Set when the proxy could not be reached, or a request did not go through it: no new
        /// download started after (the URLs left
        /// end as not started, the ones under way as `proxy-failed`).
        public var proxyFailure: String?
        /// Set when no download could start after the lists were read: the cache folder, the state
        /// database (another process's lock held past `--lock-timeout`) or libcurl could not be set
        /// up. Every URL is then counted as not started.
        public var startFailure: PrefetchJob.Error?
        /// What the run saw of each host it requested from (`SlotPolicy.figures`), by host.
        public var hosts: [HostFigures] = []
        /// The lists, each with the format it was read as (`har` for a HAR told by its content,
        /// whatever its name); the job's sources when the lists were never opened.
        public var inputs: [ListSource] = []

        /// The run-level problem that ended the run, in words (the report's `error`); nil when none did.
        public var failureMessage: String? {
            if let startFailure { return startFailure.description }
            if let stateFailure { return stateFailure.description }
            if let lockFailure { return lockFailure.description }
            if let indexFailure { return indexFailure.description }
            if diskFull { return "the disk is full: no new downloads started" }
            if let proxyFailure { return "\(proxyFailure): no new downloads started" }
            return nil
        }
    }

    /// A run-level failure: nothing useful can go on (a list cannot be read, or the cache cannot be used).
    public enum Error: Swift.Error, CustomStringConvertible {
        /// A list cannot be read (`code` is the errno value).
        case unreadableInput(path: String, code: Int32)
        /// The cache folder or its private folder cannot be used.
        case cacheFolder(CacheStoreError)
        /// A scratch file for the pending lines cannot be created or written in this folder.
        case spoolFolder(String, code: Int32)
        /// The state database cannot be used.
        case state(StateError)
        /// libcurl cannot be set up.
        case curl(CurlError)

        public var description: String {
            switch self {
            case .unreadableInput(let path, let code): return ListIngest.ReadError(path: path, code: code).description
            case .cacheFolder(let error): return error.description
            case .spoolFolder(let folder, let code):
                return EntrySpool.SpoolError(folder: folder, code: code).description
            case .state(let error): return error.description
            case .curl(let error): return "cannot start libcurl: \(error.message)"
            }
        }
    }
}
