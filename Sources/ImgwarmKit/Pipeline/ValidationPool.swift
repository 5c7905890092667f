import Curl
import ImgwarmSystem

/// Validates and stores downloaded bodies on worker threads, off the downloader's thread.
///
/// Each worker owns an `ImageValidator` (a MagickWand). A valid image is written to the cache
/// atomically; anything else is discarded. Results go to `results`, and `notify` (the
/// downloader's wakeup) is called after each one.
///
/// The workers are threads named `imgwarm-valid-N`, one per core and at most 4 by default
/// (`PrefetchJob.Configuration.validationThreads`). Each has its own `ImageValidator` and its own
/// descriptor on the cache lock, and writes finished files into the cache. ImageMagick reads one
/// image at a time (`Magick.oneReadAtATime`): its resource accounting is process-wide, and a
/// streamed decode must see what it reserved to give it back. The download loop and the workers
/// meet in two `WorkQueue`s (jobs in, outcomes out); a worker wakes the loop's `curl_multi_poll`
/// with `CurlMulti.wakeup`, the one libcurl call allowed from another thread.
final class ValidationPool: @unchecked Sendable {
    /// One body to check and store.
    struct Job: Sendable {
        var entry: PendingEntry
        var fileName: String
        var bytes: [UInt8]
        /// The body's temporary file (a name in the store's temporary folder) when it was large.
        var spillName: String?
        var count: Int
        var httpStatus: Int
        /// The final response's head, for the state database's validators and the format's index.
        var headers: ResponseHeaders
        var receivedAt: Timestamp
        var duration: Double
    }

    struct Validated: Sendable {
        var job: Job
        var result: Result<ValidatedImage, Failure>
        /// True when the store failed because the disk is full.
        var diskFull = false
        /// Set when the cache lock could not be had in time (a clean held it too long).
        var lockTimeout: CacheLock.Timeout?
    }

    let results = WorkQueue<Validated>()
    private let jobs = WorkQueue<Job>()
    private let store: CacheStore
    private let configuration: ValidationConfiguration
    private let notify: @Sendable () -> Void
    private let finished = Condition()
    private var running = 0
    private let location: CacheLocation
    private let lockTimeout: Double
    /// `--max-bytes`: the most a body stored encoded may decode to (`validate`).
    private let maxDecodedBytes: Int
    /// Several formats in one run: where each downloaded body is kept for the other formats.
    private let shared: SharedBodies?

    init(
        workers: Int, store: CacheStore, configuration: ValidationConfiguration, lockTimeout: Double,
        maxDecodedBytes: Int = FetchConfiguration().maxBytes, shared: SharedBodies? = nil,
        notify: @escaping @Sendable () -> Void
    ) {
        self.store = store
        self.shared = shared
        self.maxDecodedBytes = maxDecodedBytes
        self.configuration = configuration
        self.notify = notify
        location = store.location
        self.lockTimeout = lockTimeout
        running = workers
        for index in 0..<workers {
            startThread(name: "imgwarm-valid-\(index)") { [self] in work() }
        }
    }

    func submit(_ job: Job) { jobs.push(job) }

    /// Queues the bodies that finished together, waking the workers once.
    func submit(contentsOf batch: [Job]) { jobs.push(contentsOf: batch) }

    /// Stops the workers after the queued jobs and waits for them.
    func shutdown() {
        jobs.close()
        finished.lock()
        while running > 0 { finished.wait() }
        finished.unlock()
    }

    private func work() {
        let validator = ImageValidator(configuration: configuration)
        // Each worker has its own descriptor on the lock file (flock locks belong to it).
        let lock = try? CacheLock(location: location)
        let holder = LockHolder(lock: lock, timeout: lockTimeout)
        while let job = jobs.pop(waiting: { holder.release() }) {
            // The downloader drains every result when it wakes: wake it for the first one only.
            if results.push(process(job, validator, holder)) { notify() }
            holder.releaseIfHeldTooLong()
        }
        holder.release()
        finished.lock()
        running -= 1
        finished.broadcast()
        finished.unlock()
    }

