import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// `--offline` (issue 33, item 3) below the command: what a HAR entry's recorded body becomes
/// (`HAREntry.recordedBody`), the spool carrying it, and `LocalBodies` reading it from the
/// scratch file of bodies with its recorded status and headers.
@Suite struct HAROfflineBodyTests {
    /// A scratch file of bodies holding `bytes` (kept), and where.
    static func kept(_ bytes: [UInt8], in temp: TemporaryFolder) throws -> (HARBodies, HAREntry.Body) {
        let bodies = try HARBodies(folder: temp.path)
        bodies.begin()
        try bodies.append(Array(Data(bytes).base64EncodedString().utf8)[...])
        let body = try #require(try bodies.finish(base64: true).body)
        bodies.keep(body)
        return (bodies, body)
    }

    static func entry(status: Int = 200, size: Int? = nil, body: HAREntry.Body? = nil) -> HAREntry {
        var entry = HAREntry(number: 1)
        entry.url = "https://img.example.com/a.png"
        entry.status = status
        entry.mimeType = "image/png"
        entry.size = size
        entry.body = body
        entry.responseHeaders = [
            .init(name: "etag", value: "\"v1\""), .init(name: "Content-Length", value: "9"),
            .init(name: "cache-control", value: "max-age=60"), .init(name: "Content-Encoding", value: "gzip"),
        ]
        return entry
    }

    @Test func aRecordedBodyCarriesItsStatusAndTheHeadersAnIndexKeeps() {
        let body = HAREntry.Body(offset: 10, length: 5)
        guard case .recorded(let recorded) = Self.entry(size: 5, body: body).recordedBody() else {
            Issue.record("a 200 with a body is recorded")
            return
        }
        #expect(recorded.offset == 10 && recorded.length == 5 && recorded.status == 200)
        #expect(recorded.headers == ["ETag: \"v1\"", "Cache-Control: max-age=60", "Content-Type: image/png"])
        // content.size -1 (unknown) is not a mismatch.
        if case .recorded = Self.entry(size: -1, body: body).recordedBody() {} else { Issue.record("size -1") }
    }

    /// The whole exchange a cache that keeps responses gets (OkHttp's `<key>.0`, issue 47): the
    /// status line OkHttp writes (`HTTP/1.1 … OK` for an HTTP/2 capture), every response header
    /// but hop-by-hop ones, pseudo-headers and cookies, `Content-Encoding` dropped and
    /// `Content-Length` the stored length, the `Vary` request headers (never a credential), and
    /// the capture's times.
    @Test func aRecordedBodyCarriesTheWholeExchange() {
        var entry = Self.entry(size: 5, body: HAREntry.Body(offset: 10, length: 5))
        entry.httpVersion = "h2"
        entry.startedDateTime = "2024-05-01T12:00:00.250+02:00"
        entry.time = 120.7
        entry.responseHeaders += [
            .init(name: ":status", value: "200"), .init(name: "Transfer-Encoding", value: "chunked"),
            .init(name: "Connection", value: "x-hop"), .init(name: "X-Hop", value: "1"),
            .init(name: "Set-Cookie", value: "session=secret"), .init(name: "Vary", value: "Accept-Encoding, Cookie"),
            .init(name: "Date", value: "Wed, 01 May 2024 10:00:00 GMT"), .init(name: "Age", value: "30"),
        ]
        entry.requestHeaders = [
            .init(name: "Accept-Encoding", value: "gzip"), .init(name: "Cookie", value: "session=secret"),
            .init(name: "User-Agent", value: "okhttp/3.12.13"),
        ]
        guard case .recorded(let recorded) = entry.recordedBody() else {
            Issue.record("recorded")
            return
        }
        #expect(recorded.statusLine == "HTTP/1.1 200 OK")
        #expect(
            recorded.fields == [
                "etag: \"v1\"", "Content-Length: 5", "cache-control: max-age=60", "Vary: Accept-Encoding, Cookie",
                "Date: Wed, 01 May 2024 10:00:00 GMT", "Age: 30", "Content-Type: image/png",
            ])
        #expect(recorded.requestFields == ["Accept-Encoding: gzip"])
        #expect(recorded.sentMillis == 1_714_557_600_250 && recorded.receivedMillis == 1_714_557_600_370)
        entry.httpVersion = "HTTP/1.0"
        entry.statusText = "Fine"
        if case .recorded(let older) = entry.recordedBody() { #expect(older.statusLine == "HTTP/1.0 200 Fine") }
        for (text, millis) in [
            ("2024-05-01T10:00:00Z", Int64(1_714_557_600_000)), ("2024-05-01T10:00:00.5Z", 1_714_557_600_500),
            ("2024-05-01T09:00:00.123456-01:00", 1_714_557_600_123), ("1970-01-01T00:00:00.000Z", 0),
        ] {
            #expect(HAREntry.millis(iso8601: text) == millis, "\(text)")
        }
        for bad in ["", "2024-05-01", "2024-05-01T10:00:00", "2024-13-01T10:00:00Z", "2024-05-01T10:00:00Zx"] {
            #expect(HAREntry.millis(iso8601: bad) == nil, "\(bad)")
        }
    }

