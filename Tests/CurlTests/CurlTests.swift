import Curl
import Foundation
import LoopbackServer
import TestSupport
import Testing

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

    final class Sink: CurlTransferDelegate {
        var bytes: [UInt8] = []
        var headerLines: [String] = []
        var requests = 0
        var progressCalls = 0
        func curlReceive(body: UnsafeRawBufferPointer) -> Bool {
            bytes.append(contentsOf: body)
            return true
        }
        func curlReceive(headerLine: UnsafeRawBufferPointer) {
            headerLines.append(String(decoding: headerLine, as: UTF8.self))
        }
        func curlProgress(downloaded: Int64) -> Bool {
            progressCalls += 1
            return true
        }
        func curlRequestWillBeSent() { requests += 1 }
    }

    /// A real transfer through the multi interface against the loopback server: the delegate
    /// hears the body, the headers, the request and progress.
    @Test func multiTransferAgainstLoopback() throws {
        let routes = try FixtureRoutes(imagesFolder: Fixtures.root.appendingPathComponent("images"))
        let server = LoopbackServer(router: routes.router)
        try server.start()
        defer { server.stop() }
        let multi = try CurlMulti(maxConnections: 4)
        let easy = try CurlEasy()
        let sink = Sink()
        try easy.apply(CurlTransferOptions())
        try easy.setDelegate(sink)
        try easy.setURL(server.baseURL + "/redirect/2/photo.jpg")
        try easy.setHeaders(["X-Test: yes"])
        let completion = try runToCompletion(multi, easy)
        #expect(completion != nil && completion?.error == nil)
        #expect(completion?.easy === easy)
        #expect(easy.responseCode == 200)
        #expect(sink.bytes == routes.valid["photo.jpg"])
        #expect(sink.requests == 3, "two redirects and the image")
        #expect(sink.progressCalls > 0)
        #expect(sink.headerLines.first?.hasPrefix("HTTP/1.1 30") == true)
        #expect(server.requests.first?.header("x-test") == "yes")
    }

    /// The connection watch hears a connection close (here: the multi handle's cache emptied
    /// as it goes) by the name the transfer that used it gives it, and not before: what lets
    /// the downloader count the connections open now (issue 37).
    @Test func theConnectionWatchHearsACloseByTheTransfersName() throws {
        let routes = try FixtureRoutes(imagesFolder: Fixtures.root.appendingPathComponent("images"))
        let server = LoopbackServer(router: routes.router)
        try server.start()
        defer { server.stop() }
        final class Names { var closed: [String] = [] }
        let names = Names()
        var used: String?
        do {
            let multi = try CurlMulti(maxConnections: 4)
            multi.connectionWatch.onClose = { names.closed.append($0) }
            let easy = try CurlEasy()
            let sink = Sink()
            try easy.apply(CurlTransferOptions())
            try easy.setDelegate(sink)
            try easy.reportClosing(to: multi.connectionWatch)
            try easy.setURL(server.baseURL + "/img/photo.jpg")
            let completion = try runToCompletion(multi, easy)
            #expect(completion != nil && completion?.error == nil)
            #expect(sink.bytes == routes.valid["photo.jpg"])
            used = easy.connectionName
            #expect(names.closed.isEmpty, "the connection stays in the cache for the next transfer")
        }
        let name = try #require(used)
        #expect(name.hasPrefix("127.0.0.1 "), "\(name)")
        #expect(names.closed == [name])
    }

    /// Failures come back classified, with libcurl's detailed message.
    @Test func errorsAreClassifiedWithLibcurlsDetail() throws {
        let multi = try CurlMulti(maxConnections: 4)
        let easy = try CurlEasy()
        try easy.setURL("http://127.0.0.1:1/")
        let completion = try runToCompletion(multi, easy)
        #expect(completion?.error?.kind == .couldNotConnect)
        let message = completion?.error?.message ?? ""
        #expect(message.contains("127.0.0.1"), "\(message)")

        var options = CurlTransferOptions()
        options.protocols = "http"
        try easy.apply(options)
        try easy.setURL("https://127.0.0.1:1/")
        #expect(try runToCompletion(multi, easy)?.error?.kind == .unsupportedProtocol)
    }

    /// An option libcurl refuses is an error naming it, at once: never a silently ignored setting
    /// (a protocol this libcurl does not know, an encoding or HTTP version it was built without).
    @Test func refusedOptionsAreErrorsNamingThem() throws {
        let easy = try CurlEasy()
        var options = CurlTransferOptions()
        options.protocols = "http,nosuchprotocol"
        do {
            try easy.apply(options)
            Issue.record("an unknown protocol was accepted")
        } catch {
            #expect(error.kind == .optionRefused)
            #expect(error.option == "CURLOPT_PROTOCOLS_STR")
            #expect(error.message.contains("CURLOPT_PROTOCOLS_STR"), "\(error.message)")
        }
        // (libcurl 7.88 accepts every value of the four multi options CurlMulti sets, clamping
        // them, so their checks cannot be shown failing here.)
    }
}
