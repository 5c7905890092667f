import Curl

extension PrefetchJob {
    /// Makes the collaborators the download loop drives, once the cache store exists: the
    /// network (`Downloader`) and validation (`ValidationPool`). Every run uses `.real`; tests
    /// give scripted stand-ins, so that the job's rules run without a server.
    ///
    /// Threads: the caller of `PrefetchJob.run` (the CLI's main thread) reads the lists
    /// (`PrefetchIngest`), then runs the download loop (or the `PrefetchDryRun`), and owns the
    /// `Scheduler`, the `Downloader` these parts make, with its libcurl multi handle, every
    /// `Transfer`, the `PrefetchStore`'s lookups and touches and the `PrefetchRecorder` (the report
    /// and the observer's calls: the CLI prints from this thread). The others are the
    /// `ValidationPool`'s workers, the `PrefetchReadAhead`'s two readers and the `StateWriter`;
    /// each says what it owns.
    struct Parts {
        /// The network for a run of these settings: at most the slot policy's transfers at once
        /// (one without a policy), large bodies spilled into the cache store's temporary folder.
        var downloader:
            (_ configuration: Configuration, _ policy: SlotPolicy?, _ cache: CacheStore) throws(CurlError) ->
                any TransferDriving
        /// Validation storing into the cache store; `notify` (the network's `wakeup`) is called
        /// after each result.
        var validation:
            (_ configuration: Configuration, _ cache: CacheStore, _ notify: @escaping @Sendable () -> Void) ->
                any BodyValidating

        /// libcurl's downloader and the pool of validation threads.
        static var real: Parts {
            Parts(
                downloader: { configuration, policy, cache throws(CurlError) in
                    // A format that caches whole responses asks as the app's client does.
                    var fetch = configuration.fetch
                    fetch.profile = (cache.location.format as? any RequestProfileFormat)?.requestProfile
                    return try Downloader(
                        configuration: fetch, transfers: policy?.maxInFlight ?? 1,
                        connectionsPerHost: policy?.connectionsPerHost ?? 0, spillFolder: cache.temporaryFolder,
                        spillPrefix: cache.temporaryPrefix)
                },
                validation: { configuration, cache, notify in
                    ValidationPool(
                        workers: configuration.validationThreads, store: cache, configuration: configuration.validation,
                        lockTimeout: configuration.lockTimeout, maxDecodedBytes: configuration.fetch.maxBytes,
                        shared: configuration.fanOut?.shared, notify: notify)
                })
        }
    }
}
