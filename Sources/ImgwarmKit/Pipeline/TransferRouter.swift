import Curl
import ImgwarmSystem

/// The network the download loop drives when a list may name local bodies: an entry whose
/// `EntrySource` is not requested (a JSON Lines `"file"`, a HAR's recorded body) goes to
/// `LocalBodies`, which completes it at once with no request; every other entry goes to the
/// real network. A list mixing both runs as one.
final class TransferRouter: TransferDriving {
    let network: any TransferDriving
    let local: LocalBodies

    init(network: any TransferDriving, local: LocalBodies) {
        self.network = network
        self.local = local
    }

    /// `network` beside the local bodies of a run of `fetch` storing into `cache` (entries naming
    /// a JSON Lines "file", or a HAR's recorded body in `recorded` under `--offline`, where every
    /// entry names one): they are read, not requested.
    /// `shared`: several formats in one run, the bodies downloaded for the others (`CopiedBody`).
    convenience init(
        network: any TransferDriving, fetch: FetchConfiguration, cache: CacheStore, recorded: HARBodies?,
        shared: (any KeptBodyReading)? = nil
    ) {
        self.init(
            network: network,
            local: LocalBodies(
                maxBytes: fetch.maxBytes, memoryLimit: min(fetch.memoryBodyLimit, LocalBodies.memoryLimit),
                spillFolder: cache.temporaryFolder, spillPrefix: cache.temporaryPrefix, recorded: recorded,
                shared: shared))
    }

    func start(_ entry: PendingEntry, validators: Downloader.Validators?) throws(CurlError) {
        if entry.source.isRequested {
            try network.start(entry, validators: validators)
        } else {
            local.start(entry)
        }
    }

    var inFlight: Int { network.inFlight + local.inFlight }
    var readsWaiting: Int { local.inFlight }
    var resumeDue: Double? { network.resumeDue }
    func perform() { network.perform() }
    func completions() -> [Downloader.Finished] { local.completions() + network.completions() }
    func multiplexingShown() -> [String] { network.multiplexingShown() }
    func abortAll() -> [PendingEntry] { local.abortAll() + network.abortAll() }

    /// Does not wait while local bodies are ready: their completions are due now.
    func poll(milliseconds: Int, stop: FileDescriptor?) {
        network.poll(milliseconds: local.inFlight > 0 ? 0 : milliseconds, stop: stop)
    }

    func wakeup() { network.wakeup() }
    var waker: @Sendable () -> Void { network.waker }
}
