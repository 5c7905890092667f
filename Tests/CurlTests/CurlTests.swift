import CCurl
import Curl
import Foundation
import LoopbackServer
import Testing
import TestSupport

@Suite struct CurlLibraryTests {
    @Test func libraryIsLinkedWithHTTP2() {
        #expect(Curl.version.split(separator: ".").count == 3)
        #expect(Curl.supportsHTTP2)
    }

    /// Drives one transfer to its end (at most 10 s).
    func runToCompletion(_ multi: CurlMulti, _ easy: CurlEasy) throws -> CurlMulti.Completion? {
        try multi.add(easy)
        defer { multi.remove(easy) }
        for _ in 0..<500 {
            multi.perform()
            if let completion = multi.nextCompletion() { return completion }
            multi.poll(timeoutMilliseconds: 20)
        }
        return nil
    }

    final class Sink {
        var bytes: [UInt8] = []
    }

    /// A real transfer through the multi interface against the loopback server.
    @Test func multiTransferAgainstLoopback() throws {
        let routes = try FixtureRoutes(imagesFolder: Fixtures.root.appendingPathComponent("images"))
        let server = LoopbackServer(router: routes.router)
        try server.start()
        defer { server.stop() }
        let multi = try CurlMulti()
        let easy = try CurlEasy()
        let sink = Sink()
        easy.set(CURLOPT_URL, server.baseURL + "/img/photo.jpg")
        easy.setHeaders(["X-Test: yes"])
        easy.setWriteFunction({ buffer, size, count, user in
            let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: size * count))
            return size * count
        }, userData: Unmanaged.passUnretained(sink).toOpaque())
        let completion = try runToCompletion(multi, easy)
        #expect(completion?.result == 0)
        #expect(easy.responseCode == 200)
        #expect(sink.bytes == routes.valid["photo.jpg"])
        #expect(server.requests.first?.header("x-test") == "yes")
    }

    @Test func errorsCarryLibcurlsDetail() throws {
        let multi = try CurlMulti()
        let easy = try CurlEasy()
        easy.set(CURLOPT_URL, "http://127.0.0.1:1/")
        easy.set(CURLOPT_WRITEFUNCTION, pointer: nil)
        let completion = try runToCompletion(multi, easy)
        #expect(completion?.result == Int32(CURLE_COULDNT_CONNECT.rawValue))
        let message = easy.error(for: completion?.result ?? 0).message
        #expect(message.contains("127.0.0.1"), "\(message)")
    }
}