    @Test func entriesWithNothingToStoreAreMissingWithWhy() {
        func reason(_ entry: HAREntry) -> String {
            if case .missing(let reason) = entry.recordedBody() { return reason }
            return ""
        }
        let body = HAREntry.Body(offset: 0, length: 5)
        #expect(reason(Self.entry(status: 304)).contains("304 Not Modified"))
        #expect(reason(Self.entry(status: 404, body: body)).contains("HTTP 404"))
        #expect(reason(Self.entry(status: 206, body: body)).contains("HTTP 206"))
        #expect(reason(Self.entry()).contains("did not save the response's body"))
        #expect(reason(Self.entry(body: .init(offset: 0, length: 0))).contains("did not save"))
        #expect(
            reason(Self.entry(size: 6, body: body)) == "response.content.size says 6 bytes but the recorded body has 5")
        var broken = Self.entry(body: nil)
        broken.bodyProblem = "response.content.text is not valid base64"
        #expect(reason(broken) == "response.content.text is not valid base64")
    }

    /// The reader says which body was bad base64, only when bodies are kept (offline).
    @Test func badBase64IsTold() throws {
        let temp = try TemporaryFolder()
        let text =
            #"{"log": {"entries": [{"request": {"url": "https://a/x.png"}, "response": {"status": 200, "#
            + #""content": {"mimeType": "image/png", "text": "iVBO!!", "encoding": "base64"}}}]}}"#
        for folder in [temp.path, nil] {
            var list = HARList(bodies: try HARBodies(folder: folder))
            var lines: [HARList.Line] = []
            try list.feed(Array(text.utf8)[...]) { lines.append($0) }
            list.finish { lines.append($0) }
            guard case .image(_, _, let entry) = lines.first else {
                Issue.record("\(lines)")
                continue
            }
            #expect(entry.bodyProblem == (folder == nil ? nil : "response.content.text is not valid base64"))
        }
    }

    @Test func theSpoolCarriesRecordedAndMissingBodies() throws {
        let temp = try TemporaryFolder()
        let spool = try EntrySpool(priority: .normal, folder: temp.path)
        var response = RecordedResponse(
            offset: 1 << 33, length: 42, status: 203, headers: ["ETag: \"é\"", "Content-Type: image/webp"])
        response.statusLine = "HTTP/1.1 203 Non-Authoritative Information"
        response.fields = ["ETag: \"é\"", "Vary: Accept", "Content-Length: 42"]
        response.requestFields = ["Accept: image/webp"]
        response.sentMillis = 1_700_000_000_000
        response.receivedMillis = 1_700_000_000_250
        let recorded = BodySource.recorded(response)
        try spool.append(
            line: 1, input: 0, url: "https://a/1", key: "k1", headers: ["Accept: image/webp"], body: recorded)
        try spool.append(line: 2, input: 0, url: "https://a/2", key: "https://a/2", body: .missing("a 304"))
        try spool.append(line: 3, input: 0, url: "https://a/3", key: "https://a/3", body: .file("/x/3.png"))
        try spool.append(line: 4, input: 0, url: "https://a/4", key: "https://a/4")
        try spool.finishWriting(order: .fifo)
        var entries: [PendingEntry] = []
        while let entry = spool.next() { entries.append(entry) }
        #expect(entries.map(\.body) == [recorded, .missing("a 304"), .file("/x/3.png"), nil])
        #expect(entries[0].headers == ["Accept: image/webp"] && entries[0].key == "k1")
    }

    /// `LocalBodies` reads a recorded body by its place (in memory, or spilled past the memory
    /// limit), with the recorded status and headers; a missing one fails `no-body`.
    @Test func localBodiesReadRecordedBodies() throws {
        let temp = try TemporaryFolder()
        let bytes = (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let (scratch, body) = try Self.kept(bytes, in: temp)
        let spills = temp.path("spill")
        try FileManager.default.createDirectory(atPath: spills, withIntermediateDirectories: true)
        func entry(_ source: BodySource, line: Int) -> PendingEntry {
            var entry = PendingEntry(line: line, input: 0, url: "https://a/\(line)", priority: .normal)
            entry.body = source
            return entry
        }
        let source = BodySource.recorded(
            RecordedResponse(
                offset: body.offset, length: body.length, status: 200,
                headers: ["ETag: \"v1\"", "Cache-Control: max-age=60", "Content-Type: image/png"]))
        for memoryLimit in [1 << 20, 1000] {
            let local = LocalBodies(
                maxBytes: 1 << 20, memoryLimit: memoryLimit, spillFolder: spills, spillPrefix: "t-", recorded: scratch)
            local.start(entry(source, line: 1))
            let done = try #require(local.completions().first)
            let read = try done.result.get()
            #expect(read.count == 3000 && read.status == 200 && done.httpStatus == 200)
            #expect(
                done.headers == ResponseHeaders(etag: "\"v1\"", cacheControl: "max-age=60", contentType: "image/png"))
            if let name = read.spillName {
                #expect(memoryLimit == 1000)
                #expect(FileManager.default.contents(atPath: spills + "/" + name) == Data(bytes))
            } else {
                #expect(memoryLimit == 1 << 20 && read.bytes == bytes)
            }
        }
        let small = LocalBodies(
            maxBytes: 100, memoryLimit: 1000, spillFolder: spills, spillPrefix: "t-", recorded: scratch)
        small.start(entry(source, line: 2))
        small.start(entry(.missing("a 304"), line: 3))
        let failures = small.completions().map { done -> Failure? in
            if case .failure(let failure) = done.result { return failure }
            return nil
        }
        #expect(failures.map { $0?.reason } == [.tooLarge, .noBody])
        #expect(failures[1]?.message == "a 304")
    }

    /// Every outcome is in the report's JSON Schema and in the manual (docs/usage.md).
    @Test func outcomesAreDocumented() throws {
        let root = Fixtures.repositoryRoot
        let schema = String(
            decoding: try Data(contentsOf: root.appendingPathComponent("docs/prefetch-report.schema.json")),
            as: UTF8.self)
        let manual = String(decoding: try Data(contentsOf: root.appendingPathComponent("docs/usage.md")), as: UTF8.self)
        for outcome in Outcome.allCases {
            #expect(schema.contains("\"\(outcome.rawValue)\""), "\(outcome.rawValue) is not in the schema")
            #expect(manual.contains("`\(outcome.rawValue)`"), "\(outcome.rawValue) is not in docs/usage.md")
        }
    }
}
