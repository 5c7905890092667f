import Curl
import Dispatch
import Foundation
import ImgwarmSystem
import TestSupport

@testable import ImgwarmKit

/// The network as a script, for `PrefetchJob.Parts`: each URL's answers in order (the last one
/// repeats), each given the first time the loop asks for completions after its start; `.hang`
/// holds a transfer until `abortAll`. Records every request. Used on the loop's thread only,
/// but for `wakeup` (a semaphore).
final class ScriptedNetwork: TransferDriving, @unchecked Sendable {
    enum Answer {
        case image([UInt8], etag: String? = nil)
        case status(Int, retryAfter: String? = nil)
        case connectFailed
        case notModified
        /// Writing the body to its temporary file found the disk full.
        case diskFull
        /// The proxy could not be reached: the run stops.
        case proxyDown
        case hang
    }

    private var script: [String: [Answer]]
    private(set) var requests: [(url: String, validators: Downloader.Validators?)] = []
    private var running: [(entry: PendingEntry, answer: Answer)] = []
    private let wake = DispatchSemaphore(value: 0)
    /// Called on each poll: a test stops the run from here.
    var onPoll: (ScriptedNetwork) -> Void = { _ in }
    /// Called on each start and each completion, with the URL (in order with what the
    /// validation stand-in notes).
    var onStart: (String) -> Void = { _ in }
    var onFinish: (String) -> Void = { _ in }

    init(_ script: [String: [Answer]]) {
        self.script = script
    }

    func start(_ entry: PendingEntry, validators: Downloader.Validators?) throws(CurlError) {
        requests.append((entry.url, validators))
        onStart(entry.url)
        var answers = script[entry.url] ?? [.status(404)]
        let answer = answers.count > 1 ? answers.removeFirst() : answers[0]
        script[entry.url] = answers
        running.append((entry, answer))
    }

    /// How many requests went to `url`.
    func requests(_ url: String) -> Int { requests.filter { $0.url == url }.count }

    var inFlight: Int { running.count }
    var resumeDue: Double? { nil }
    func perform() {}

    func completions() -> [Downloader.Finished] {
        var finished: [Downloader.Finished] = []
        var held: [(entry: PendingEntry, answer: Answer)] = []
        for transfer in running {
            if case .hang = transfer.answer {
                held.append(transfer)
            } else {
                finished.append(Self.finished(transfer.entry, transfer.answer))
                onFinish(transfer.entry.url)
            }
        }
        running = held
        return finished
    }

    func abortAll() -> [PendingEntry] {
        defer { running = [] }
        return running.map(\.entry)
    }

    func poll(milliseconds: Int, stop: FileDescriptor?) {
        onPoll(self)
        _ = wake.wait(timeout: .now() + .milliseconds(max(0, milliseconds)))
    }

    func wakeup() { wake.signal() }
    var waker: @Sendable () -> Void { { [wake] in wake.signal() } }

    /// What the real downloader reports for such an answer.
    static func finished(_ entry: PendingEntry, _ answer: Answer) -> Downloader.Finished {
        var headers = ResponseHeaders()
        let result: Result<Downloader.Body, Failure>
        var status: Int?
        var (diskFull, proxyHalt) = (false, String?.none)
        switch answer {
        case .image(let bytes, let etag):
            headers.etag = etag
            status = 200
            result = .success(Downloader.Body(bytes: bytes, spillName: nil, count: bytes.count, status: 200))
        case .status(let code, let retryAfter):
            headers.retryAfter = retryAfter
            status = code
            result = .failure(Failure(.httpStatus, "the server answered \(code)", httpStatus: code))
        case .connectFailed:
            result = .failure(Failure(.connectFailed, "Failed to connect to example.com port 443: Connection refused"))
        case .notModified:
            status = 304
            result = .success(Downloader.Body(bytes: [], spillName: nil, count: 0, status: 304))
        case .diskFull:
            status = 200
            diskFull = true
            result = .failure(Failure(.writeFailed, "cannot write the download: No space left on device"))
        case .proxyDown:
            proxyHalt = "the proxy http://proxy.example:3128 cannot be reached (Connection refused)"
            result = .failure(Failure(.proxyFailed, proxyHalt ?? ""))
        case .hang:
            preconditionFailure("a hanging transfer does not finish")
        }
        return Downloader.Finished(
            entry: entry, result: result, headers: headers, httpStatus: status, duration: 0.001,
            startedAt: Monotonic.now(), diskFull: diskFull, proxyHalt: proxyHalt)
    }
}

/// Validation as a script: every body meets what `answer` says (a full disk, a lock held too
/// long), at once, on the loop's thread; nothing is stored.
final class ScriptedValidation: BodyValidating, @unchecked Sendable {
    let results = WorkQueue<ValidationPool.Validated>()
    let answer: (ValidationPool.Job) -> ValidationPool.Validated

    init(_ answer: @escaping (ValidationPool.Job) -> ValidationPool.Validated) {
        self.answer = answer
    }

    func submit(contentsOf batch: [ValidationPool.Job]) {
        for job in batch { results.push(answer(job)) }
    }

    func shutdown() {}
}

/// A signal number another thread may set: a `StopSource` the test trips.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int32 = 0

    var signal: Int32 {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func trip(_ signal: Int32) {
        lock.lock()
        value = signal
        lock.unlock()
    }
}
