extension Downloader {
    /// The hosts whose connection agreed on HTTP/2 in its handshake since the last call, before
    /// any answer of theirs.
    func multiplexingShown() -> [String] { multiplexingNotices.drain() }

    /// libcurl closed the connection `name` (`CurlConnectionWatch`): if it carried HTTP/2
    /// answers, its host has one connection fewer for its streams.
    func connectionClosed(_ name: String) {
        guard let host = multiplexedConnections.removeValue(forKey: name) else { return }
        multiplexedPerHost[host] = (multiplexedPerHost[host] ?? 1) - 1
        if multiplexedPerHost[host] == 0 { multiplexedPerHost[host] = nil }
    }

    /// The connections to `transfer`'s host open now that carried an HTTP/2 answer, the one it
    /// used included when its answer came over HTTP/2 from that host (not a redirect's).
    func multiplexedConnectionCount(_ transfer: Transfer) -> Int {
        let host = HostSlots.key(of: transfer.entry)
        if transfer.headers.multiplexed, let name = transfer.easy.connectionName,
            multiplexedConnections[name] == nil,
            transfer.easy.effectiveURL.map({ HostSlots.key($0) == host }) ?? false
        {
            multiplexedConnections[name] = host
            multiplexedPerHost[host, default: 0] += 1
        }
        return multiplexedPerHost[host] ?? 0
    }
}

/// The hosts whose connection agreed on HTTP/2 in its TLS handshake (ALPN), heard from the
/// prerequest callback once the connection is ready: a round trip before the first answer says
/// `HTTP/2`. At 40 ms that round trip held a host at 6 transfers while `--concurrency 200` sent 100
/// behind the handshake (libcurl's PIPEWAIT).
final class MultiplexingNotices {
    private var known: Set<String> = []
    private var fresh: [String] = []

    func knows(_ host: String) -> Bool { known.contains(host) }

    func heard(_ host: String) {
        // Bounded as `SlotPolicy` bounds its hosts: forgetting only means hearing a host again,
        // which `SlotPolicy.multiplexingShown` takes as already known.
        if known.count >= SlotPolicy.hostLimit { known.removeAll() }
        if known.insert(host).inserted { fresh.append(host) }
    }

    /// The hosts heard since the last call.
    func drain() -> [String] {
        defer { fresh.removeAll() }
        return fresh
    }
}
