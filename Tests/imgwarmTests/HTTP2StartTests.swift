import Foundation
import TestSupport
import Testing

/// Issue 37 against a real HTTP/2 server on loopback (`scripts/bench-net/server.mjs`: Node's
/// http2, one process, which counts its connections): a host whose TLS handshake agrees on HTTP/2
/// starts at 200 streams at once, before its first answer, and `--concurrency 200` to it opens
/// the connections its streams need, not one per transfer past the first connection's 100.
/// Counts, never timings.
@Suite(.serialized) struct HTTP2StartTests {
    final class NodeServer {
        let process = Process()
        let port: Int
        let certificate: String

        /// `holdMilliseconds`: the answers to the streams that arrive within that long of the
        /// first wait until then (`heldStreams` in `stats()` counts them).
        init(folder: TemporaryFolder, root: String, holdMilliseconds: Int = 0) throws {
            let key: String
            (certificate, key) = try SelfSignedCertificate.make(in: folder)
            let portFile = folder.path("port")
            process.executableURL = URL(fileURLWithPath: "/usr/bin/node")
            process.arguments = [
                Fixtures.repositoryRoot.appendingPathComponent("scripts/bench-net/server.mjs").path, root, root,
                "127.0.0.1", "0", "0", certificate, key,
            ]
            process.environment = [
                "WORKERS": "1", "PORT_FILE": portFile, "PATH": "/usr/bin:/bin", "HOLD_MS": String(holdMilliseconds),
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            var port = 0
            for _ in 0..<200 where port == 0 {
                port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) } ?? 0
                if port == 0 { usleep(50_000) }
            }
            self.port = port
        }

        var base: String { "https://127.0.0.1:\(port)" }

        /// The server's `/_stats`: its HTTP/2 connections open now, the most open at once, and the
        /// streams whose answers it held.
        func stats() throws -> [String: Int] {
            let result = try ProcessRunner.run(
                URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "--cacert", certificate, base + "/_stats"], timeout: 30)
            return (try JSONSerialization.jsonObject(with: result.stdout) as? [String: Int]) ?? [:]
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// 160 copies of one image (past one connection's 100 streams), and their paths.
    static func site(_ temp: TemporaryFolder) throws -> (root: String, urls: [String]) {
        let image = try Fixtures.data("images/valid/photo.jpg")
        try FileManager.default.createDirectory(atPath: temp.path("site/img"), withIntermediateDirectories: true)
        for index in 0..<160 { _ = try temp.write("site/img/\(index).jpg", image) }
        return (temp.path("site"), (0..<160).map { "/img/\($0).jpg" })
    }

    func run(_ extra: [String], holdMilliseconds: Int = 0) throws -> (result: ProcessResult, stats: [String: Int]) {
        let temp = try TemporaryFolder()
        let (root, paths) = try Self.site(temp)
        let server = try NodeServer(folder: temp, root: root, holdMilliseconds: holdMilliseconds)
        try #require(server.port > 0, "the HTTP/2 server did not start (/usr/bin/node: scripts/install-deps.sh)")
        let list = try temp.write("list.txt", Data(paths.map { server.base + $0 }.joined(separator: "\n").utf8))
        let result = try CLI.run(
            ["prefetch", "--disk-cache-path", temp.path("cache"), "--cacert", server.certificate, "--verbose"]
                + extra + [list], home: temp.path)
        return (result, try server.stats())
    }

    /// Every answer held back a second: the handshake's agreement on `h2` (ALPN) raises the
    /// host's limit to 200 (said once under --verbose), and its streams never need more than two
    /// connections. How many streams go out before the first answer depends on how fast a busy
    /// machine sends them: the simulated
    /// `MultiplexedStartTests.aHandshakeThatAgreedOnHTTP2StartsTheHostBeforeItsFirstAnswer`
    /// asserts it (issue 49).
    @Test func aHostWhoseHandshakeAgreesOnHTTP2StartsBeforeItsFirstAnswer() throws {
        let (result, stats) = try run([], holdMilliseconds: 1000)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains(": limit 6 → 200 (the host multiplexes (HTTP/2))"), "\(result.stderrText)")
        #expect((stats["peakSessions"] ?? 99) <= 2, "\(stats)")
    }

    /// libcurl alone opened 101 connections here: 100 streams on the first, then one connection
    /// for each transfer past them.
    @Test func concurrency200OpensTheConnectionsItsStreamsNeed() throws {
        let (result, stats) = try run(["--concurrency", "200"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect((stats["peakSessions"] ?? 99) <= 2, "HTTP/2 connections open at once: \(stats)")
    }
}
