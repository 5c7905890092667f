import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// TLS is verified: against `openssl s_server` with a throw-away certificate for 127.0.0.1.
@Suite struct TLSTests {
    final class TLSServer {
        let process = Process()
        let port: Int
        let certificate: String

        init(folder: TemporaryFolder, documentRoot: String) throws {
            let key: String
            (certificate, key) = try SelfSignedCertificate.make(in: folder)
            // A free port: bind to 0, read it, release it, give it to openssl.
            let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(probe, $0, length)
                    return getsockname(probe, $0, &length)
                }
            }
            port = Int(UInt16(bigEndian: address.sin_port))
            close(probe)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = [
                "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-WWW", "-quiet",
            ]
            process.currentDirectoryURL = URL(fileURLWithPath: documentRoot)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Wait (bounded) until it accepts connections.
            for _ in 0..<100 {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var target = sockaddr_in()
                target.sin_family = sa_family_t(AF_INET)
                target.sin_port = UInt16(port).bigEndian
                target.sin_addr.s_addr = inet_addr("127.0.0.1")
                let connected = withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                close(fd)
                if connected == 0 { return }
                usleep(50_000)
            }
            stop()
            throw CocoaError(.fileReadUnknown)
        }

        func stop() {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)  // s_server ignores SIGTERM
                process.waitUntilExit()
            }
        }

        deinit { stop() }
    }

    @Test func certificatesAreVerified() throws {
        let h = try PrefetchHarness()
        let root = h.temp.path("www")
        try h.temp.write("www/photo.jpg", Data(h.routes.valid["photo.jpg"]!))
        try h.temp.write("www/gradient.png", Data(h.routes.valid["gradient.png"]!))
        let server = try TLSServer(folder: h.temp, documentRoot: root)
        defer { server.stop() }
        let key = "https://127.0.0.1:\(server.port)/photo.jpg"

        let untrusted = try h.prefetch([key])
        #expect(untrusted.status == 1)
        #expect(try untrusted.entry(line: 1)["errorClass"] as? String == "tls")
        #expect(try untrusted.entry(line: 1)["errorKind"] as? String == "permanent")
        h.expectCache(exactly: [:])

        // A certificate error is permanent: the URL went on the blacklist; ask again explicitly.
        let trusted = try h.prefetch([key], options: ["--cacert", server.certificate, "--retry-failed"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        h.expectCache(exactly: [key: h.routes.valid["photo.jpg"]!])

        let other = "https://127.0.0.1:\(server.port)/gradient.png"
        let insecure = try h.prefetch([other], options: ["--insecure"])
        #expect(insecure.status == 0)
        #expect(insecure.stderr.contains("--insecure: TLS certificates are not verified"))
        // Warnings are always printed, this one under --quiet too (it was not).
        let quiet = try h.prefetch([other], options: ["--insecure", "--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.contains("--insecure: TLS certificates are not verified"), "\(quiet.stderr)")
    }

    @Test func unreadableCACertificateIsAUsageError() throws {
        let h = try PrefetchHarness()
        let run = try h.prefetch([h.url("/img/photo.jpg")], options: ["--cacert", h.temp.path("missing.pem")])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--cacert"))
        #expect(h.server.requests.isEmpty)
    }
}
