import Foundation
import LoopbackServer
import TestSupport
import Testing

@testable import ImgwarmKit

#if canImport(Glibc)
    import Glibc
#endif

/// The downloader on its own, against the loopback server: no binary, no validation, no cache.
/// Each test drives libcurl's multi handle the way `PrefetchJob+Download.swift` does (`start`,
/// `perform`, `completions`, `poll`), bounded by a deadline so a bug cannot hang the run.
@Suite struct DownloaderTests {
    /// A loopback server with the fixture routes and a temporary spill folder; stops the server
    /// when it goes away.
    final class Bench {
        let temp: TemporaryFolder
        let fixtures: FixtureServer
        var routes: FixtureRoutes { fixtures.routes }
        var server: LoopbackServer { fixtures.server }
        let spillFolder: String

        init() throws {
            temp = try TemporaryFolder(prefix: "imgwarm-downloader")
            fixtures = try FixtureServer()
            spillFolder = temp.path("spill")
            try FileManager.default.createDirectory(atPath: spillFolder, withIntermediateDirectories: true)
        }

        func url(_ path: String) -> String { fixtures.url(path) }

        func downloader(_ configure: (inout FetchConfiguration) -> Void = { _ in }) throws -> Downloader {
            var configuration = FetchConfiguration()
            configuration.timeout = 10
            configuration.maxTime = 30
            configure(&configuration)
            return try Downloader(configuration: configuration, spillFolder: spillFolder, spillPrefix: "")
        }

