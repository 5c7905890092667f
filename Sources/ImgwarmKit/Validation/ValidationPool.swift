import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Validates and stores downloaded bodies on worker threads, off the downloader's thread.
///
/// Each worker owns an `ImageValidator` (a MagickWand). A valid image is written to the cache
/// atomically; anything else is discarded. Results go to `results`, and `notify` (the
/// downloader's wakeup) is called after each one.
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
        var etag: String?
        var lastModified: String?
        var duration: Double
    }

    struct Outcome: Sendable {
        var job: Job
        var result: Result<ValidatedImage, Failure>
        /// True when the store failed because the disk is full.
        var diskFull = false
    }

    let results = WorkQueue<Outcome>()
    private let jobs = WorkQueue<Job>()
    private let store: CacheStore
    private let configuration: ValidationConfiguration
    private let notify: @Sendable () -> Void
    private let finished = NSCondition()
    private var running = 0

    init(workers: Int, store: CacheStore, configuration: ValidationConfiguration, notify: @escaping @Sendable () -> Void) {
        self.store = store
        self.configuration = configuration
        self.notify = notify
        ImageValidator.startMagick(configuration)
        running = workers
        for index in 0..<workers {
            let thread = Thread { [self] in work() }
            thread.name = "imgwarm-validate-\(index)"
            thread.start()
        }
    }

    func submit(_ job: Job) { jobs.push(job) }

    /// Stops the workers after the queued jobs and waits for them.
    func shutdown() {
        jobs.close()
        finished.lock()
        while running > 0 { finished.wait() }
        finished.unlock()
    }

    private func work() {
        let validator = ImageValidator(configuration: configuration)
        while let job = jobs.pop() {
            results.push(process(job, validator))
            notify()
        }
        finished.lock()
        running -= 1
        finished.broadcast()
        finished.unlock()
    }

    private func process(_ job: Job, _ validator: ImageValidator) -> Outcome {
        if let spillName = job.spillName {
            let path = store.temporaryFolder + "/" + spillName
            let result = MappedFile.withContents(of: path) { validator.validate($0) }
                ?? .failure(Failure(.writeFailed, "cannot read back the downloaded file"))
            guard case .success = result else {
                store.discard(temporaryName: spillName)
                return Outcome(job: job, result: result)
            }
            do {
                try store.moveIntoPlace(temporaryName: spillName, name: job.fileName)
            } catch {
                return Outcome(job: job, result: .failure(Failure(.writeFailed, error.description)), diskFull: error.isDiskFull)
            }
            return Outcome(job: job, result: result)
        }
        return job.bytes.withUnsafeBytes { bytes in
            let result = validator.validate(bytes)
            guard case .success = result else { return Outcome(job: job, result: result) }
            do throws(StoreFailure) {
                try store.store(bytes, as: job.fileName)
            } catch {
                return Outcome(job: job, result: .failure(Failure(.writeFailed, error.description)), diskFull: error.isDiskFull)
            }
            return Outcome(job: job, result: result)
        }
    }
}

/// Read-only memory maps of whole files.
enum MappedFile {
    /// Calls `body` with the file's bytes; nil when the file cannot be mapped.
    static func withContents<T>(of path: String, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size > 0 else { return nil }
        let size = Int(info.st_size)
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else { return nil }
        defer { munmap(address, size) }
        return body(UnsafeRawBufferPointer(start: address, count: size))
    }
}
