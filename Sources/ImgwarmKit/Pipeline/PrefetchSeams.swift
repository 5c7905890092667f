import Curl
import ImgwarmSystem

/// What starts a transfer for the job (`Downloader`): a seam, so that the start rules can be
/// checked with an in-memory stand-in and no server.
protocol TransferStarting: AnyObject {
    /// Starts `entry`'s request, conditional when `validators` holds any.
    func start(_ entry: PendingEntry, validators: Downloader.Validators?) throws(CurlError)
}

/// Everything the download loop asks of the network (`Downloader`): starting transfers, letting
/// them run, what finished, waiting, and abandoning them. A seam, so that the loop's rules
/// (retries, the blacklist, interruptions, halts) are checked with a scripted stand-in and no
/// server.
protocol TransferDriving: TransferStarting {
    /// The transfers started and not yet returned by `completions` or `abortAll`.
    var inFlight: Int { get }
    /// Of those, the bodies read, not requested (`LocalBodies`), held in memory until the next
    /// `completions`: the download loop starts no more past `LocalBodies.waitingLimit`.
    var readsWaiting: Int { get }
    /// When transfers paused by `--limit-rate` may go on (monotonic seconds), if any wait.
    var resumeDue: Double? { get }
    /// Lets the transfers run as far as they can now.
    func perform()
    /// Every transfer that finished since the last call.
    func completions() -> [Downloader.Finished]
    /// The hosts whose connection agreed on HTTP/2 in its handshake since the last call.
    func multiplexingShown() -> [String]
    /// Abandons every transfer in flight (an interruption); returns their entries.
    func abortAll() -> [PendingEntry]
    /// Waits for network activity, `wakeup()`, `milliseconds`, or `stop` readable.
    func poll(milliseconds: Int, stop: FileDescriptor?)
    /// Wakes a `poll` in progress; the one call allowed from any thread.
    func wakeup()
    /// `wakeup` as a value other threads may hold and call (the validation threads, when a
    /// result is ready): `Sendable` by the types it captures, so no unchecked box carries the
    /// driver across threads.
    var waker: @Sendable () -> Void { get }
}

extension TransferDriving {
    /// A stand-in network has no handshakes.
    func multiplexingShown() -> [String] { [] }
}

/// What the download loop asks of validation (`ValidationPool`): checking and storing bodies off
/// its thread, their results, and the end. A seam, so that a stand-in can answer what a store
/// met (a full disk, a lock held too long) without bringing it about.
protocol BodyValidating: AnyObject {
    /// What validation found, one per submitted job; the loop drains it when it wakes.
    var results: WorkQueue<ValidationPool.Validated> { get }
    /// Queues the bodies that finished together.
    func submit(contentsOf batch: [ValidationPool.Job])
    /// Finishes the queued jobs and stops; a second call has nothing left to do.
    func shutdown()
}

extension Downloader: TransferDriving {}

extension ValidationPool: BodyValidating {}

extension TransferDriving {
    /// A network alone reads no body: none waits.
    var readsWaiting: Int { 0 }
}