    private func process(_ job: Job, _ validator: ImageValidator, _ holder: LockHolder) -> Validated {
        validateAndStore(job, validator) { write throws(StoreFailure) in
            do throws(CacheLock.Timeout) {
                try holder.hold()
            } catch {
                throw StoreFailure(code: SystemError.timedOut.code, step: "take the cache lock", lockTimeout: error)
            }
            try write()
        }
    }

    /// Holds a worker's shared cache lock across a short run of files (two `flock` calls per
    /// file add up), giving it back when the worker waits for work or after 20 ms, so a clean
    /// waiting for the exclusive lock is never kept long.
    private final class LockHolder {
        let lock: CacheLock?
        let timeout: Double
        private var since = 0.0
        private var held = false

        init(lock: CacheLock?, timeout: Double) {
            self.lock = lock
            self.timeout = timeout
        }

        func hold() throws(CacheLock.Timeout) {
            guard !held, let lock else { return }
            try lock.lockShared(timeout: timeout)
            held = true
            since = Monotonic.now()
        }

        func releaseIfHeldTooLong() {
            if held && Monotonic.now() - since > 0.02 { release() }
        }

        func release() {
            guard held else { return }
            lock?.unlock()
            held = false
        }
    }

    /// Validates a body. One stored as it came off the network (a `RequestProfile`'s, whose head
    /// is kept) with `Content-Encoding: gzip` is checked as the app's client decodes it, decoded
    /// as a stream that stops past `maxDecodedBytes` (`--max-bytes`, which counts decoded bytes
    /// whatever the format stores: `too-large`), so no more than that many decoded bytes are
    /// held; the stored bytes stay encoded.
    static func validate(
        _ bytes: UnsafeRawBufferPointer, headers: ResponseHeaders, maxDecodedBytes: Int, with validator: ImageValidator
    ) -> Result<ValidatedImage, Failure> {
        let codings = headers.head?.values(of: "Content-Encoding").map { $0.lowercased() } ?? []
        guard codings.contains("gzip") else { return validator.validate(bytes) }
        switch ContentDecoding.withGunzipped(bytes, limit: maxDecodedBytes, { validator.validate($0) }) {
        case .success(let result): return result
        case .failure(.tooLarge):
            return .failure(
                Failure(
                    .tooLarge,
                    "the gzip body decodes to more than \(Setting.maxBytes) (\(maxDecodedBytes) bytes): decoding stopped there"
                ))
        case .failure(.invalid):
            return .failure(Failure(.decodingFailed, "the gzip body does not decode (not a complete gzip stream)"))
        }
    }

    /// Keeps a validated download for the run's other formats (`SharedBodies`), decoded when it
    /// is stored gzip-encoded (OkHttp's profile): the others store the image, not the wire's bytes.
    private func keep(_ job: Job, image: ValidatedImage, in shared: SharedBodies) {
        let format = location.format.name
        let keep = { (bytes: UnsafeRawBufferPointer) in
            let codings = job.headers.head?.values(of: "Content-Encoding").map { $0.lowercased() } ?? []
            guard codings.contains("gzip") else {
                return shared.keep(
                    bytes, url: job.entry.url, headers: job.headers, decoded: false, format: format, image: image)
            }
            _ = ContentDecoding.withGunzipped(bytes, limit: self.maxDecodedBytes) { decoded in
                shared.keep(
                    decoded, url: job.entry.url, headers: job.headers, decoded: true, format: format, image: image)
            }
        }
        if let spillName = job.spillName {
            _ = MappedFile.withContents(of: store.temporaryFolder + "/" + spillName) { keep($0) }
        } else {
            job.bytes.withUnsafeBytes { keep($0) }
        }
    }

