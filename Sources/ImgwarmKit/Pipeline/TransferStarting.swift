import Curl

/// What starts a transfer for the job (`Downloader`): a seam, so that the start rules can be
/// checked with an in-memory stand-in and no server.
protocol TransferStarting: AnyObject {
    /// Starts `entry`'s request, conditional when `validators` holds any.
    func start(_ entry: PendingEntry, validators: Downloader.Validators?) throws(CurlError)
}

extension Downloader: TransferStarting {}
