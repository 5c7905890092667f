import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a response on one connection; handlers may also misbehave through it.
public final class Responder: @unchecked Sendable {
    let fd: Int32
    weak var server: LoopbackServer?
    private let connections: ConnectionSet
    /// Set to false to close the connection after this response.
    public var keepAlive = true
    public private(set) var isClosed = false

    init(fd: Int32, server: LoopbackServer, connections: ConnectionSet) {
        self.fd = fd
        self.server = server
        self.connections = connections
    }

    /// Sends raw bytes; false when the peer is gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends a status line and headers (adding Content-Length unless told not to).
    @discardableResult
    public func sendHead(status: Int, headers: [String: String], contentLength: Int?) -> Bool {
        var head = "HTTP/1.1 \(status) \(Responder.reason(status))\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if let contentLength { head += "Content-Length: \(contentLength)\r\n" }
        if !keepAlive { head += "Connection: close\r\n" }
        head += "\r\n"
        return send(head)
    }

    /// A complete response.
    public func respond(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        if sendHead(status: status, headers: headers, contentLength: body.count) { send(body) }
    }

    public func respond(status: Int, headers: [String: String] = [:], body: Data) {
        respond(status: status, headers: headers, body: [UInt8](body))
    }

    /// Sleeps `seconds`, waking early when the server stops; false if it stopped.
    @discardableResult
    public func pause(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if server?.isStopped ?? true { return false }
            usleep(useconds_t(min(0.02, max(0, deadline.timeIntervalSinceNow)) * 1_000_000))
        }
        return true
    }

    /// Says nothing until the client gives up (its socket closes) or the server stops, then
    /// closes: a server that accepted the request and hangs.
    public func hang() {
        while pause(0.05) {
            var probe: UInt8 = 0
            if recv(fd, &probe, 1, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK)) == 0 { break }
        }
        close()
    }

    /// Closes the connection normally.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        keepAlive = false
        connections.close(fd)
    }

    /// Aborts the connection with a TCP reset.
    public func reset() {
        guard !isClosed else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close()
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 408: return "Request Timeout"
        case 410: return "Gone"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status"
        }
    }
}