    /// Stores `job` as another name of the file a format whose time rules agree stored for the
    /// same download (`PendingEntry.sharedFile`, `CacheStore.store(linking:)`): true when linked.
    /// Only a regular file of the body's length is linked; anything else (another file system, a
    /// limit of links, a file gone or changed) is written as a copy instead.
    private func link(
        _ job: Job, name: String, response: CacheIndexResponse,
        locked: (() throws(StoreFailure) -> Void) throws(StoreFailure) -> Void
    ) -> Bool {
        guard let path = job.entry.sharedFile, let slash = path.lastIndex(of: "/"),
            let folder = try? FileDescriptor.openFolder(String(path[..<slash]))
        else { return false }
        defer { folder.close() }
        guard
            case .opened(let file, let status)? = try? folder.openRegularFile(
                String(path[path.index(after: slash)...]), keepingAccessTime: true)
        else { return false }
        defer { file.close() }
        guard status.size == UInt64(job.count) else { return false }
        do {
            try store.store(linking: file, as: name, response: response, publish: locked)
            return true
        } catch {
            return false
        }
    }

    private func validateAndStore(
        _ job: Job, _ validator: ImageValidator,
        locked: (() throws(StoreFailure) -> Void) throws(StoreFailure) -> Void
    ) -> Validated {
        var job = job
        let result: Result<ValidatedImage, Failure>
        if let index = job.entry.copy?.shared, let image = shared?.image(index) {
            // This run's download, validated when it came (`SharedBodies`): validated once.
            result = .success(image)
        } else if let spillName = job.spillName {
            result =
                MappedFile.withContents(of: store.temporaryFolder + "/" + spillName) {
                    ValidationPool.validate(
                        $0, headers: job.headers, maxDecodedBytes: maxDecodedBytes, with: validator)
                }
                ?? .failure(Failure(.writeFailed, "cannot read back the downloaded file"))
        } else {
            result = job.bytes.withUnsafeBytes {
                ValidationPool.validate($0, headers: job.headers, maxDecodedBytes: maxDecodedBytes, with: validator)
            }
        }
        guard case .success = result else {
            if let spillName = job.spillName { store.discard(temporaryName: spillName) }
            return Validated(job: job, result: result)
        }
        if let shared, job.entry.source.isRequested, case .success(let image) = result {
            keep(job, image: image, in: shared)
        }
        // What the format's index keeps of the response; it may name the file (flutter_cache_manager).
        let response = CacheIndexResponse(
            key: job.entry.key, url: job.entry.url, headers: job.headers, receivedAt: job.receivedAt, length: job.count)
        if let index = store.index as? any EntryNamingIndex {
            job.fileName = index.storeName(for: job.fileName, response: response)
        }
        let name = job.fileName
        if job.entry.sharedFile != nil, link(job, name: name, response: response, locked: locked) {
            if let spillName = job.spillName { store.discard(temporaryName: spillName) }
            return Validated(job: job, result: result)
        }
        defer {
            // A twin of a later format may share this file (`FormatFanOut.mayShareFiles`).
            if let shared, job.entry.source.isRequested || job.entry.source.fallsBackToNetwork,
                !store.storesEncodedBodies
            {
                shared.noteStored(
                    job.entry.url, format: location.format.name, at: CacheLocation.join(store.location.folder, name))
            }
        }
        do throws(StoreFailure) {
            if let spillName = job.spillName {
                do throws(StoreFailure) {
                    try locked { () throws(StoreFailure) in
                        try store.moveIntoPlace(
                            temporaryName: spillName, name: name, response: response, times: job.entry.copiedTimes)
                    }
                } catch {
                    store.discard(temporaryName: spillName)
                    throw error
                }
            } else {
                try job.bytes.withUnsafeBytes { bytes in
                    Result { () throws(StoreFailure) in
                        try store.store(
                            bytes, as: name, response: response,
                            copied: job.entry.copiedTimes.map { CacheStore.CopiedEntry(times: $0) }, publish: locked)
                    }
                }.get()
            }
        } catch {
            return Validated(
                job: job, result: .failure(Failure(.writeFailed, error.description)), diskFull: error.isDiskFull,
                lockTimeout: error.lockTimeout)
        }
        return Validated(job: job, result: result)
    }
}