        func spillContents() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: spillFolder)) ?? []).sorted()
        }
    }

    static func entry(_ url: String, line: Int = 1) -> PendingEntry {
        var entry = PendingEntry(line: line, input: 0, url: url, priority: .normal)
        entry.attempts = 1
        return entry
    }

    /// Runs the event loop until `count` transfers finished or `seconds` passed; what is still in
    /// flight then is aborted (and the test fails on the count).
    static func drive(_ downloader: Downloader, until count: Int, seconds: Double = 20) -> [Downloader.Finished] {
        var finished: [Downloader.Finished] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            downloader.perform()
            finished += downloader.completions()
            if finished.count >= count { break }
            downloader.poll(milliseconds: 50)
        }
        if finished.count < count { _ = downloader.abortAll() }
        return finished
    }

    /// Starts one URL and waits for it.
    static func fetch(
        _ downloader: Downloader, _ url: String, validators: Downloader.Validators? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Downloader.Finished {
        try downloader.start(entry(url), validators: validators)
        let finished = drive(downloader, until: 1)
        #expect(downloader.inFlight == 0, sourceLocation: sourceLocation)
        return try #require(
            finished.first, "no completion within the deadline for \(url)", sourceLocation: sourceLocation)
    }

    static func body(_ finished: Downloader.Finished, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> Downloader.Body
    {
        switch finished.result {
        case .success(let body): return body
        case .failure(let failure):
            Issue.record(
                "expected a body, got \(failure.reason.rawValue): \(failure.message)", sourceLocation: sourceLocation)
            throw failure
        }
    }

    static func failure(_ finished: Downloader.Finished, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> Failure
    {
        switch finished.result {
        case .success(let body):
            Issue.record(
                "expected a failure, got status \(body.status) with \(body.count) bytes", sourceLocation: sourceLocation
            )
            throw Failure(.transferFailed, "unexpected success")
        case .failure(let failure): return failure
        }
    }

    // MARK: - Bodies

    @Test func imageBodyArrivesIntactInMemory() throws {
        let bench = try Bench()
        let downloader = try bench.downloader()
        let finished = try Self.fetch(downloader, bench.url("/img/photo.jpg"))
        let body = try Self.body(finished)
        let photo = try #require(bench.routes.valid["photo.jpg"])
        #expect(body.status == 200)
        #expect(finished.httpStatus == 200)
        #expect(body.count == photo.count)
        #expect(body.bytes == photo, "the bytes are the fixture's")
        #expect(body.spillName == nil, "a body under memoryBodyLimit stays in memory")
        #expect(finished.headers.etag == FixtureRoutes.etag(photo))
        #expect(finished.headers.lastModified == FixtureRoutes.lastModified)
        #expect(finished.entry.url == bench.url("/img/photo.jpg"))
        #expect(bench.spillContents().isEmpty)
        // The default request headers went out.
        let request = try #require(bench.server.requests.last)
        #expect(request.header("accept") == FetchConfiguration().accept)
        #expect(request.header("if-none-match") == nil)
    }

    /// Several transfers at once on one multi handle each get their own body.
    @Test func concurrentTransfersKeepTheirOwnBodies() throws {
        let bench = try Bench()
        let downloader = try bench.downloader()
        let names = ["photo.jpg", "gradient.png", "anim.gif", "icon.bmp", "sticker.webp", "scan.tiff"]
        for (index, name) in names.enumerated() {
            try downloader.start(Self.entry(bench.url("/img/\(name)"), line: index + 1))
        }
        #expect(downloader.inFlight == names.count)
        let finished = Self.drive(downloader, until: names.count)
        try #require(finished.count == names.count)
        for done in finished {
            let name = names[done.entry.line - 1]
            let body = try Self.body(done)
            #expect(body.bytes == bench.routes.valid[name], "the body of \(name)")
        }
    }

    @Test func notFoundIsAnHTTPStatusFailure() throws {
        let bench = try Bench()
        let downloader = try bench.downloader()
        let finished = try Self.fetch(downloader, bench.url("/status/404"))
        let failure = try Self.failure(finished)
        #expect(failure.reason == .httpStatus)
        #expect(failure.httpStatus == 404)
        #expect(finished.httpStatus == 404)
        #expect(failure.message.contains("404"))
        #expect(!failure.isTransient, "a 404 is permanent")

        // A 503 with Retry-After is transient and carries the header for the retry decision.
        let busy = try Self.fetch(downloader, bench.url("/status/503?retry-after=7"))
        let busyFailure = try Self.failure(busy)
        #expect(busyFailure.reason == .httpStatus)
        #expect(busyFailure.httpStatus == 503)
        #expect(busyFailure.isTransient)
        #expect(busy.headers.retryAfter == "7")
    }

    @Test func redirectChainsAreFollowed() throws {
        let bench = try Bench()
        let downloader = try bench.downloader()
        let finished = try Self.fetch(downloader, bench.url("/redirect/3/gradient.png"))
        let body = try Self.body(finished)
        #expect(body.status == 200)
        #expect(body.bytes == bench.routes.valid["gradient.png"])
        #expect(
            bench.server.requests.map(\.path) == [
                "/redirect/3/gradient.png", "/redirect/2/gradient.png", "/redirect/1/gradient.png", "/img/gradient.png",
            ])

        // More hops than maxRedirects is a failure of its own.
        let strict = try bench.downloader { $0.maxRedirects = 2 }
        let tooMany = try Self.failure(try Self.fetch(strict, bench.url("/redirect/3/gradient.png")))
        #expect(tooMany.reason == .tooManyRedirects)
    }

    /// A body over maxBytes fails `too-large`, whether the server announces its length (libcurl
    /// refuses it) or sends it chunked (the write callback stops it); no spill file stays.
    @Test(arguments: ["/large?bytes=300000", "/large?bytes=300000&chunked=1"])
    func bodiesOverMaxBytesAreTooLarge(path: String) throws {
        let bench = try Bench()
        let downloader = try bench.downloader {
            $0.maxBytes = 100_000
            $0.memoryBodyLimit = 16 * 1024
        }
        let failure = try Self.failure(try Self.fetch(downloader, bench.url(path)))
        #expect(failure.reason == .tooLarge)
        #expect(failure.message.contains("100000"))
        #expect(bench.spillContents().isEmpty, "the partial spill file is removed")

        // Under the limit the same route is fine.
        let roomy = try bench.downloader { $0.maxBytes = 400_000 }
        let body = try Self.body(try Self.fetch(roomy, bench.url("/large?bytes=300000")))
        #expect(body.count == 300_000)
    }

    /// A body larger than memoryBodyLimit goes to a file of the spill folder, which holds exactly
    /// the bytes; the in-memory buffer is left empty.
    @Test func largeBodiesSpillToAFile() throws {
        let bench = try Bench()
        let downloader = try bench.downloader { $0.memoryBodyLimit = 1024 }
        let photo = try #require(bench.routes.valid["photo.jpg"])
        let body = try Self.body(try Self.fetch(downloader, bench.url("/img/photo.jpg")))
        let name = try #require(body.spillName, "a \(photo.count)-byte body over a 1024-byte limit spills")
        #expect(body.bytes.isEmpty)
        #expect(body.count == photo.count)
        #expect(bench.spillContents() == [name], "the spill file is in the spill folder")
        let stored = FileManager.default.contents(atPath: bench.spillFolder + "/" + name).map([UInt8].init)
        #expect(stored == photo, "the spill file holds the body")

        // A small body on the same downloader (and reused handle) stays in memory.
        let small = try Self.body(try Self.fetch(downloader, bench.url("/img/anim.gif")))
        #expect(small.spillName == nil)
        #expect(small.bytes == bench.routes.valid["anim.gif"])
    }

    // MARK: - Network failures

    /// A port bound on 127.0.0.1 without listening refuses connections, and no one else can take it
    /// while the test holds it.
    @Test func refusedConnectionIsConnectFailed() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = UInt16(bigEndian: address.sin_port)
        try #require(port != 0)

        let bench = try Bench()
        let downloader = try bench.downloader()
        let finished = try Self.fetch(downloader, "http://127.0.0.1:\(port)/img/photo.jpg")
        let failure = try Self.failure(finished)
        #expect(failure.reason == .connectFailed)
        #expect(failure.isTransient)
        #expect(finished.httpStatus == nil)
    }

    /// No byte for `timeout` seconds ends the transfer as `timeout`: once after part of the body,
    /// once before any header. Total-time limits are off, so only the inactivity clock can fire.
    @Test(arguments: ["/stall/photo.jpg?after=100", "/slow-headers/photo.jpg?delay=30"])
    func inactivityEndsAStalledTransfer(path: String) throws {
        let bench = try Bench()
        let downloader = try bench.downloader {
            $0.timeout = 0.5
            $0.maxTime = 0
        }
        let finished = try Self.fetch(downloader, bench.url(path))
        let failure = try Self.failure(finished)
        #expect(failure.reason == .timeout)
        #expect(failure.message.contains("(\(Setting.timeout))"), "\(failure.message)")
        #expect(failure.isTransient)
        #expect(bench.spillContents().isEmpty)
    }

    // MARK: - Conditional requests

    /// Safe validators go out as If-None-Match / If-Modified-Since (and the fixture answers 304);
    /// unsafe ones are dropped; a handle reused without validators sends neither again.
    @Test func validatorsAreSentOnlyWhenSafe() throws {
        let bench = try Bench()
        let downloader = try bench.downloader()
        let photo = try #require(bench.routes.valid["photo.jpg"])
        let etag = FixtureRoutes.etag(photo)

        let revalidated = try Self.fetch(
            downloader, bench.url("/img/photo.jpg?n=1"),
            validators: .init(etag: etag, lastModified: FixtureRoutes.lastModified))
        let conditional = try #require(bench.server.requests.last)
        #expect(conditional.header("if-none-match") == etag)
        #expect(conditional.header("if-modified-since") == FixtureRoutes.lastModified)
        #expect(
            conditional.header("accept") == FetchConfiguration().accept,
            "the default headers stay beside the validators")
        let notModified = try Self.body(revalidated)
        #expect(notModified.status == 304)
        #expect(notModified.count == 0)

        let unsafeTag = "\"v1\"\r\nX-Injected: yes"
        let unsafeDate = String(repeating: "x", count: ResponseHeaders.validatorLimit + 1)
        let refused = try Self.fetch(
            downloader, bench.url("/img/photo.jpg?n=2"), validators: .init(etag: unsafeTag, lastModified: unsafeDate))
        let plain = try #require(bench.server.requests.last)
        #expect(plain.path == "/img/photo.jpg" && plain.query["n"] == "2")
        #expect(plain.header("if-none-match") == nil, "an ETag with control characters is not sent")
        #expect(plain.header("if-modified-since") == nil, "a Last-Modified over the limit is not sent")
        #expect(plain.header("x-injected") == nil)
        #expect(try Self.body(refused).bytes == photo, "an unconditional request gets the whole body")

        // One safe validator alone goes out alone.
        _ = try Self.fetch(
            downloader, bench.url("/img/photo.jpg?n=3"), validators: .init(etag: "\"other\"", lastModified: nil))
        let etagOnly = try #require(bench.server.requests.last)
        #expect(etagOnly.header("if-none-match") == "\"other\"")
        #expect(etagOnly.header("if-modified-since") == nil)

        // The handle that carried its own headers goes back to the shared list.
        _ = try Self.fetch(downloader, bench.url("/img/photo.jpg?n=4"))
        let after = try #require(bench.server.requests.last)
        #expect(after.query["n"] == "4")
        #expect(after.header("if-none-match") == nil)
        #expect(after.header("if-modified-since") == nil)
        #expect(after.header("accept") == FetchConfiguration().accept)
    }
}
