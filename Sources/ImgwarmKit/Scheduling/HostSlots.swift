/// The entries that wait for a host with no room (`SlotPolicy` says which have room), so that one
/// slow, paced or limited host cannot hold up the others: the next URL of another host goes
/// first.
///
/// A host is a URL's scheme and authority (`https://cdn.example.com:443`, lower-cased, without
/// user information).
final class HostSlots {
    private struct Host {
        var waiting: [PendingEntry] = []
        var waitingStart = 0
    }

    /// Entries pulled from the lists while their host was full, at most `waitingLimit`: beyond
    /// that, nothing more is read until a host frees a slot (memory stays bounded).
    static let waitingLimit = 1024
    private var hosts: [String: Host] = [:]
    /// Hosts with waiting entries, in the order they first had to wait.
    private(set) var hostsWaiting: [String] = []
    private(set) var waitingCount = 0

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

    /// The host of an entry the scheduler has handed out (it set `entry.host`).
    static func key(of entry: PendingEntry) -> String {
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
    func nextReady(hasRoom: (String) -> Bool) -> PendingEntry? {
        guard waitingCount > 0 else { return nil }
        for (index, key) in hostsWaiting.enumerated() where hasRoom(key) {
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
            hosts[key] = nil
            hostsWaiting.remove(at: index)
        } else {
            hosts[key] = host
        }
        waitingCount -= 1
        return entry
    }

    /// Any waiting entry, whatever its host's room (the run stops: they will not start).
    func takeAnyWaiting() -> PendingEntry? {
        hostsWaiting.isEmpty ? nil : takeWaiting(at: 0)
    }
}
