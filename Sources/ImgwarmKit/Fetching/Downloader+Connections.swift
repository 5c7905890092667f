extension Downloader {
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
