/// `--concurrency auto`: how many transfers each host may have in flight, and the entries that
/// wait for a host with none free, so that one slow host cannot take every slot from the others.
///
/// A host is a URL's scheme and authority (`https://cdn.example.com:443`, lower-cased, without
/// user information). It may have `perHost` transfers in flight (one connection each over
/// HTTP/1.1) until one of its responses comes over HTTP/2; then `streams` (libcurl multiplexes
/// them on few connections and honours the server's own stream limit).
final class HostSlots {
    private struct Host {
        var inFlight = 0
        var multiplexes = false
        var waiting: [PendingEntry] = []
        var waitingStart = 0
    }

    let perHost: Int
    let streams: Int
    /// Entries pulled from the lists while their host was full, at most `waitingLimit`: beyond
    /// that, nothing more is read until a host frees a slot (memory stays bounded).
    static let waitingLimit = 1024
    private var hosts: [String: Host] = [:]
    /// Hosts with waiting entries, in the order they first had to wait.
    private var hostsWaiting: [String] = []
    private(set) var waitingCount = 0

    init(perHost: Int, streams: Int) {
        self.perHost = max(1, perHost)
        self.streams = max(self.perHost, streams)
    }

    /// The host part of `url`: scheme and authority, lower-cased, user information dropped.
    static func key(_ url: String) -> String {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return url.lowercased() }
        var start = bytes.index(after: colon)
        if bytes[start...].starts(with: "//".utf8) { start = bytes.index(start, offsetBy: 2) }
        var end = start
        var hostStart = start
        while end < bytes.endIndex {
            let byte = bytes[end]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { hostStart = bytes.index(after: end) }
            end = bytes.index(after: end)
        }
        return (String(url[..<colon]) + "://" + String(url[hostStart..<end])).lowercased()
    }

    private func limit(_ host: Host) -> Int { host.multiplexes ? streams : perHost }

    func hasRoom(_ key: String) -> Bool {
        guard let host = hosts[key] else { return true }
        return host.inFlight < limit(host)
    }

    /// The host of an entry the scheduler has handed out (it set `entry.host`).
    private static func key(of entry: PendingEntry) -> String {
        entry.host.isEmpty ? key(entry.url) : entry.host
    }

    /// Keeps `entry` until its host has room.
    func wait(_ entry: PendingEntry) {
        let key = HostSlots.key(of: entry)
        if hosts[key]?.waiting.isEmpty ?? true { hostsWaiting.append(key) }
        hosts[key, default: Host()].waiting.append(entry)
        waitingCount += 1
    }

    /// The first waiting entry whose host now has room.
    func nextReady() -> PendingEntry? {
        guard waitingCount > 0 else { return nil }
        for (index, key) in hostsWaiting.enumerated() {
            guard let host = hosts[key], host.inFlight < limit(host) else { continue }
            return takeWaiting(at: index)
        }
        return nil
    }

    /// The first waiting entry of the host `hostsWaiting[index]`.
    private func takeWaiting(at index: Int) -> PendingEntry {
        let key = hostsWaiting[index]
        var host = hosts[key]!
        let entry = host.waiting[host.waitingStart]
        host.waitingStart += 1
        if host.waitingStart == host.waiting.count {
            host.waiting = []
            host.waitingStart = 0
            hostsWaiting.remove(at: index)
        }
        hosts[key] = host
        waitingCount -= 1
        return entry
    }

    /// Any waiting entry, whatever its host's room (the run stops: they will not start).
    func takeAnyWaiting() -> PendingEntry? {
        hostsWaiting.isEmpty ? nil : takeWaiting(at: 0)
    }

    /// A transfer of `entry` started.
    func started(_ entry: PendingEntry) {
        hosts[HostSlots.key(of: entry), default: Host()].inFlight += 1
    }

    /// A transfer of `entry` ended; `multiplexed` when its response came over HTTP/2 or later.
    func finished(_ entry: PendingEntry, multiplexed: Bool) {
        let key = HostSlots.key(of: entry)
        guard var host = hosts[key] else { return }
        host.inFlight = max(0, host.inFlight - 1)
        if multiplexed { host.multiplexes = true }
        if host.inFlight == 0 && host.waiting.isEmpty && !host.multiplexes {
            hosts[key] = nil
        } else {
            hosts[key] = host
        }
    }
}
