extension SlotPolicy.Completion {
    /// What a finished transfer tells its host's `SlotPolicy`: a response and its status (with
    /// the latency of a 2xx or 304), a connection that failed or timed out, or nothing about load.
    init(_ finished: Downloader.Finished) {
        var kind = Kind.other
        var latency: Double?
        switch finished.result {
        case .success(let body):
            kind = .response(status: body.status)
            latency = finished.latency
        case .failure(let failure):
            switch failure.reason {
            case .connectFailed, .dns, .timeout, .connectionLost:
                kind = .connectionFailure(message: failure.message, answered: finished.httpStatus != nil)
            default:
                if let status = finished.httpStatus { kind = .response(status: status) }
            }
        }
        self.init(
            kind: kind, latency: latency, startedAt: finished.startedAt, multiplexed: finished.multiplexed,
            freshConnection: finished.freshConnection, multiplexedConnections: finished.multiplexedConnections)
    }
}

extension SlotPolicy {
    /// The failure `entry` ends with, without a request, when its host is unavailable.
    func unavailableFailure(of entry: PendingEntry) -> Failure? {
        let host = HostSlots.key(of: entry)
        guard let trip = unavailability(host) else { return nil }
        return Failure(.hostUnavailable, SlotPolicy.unavailableMessage(host, reason: trip.reason))
    }

    static func unavailableMessage(_ host: String, reason: String) -> String {
        "\(host) is unavailable: \(reason); its URLs are tried again by the next run"
    }
}

extension Scheduler {
    /// What a finished transfer tells its host's `SlotPolicy`; a body read, not requested, tells
    /// it nothing (it took none of the host's slots: `EntrySource.countsForHost`).
    func finished(_ finished: Downloader.Finished, now: Double) -> [SlotPolicy.Event] {
        guard finished.entry.source.countsForHost else { return [] }
        return self.finished(finished.entry, SlotPolicy.Completion(finished), now: now)
    }

    /// The hosts whose connection agreed on HTTP/2 in its handshake (`Downloader.multiplexingShown`).
    func multiplexingShown(_ hosts: [String], now: Double) -> [SlotPolicy.Event] {
        hosts.flatMap { multiplexingShown($0, now: now) }
    }
}
