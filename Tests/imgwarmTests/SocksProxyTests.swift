import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A SOCKS5 proxy's refusal is the proxy's; its word that the host behind it cannot be reached
/// is the host's (issue 31).
@Suite struct SocksProxyTests {
    /// A SOCKS5 server on 127.0.0.1 that never connects anywhere: a request for port 1 is refused
    /// as not allowed (reply 2), any other as refused by the host (reply 5).
    final class RefusingSocksServer: @unchecked Sendable {
        let listener: Int32
        let port: UInt16
        private let lock = NSLock()
        private var handled = 0

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ready = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            listener = fd
            port = UInt16(bigEndian: address.sin_port)
            guard ready else { throw POSIXError(.EADDRINUSE) }
            Thread.detachNewThread { [self] in
                while true {
                    let client = accept(fd, nil, nil)
                    if client < 0 {
                        close(fd)  // here, never by stop(): the number may be reused meanwhile
                        return
                    }
                    serve(client)
                }
            }
        }

        var connections: Int {
            lock.lock()
            defer { lock.unlock() }
            return handled
        }

        func stop() {
            shutdown(listener, Int32(SHUT_RDWR))
        }

        private func read(_ fd: Int32, _ count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
                if n <= 0 { return nil }
                got += n
            }
            return bytes
        }

        private func serve(_ client: Int32) {
            defer { close(client) }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard let greeting = read(client, 2), greeting[0] == 5, read(client, Int(greeting[1])) != nil else {
                return
            }
            _ = send(client, [5, 0], 2, Int32(MSG_NOSIGNAL))
            guard let request = read(client, 4) else { return }
            let addressLength: Int
            switch request[3] {
            case 1: addressLength = 4
            case 4: addressLength = 16
            default: addressLength = Int(read(client, 1)?[0] ?? 0)
            }
            guard read(client, addressLength) != nil, let port = read(client, 2) else { return }
            lock.lock()
            handled += 1
            lock.unlock()
            let reply: UInt8 = port == [0, 1] ? 2 : 5
            _ = send(client, [5, reply, 0, 1, 0, 0, 0, 0, 0, 0], 10, Int32(MSG_NOSIGNAL))
        }
    }

    @Test func aSocksRefusalIsTheProxysAndAnUnreachableHostTheHosts() throws {
        let h = try PrefetchHarness()
        let socks = try RefusingSocksServer()
        defer { socks.stop() }
        let proxy = "socks5h://127.0.0.1:\(socks.port)"
        let urls = ["http://images.example.invalid:1/a.jpg", "http://images.example.invalid:2/b.jpg"]
        for _ in 0..<2 {
            let run = try h.prefetch(urls, options: ["--proxy", proxy, "--retries", "0"])
            #expect(run.status == 1, "\(run.stderr)")
            let refused = try run.entry(line: 1)
            #expect(refused["errorClass"] as? String == "proxy-failed", "\(refused)")
            #expect((refused["errorMessage"] as? String)?.hasPrefix("the proxy \(proxy) failed") == true, "\(refused)")
            let unreachable = try run.entry(line: 2)
            #expect(unreachable["errorClass"] as? String == "connect-failed", "\(unreachable)")
            #expect(
                (unreachable["errorMessage"] as? String)?.hasPrefix(
                    "the proxy \(proxy) could not reach images.example.invalid") == true, "\(unreachable)")
        }
        #expect(socks.connections == 4, "neither was blacklisted")
    }
}
