import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for tests and the demo: one thread per connection,
/// keep-alive, and handlers that can misbehave on purpose (stall, trickle, reset, lie).
///
/// It counts and records every request, so tests can assert that a URL was (or was not)
/// requested and with which headers. `stop()` closes every socket and waits for its threads.
public final class LoopbackServer: @unchecked Sendable {
    public typealias Handler = @Sendable (Request, Responder) -> Void

    /// Finds the handler for a request; nil answers 404.
    public let router: @Sendable (Request) -> Handler?

    public private(set) var port: UInt16 = 0
    private var listener: Int32 = -1
    private var listener6: Int32 = -1
    private let lock = NSLock()
    private let connections = ConnectionSet()
    private var log: [Request] = []
    private var threads = 0
    private let allDone = NSCondition()
    private var stopped = false

    public init(router: @escaping @Sendable (Request) -> Handler?) {
        self.router = router
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Binds a free port on 127.0.0.1 (or `port`) and starts accepting connections.
    @discardableResult
    public func start(port requested: UInt16 = 0) throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = requested.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 512) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: actual.sin_port)
        listener = fd
        spawn { [self] in acceptLoop(fd) }
        return port
    }

    /// Also listens on [::1] with the same port; false when this machine has no IPv6 loopback.
    @discardableResult
    public func listenIPv6() -> Bool {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        address.sin6_addr = in6addr_loopback
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            return false
        }
        listener6 = fd
        spawn { [self] in acceptLoop(fd) }
        return true
    }

    /// Closes the listener and every connection, and waits (bounded) for the threads to end.
    public func stop() {
        lock.lock()
        if stopped {
            lock.unlock()
            return
        }
        stopped = true
        lock.unlock()
        // Only shut down here: each descriptor is closed by the thread that uses it (the accept
        // loop its listener, a connection's responder its socket), so no thread ever calls
        // accept or shutdown on a number the kernel has since given to another test's socket.
        shutdown(listener, Int32(SHUT_RDWR))
        if listener6 >= 0 { shutdown(listener6, Int32(SHUT_RDWR)) }
        connections.shutDownAll()
        allDone.lock()
        let deadline = Date().addingTimeInterval(10)
        while threads > 0 && allDone.wait(until: deadline) {}
        allDone.unlock()
    }

    deinit { stop() }

    public var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    // MARK: Request log

    /// Every request received so far, in arrival order.
    public var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    /// How many requests asked for `path` (without query).
    public func requestCount(_ path: String) -> Int {
        requests.filter { $0.path == path }.count
    }

    /// Connections open now, and the most open at once since the start or `resetPeakConnections()`.
    public var openConnections: Int { connections.count }
    public var peakConnections: Int { connections.peak }
    public func resetPeakConnections() { connections.resetPeak() }

    public func clearLog() {
        lock.lock()
        log.removeAll()
        lock.unlock()
    }

    // MARK: Internals

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        allDone.lock()
        threads += 1
        allDone.unlock()
        let thread = Thread { [self] in
            body()
            allDone.lock()
            threads -= 1
            allDone.broadcast()
            allDone.unlock()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func acceptLoop(_ fd: Int32) {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE {
                    usleep(10_000)
                    continue
                }
                close(fd)  // shut down by stop(): this loop owns the listener's descriptor
                return
            }
            guard connections.insert(client) else {
                close(client)
                continue
            }
            var yes: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            spawn { [self] in serve(client) }
        }
    }

    private func serve(_ fd: Int32) {
        let responder = Responder(fd: fd, server: self, connections: connections)
        var buffer = RequestBuffer(fd: fd)
        while !responder.isClosed, let request = buffer.next() {
            lock.lock()
            log.append(request)
            lock.unlock()
            responder.keepAlive = request.keepAlive
            if let handler = router(request) {
                handler(request, responder)
            } else {
                responder.respond(status: 404, headers: ["Content-Type": "text/plain"], body: Array("not found\n".utf8))
            }
            if !responder.keepAlive { break }
        }
        responder.close()
    }
}

/// The open connections of a server. A descriptor leaves the set and is closed under one lock,
/// and `shutDownAll` runs under it too, so it never shuts down a number already closed (and
/// perhaps reused by another socket of the process).
final class ConnectionSet: @unchecked Sendable {
    private let lock = NSLock()
    private var open: Set<Int32> = []
    private var stopped = false
    private var peakOpen = 0

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return open.count
    }

    var peak: Int {
        lock.lock()
        defer { lock.unlock() }
        return peakOpen
    }

    func resetPeak() {
        lock.lock()
        peakOpen = open.count
        lock.unlock()
    }

    /// Adds `fd`; false when the server has stopped (the caller closes it).
    func insert(_ fd: Int32) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return false }
        open.insert(fd)
        peakOpen = max(peakOpen, open.count)
        return true
    }

    /// Closes `fd` and forgets it.
    func close(_ fd: Int32) {
        lock.lock()
        defer { lock.unlock() }
        open.remove(fd)
        Glibc.close(fd)
    }

    /// Shuts every open connection down (their threads then close them); no new ones are added.
    func shutDownAll() {
        lock.lock()
        defer { lock.unlock() }
        stopped = true
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }
}

/// One parsed request.
public struct Request: Sendable {
    public var method: String
    /// The request target as sent (origin-form `/a?b`, or absolute-form through a proxy).
    public var target: String
    public var path: String
    public var query: [String: String]
    /// Header names are lower-cased.
    public var headers: [(name: String, value: String)]
    public var keepAlive: Bool
    /// True when the target was in absolute form (the client used this server as a proxy).
    public var viaProxy: Bool

    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name == lower }?.value
    }
}

/// Reads requests off a connection.
struct RequestBuffer {
    let fd: Int32
    var pending: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    mutating func next() -> Request? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            if let end = find(terminator) {
                let head = String(decoding: pending[0..<end], as: UTF8.self)
                pending.removeFirst(end + 4)
                guard let request = parse(head) else { return nil }
                if let length = request.header("content-length").flatMap(Int.init), length > 0 {
                    while pending.count < length {
                        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                        if count <= 0 { return nil }
                        pending.append(contentsOf: chunk[0..<count])
                    }
                    pending.removeFirst(length)
                }
                return request
            }
            if pending.count > 1 << 20 { return nil }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            pending.append(contentsOf: chunk[0..<count])
        }
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard pending.count >= needle.count else { return nil }
        for index in 0...(pending.count - needle.count) where pending[index] == needle[0] {
            if Array(pending[index..<(index + needle.count)]) == needle { return index }
        }
        return nil
    }

    private func parse(_ head: String) -> Request? {
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count == 3 else { return nil }
        var target = String(parts[1])
        var viaProxy = false
        if target.hasPrefix("http://") || target.hasPrefix("https://") {
            viaProxy = true
            if let url = URL(string: target) {
                target = url.path.isEmpty ? "/" : url.path
                if let query = url.query { target += "?" + query }
            }
        }
        var path = target
        var query: [String: String] = [:]
        if let question = target.firstIndex(of: "?") {
            path = String(target[..<question])
            for pair in target[target.index(after: question)...].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                query[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
            }
        }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let connection = headers.first { $0.0 == "connection" }?.1.lowercased()
        let keepAlive = parts[2] == "HTTP/1.1" ? connection != "close" : connection == "keep-alive"
        return Request(
            method: String(parts[0]), target: String(parts[1]), path: path, query: query,
            headers: headers.map { (name: $0.0, value: $0.1) }, keepAlive: keepAlive, viaProxy: viaProxy)
    }
}
