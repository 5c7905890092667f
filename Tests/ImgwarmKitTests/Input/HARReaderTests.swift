import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// The HAR reader over captures shaped as Chrome, Charles and mitmproxy export them
/// (`Tests/Fixtures/har/`), in chunks of any size, and over broken ones (issue 33, items 1, 5, 6).
@Suite struct HARReaderTests {
    struct Read: Equatable {
        var lines: [HARList.Line] = []
        var counts = HARList.Counts()
        var failed = false

        /// Each line as `N url` or `N invalid: reason`.
        var summary: [String] {
            lines.map { line in
                switch line {
                case .image(let number, let url, _): return "\(number) \(url)"
                case .invalid(let number, let reason): return "\(number) invalid: \(reason)"
                }
            }
        }

        func entry(_ number: Int) -> HAREntry? {
            for case .image(number, _, let entry) in lines { return entry }
            return nil
        }
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Fixtures.root.appendingPathComponent("har/" + name)))
    }

    /// Feeds `bytes` in chunks of `chunk` bytes.
    static func read(_ bytes: [UInt8], chunk: Int = 1 << 16, bodies: HARBodies? = nil) throws -> Read {
        var list = HARList(bodies: try bodies ?? HARBodies(folder: nil))
        var read = Read()
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunk)
            do {
                try list.feed(bytes[start..<end]) { read.lines.append($0) }
            } catch {
                read.failed = true
                read.counts = list.counts
                return read
            }
            start = end
        }
        list.finish { read.lines.append($0) }
        read.counts = list.counts
        return read
    }

    static func read(_ text: String) throws -> Read { try read(Array(text.utf8)) }

    @Test func chromeExport() throws {
        let read = try Self.read(try Self.fixture("chrome.har"))
        #expect(
            read.summary == [
                "2 https://img.example.com/a.png",
                // The redirect chain: keyed by the first URL (entry 3), the final response's data.
                "3 https://img.example.com/r/b",
                "5 https://img.example.com/a.png",
                "6 https://img.example.com/c.webp",
                "8 https://img.example.com/d.gif?v=2",
                "9 https://img.example.com/avatar/42",
            ])
        #expect(read.counts == HARList.Counts(entries: 9, images: 6, skipped: 2, invalid: 0))
        let chain = try #require(read.entry(3))
        #expect(chain.url == "https://cdn.example.com/b.jpg")
        #expect(chain.status == 200 && chain.mimeType == "image/jpeg")
        let notModified = try #require(read.entry(6))
        #expect(notModified.status == 304 && notModified.body == nil)
        let png = try #require(read.entry(2))
        #expect(png.responseHeader("etag") == "\"abc\"")
        #expect(png.responseHeader("cache-control") == "max-age=86400")
        #expect(png.startedDateTime == "2024-05-01T10:00:00.000Z")
        #expect(png.requestHeaders.contains(HAREntry.Header(name: "accept-language", value: "en-GB,en;q=0.9")))
        // Item 2: the headers that choose the variant, never the recorded cookie.
        #expect(
            png.variantHeaders == [
                "Accept: image/avif,image/webp,image/apng,image/*,*/*;q=0.8", "Accept-Language: en-GB,en;q=0.9",
                "User-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15",
            ])
    }

    @Test func charlesExport() throws {
        // Escaped slashes throughout; a redirect by a relative Location with an empty redirectURL.
        let read = try Self.read(try Self.fixture("charles.har"))
        #expect(
            read.summary == [
                "1 https://media.example.org/thumbs/1.png",
                "2 https://media.example.org/go/2",
                "5 https://media.example.org/thumbs/1.png",
            ])
        #expect(read.counts == HARList.Counts(entries: 5, images: 3, skipped: 1, invalid: 0))
        #expect(read.entry(2)?.url == "https://media.example.org/img/2.gif")
        #expect(read.entry(1)?.responseHeader("last-modified") == "Tue, 30 Apr 2024 08:00:00 GMT")
        // The recorded Authorization is never among the headers sent.
        #expect(
            read.entry(1)?.variantHeaders == [
                "Accept: image/webp,*/*", "User-Agent: MyApp/3.2 CFNetwork/1410 Darwin/22.6.0",
            ])
    }

    @Test func mitmproxyExport() throws {
        let read = try Self.read(try Self.fixture("mitmproxy.har"))
        #expect(
            read.summary == [
                "1 https://img.example.net/p/1.webp",
                "3 http://img.example.net/p/2.png",
                "5 https://img.example.net/p/3.svg",
            ])
        #expect(read.counts == HARList.Counts(entries: 5, images: 3, skipped: 1, invalid: 0))
        #expect(read.entry(3)?.url == "https://img.example.net/p/2.png")
        #expect(read.entry(1)?.mimeType == "image/webp")
    }

    @Test(arguments: ["chrome.har", "charles.har", "mitmproxy.har"])
    func anyChunkSizeReadsTheSame(_ name: String) throws {
        let bytes = try Self.fixture(name)
        let whole = try Self.read(bytes)
        #expect(try Self.read(bytes, chunk: 1) == whole)
        #expect(try Self.read(bytes, chunk: 7) == whole)
        #expect(!whole.lines.isEmpty)
    }

    /// Bodies are decoded into the scratch file, base64 or plain, as (offset, length).
    @Test func bodiesAreDecodedIntoTheScratchFile() throws {
        let temp = try TemporaryFolder()
        let bytes = try Self.fixture("chrome.har")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let entries = try #require((json["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        func recorded(_ index: Int) throws -> [UInt8] {
            let content = try #require((entries[index]["response"] as? [String: Any])?["content"] as? [String: Any])
            let text = try #require(content["text"] as? String)
            return Array(try #require(Data(base64Encoded: text)))
        }
        for chunk in [1, 1 << 16] {
            let bodies = try HARBodies(folder: temp.path)
            let read = try Self.read(bytes, chunk: chunk, bodies: bodies)
            let png = try #require(read.entry(2)?.body)
            let stored = try bodies.bytes(of: png)
            let expected = try recorded(1)
            #expect(stored == expected, "chunk size \(chunk)")
            #expect(Int(png.length) == read.entry(2)?.size)
            let jpeg = try #require(read.entry(3)?.body)
            #expect(try bodies.bytes(of: jpeg) == recorded(3))
            let gif = try #require(read.entry(9)?.body)
            #expect(try bodies.bytes(of: gif).starts(with: Array("GIF89a".utf8)))
        }
    }

    // MARK: - Bad input

    static let good = #"{"request": {"method": "GET", "url": "https://h/a.png"}, "response": {"status": 200}}"#

    @Test func truncatedJSONNamesTheByteOffsetAfterTheGoodEntries() throws {
        let bytes = try Self.fixture("chrome.har")
        let cut = Array(bytes.prefix(bytes.count / 2))
        let read = try Self.read(cut)
        let last = try #require(read.summary.last)
        #expect(last.contains("invalid: the HAR's JSON is broken at byte \(cut.count): the JSON ends early"))
        #expect(read.summary.first == "2 https://img.example.com/a.png")
        #expect(read.counts.invalid == 1)
    }

    /// Cut anywhere, a capture gives the lines of the entries before the cut, then one invalid
    /// line naming the cut's offset.
    @Test func cutAnywhere() throws {
        let bytes = try Self.fixture("charles.har")
        let whole = try Self.read(bytes).summary
        for length in stride(from: 0, to: bytes.count, by: 61) {
            let read = try Self.read(Array(bytes.prefix(length)))
            let last = try #require(read.summary.last)
            #expect(
                last.hasSuffix("invalid: the HAR's JSON is broken at byte \(length): the JSON ends early (truncated?)"))
            #expect(whole.starts(with: read.summary.dropLast()), "cut at \(length)")
        }
    }

    /// Damaged anywhere (a structural byte, a quote, a backslash, invalid UTF-8 written over the
    /// capture), the reader never traps, and reads the same lines in 1-byte chunks as whole.
    @Test func damagedCapturesReadTheSameInAnyChunks() throws {
        let original = try Self.fixture("mitmproxy.har")
        let damage: [UInt8] = Array(#"{}[]",:\0e-"#.utf8) + [0xFF, 0xC3, 0x00, 0x0A]
        var state: UInt64 = 0x5EED_4A12
        func next() -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(truncatingIfNeeded: state >> 1)
        }
        for _ in 0..<150 {
            var bytes = original
            for _ in 0...(next() % 3) { bytes[next() % bytes.count] = damage[next() % damage.count] }
            let whole = try Self.read(bytes)
            #expect(try Self.read(bytes, chunk: 1) == whole)
            #expect(!whole.lines.isEmpty)
        }
    }

    @Test func brokenJSONInTheMiddle() throws {
        let read = try Self.read(#"{"log": {"entries": [\#(Self.good), {"request": ]}}"#)
        #expect(read.failed)
        #expect(read.summary.first == "1 https://h/a.png")
        #expect(
            read.summary.last?.hasPrefix("2 invalid: the HAR's JSON is broken at byte 120: unexpected ']'") == true,
            "\(read.summary)")
    }

    @Test func noEntriesArray() throws {
        #expect(
            try Self.read(#"{"log": {"version": "1.2"}}"#).summary == ["1 invalid: the HAR has no log.entries array"])
        #expect(
            try Self.read(#"{"log": {"entries": {}}}"#).summary == [
                "1 invalid: log.entries must be an array, not an object"
            ])
        #expect(
            try Self.read(#"{"log": {"entries": 3}}"#).summary == [
                "1 invalid: log.entries must be an array, not a number"
            ])
        #expect(try Self.read(#"[]"#).summary == ["1 invalid: the HAR is not a JSON object"])
    }

    @Test func badEntriesAreNamedAndTheGoodOnesTaken() throws {
        let text = """
            {"log": {"entries": [
              {"response": {"status": 200}},
              \(Self.good),
              {"request": {"url": "https://h/b.png"}},
              {"request": {"url": 42}, "response": {"status": 200}},
              {"request": {"url": "https://h/c.png"}, "response": {"status": "200"}},
              "not an entry",
              {"request": {}, "response": {}}
            ]}}
            """
        let read = try Self.read(text)
        #expect(
            read.summary == [
                "1 invalid: the entry has no request object",
                "2 https://h/a.png",
                "3 invalid: the entry has no response object",
                "4 invalid: request.url must be a string, not a number",
                "5 invalid: response.status must be a number, not a string",
                "6 invalid: the entry is not an object but a string",
                "7 invalid: request.url is missing",
            ])
        #expect(read.counts == HARList.Counts(entries: 7, images: 1, skipped: 0, invalid: 6))
    }

    @Test func invalidUTF8InAURL() throws {
        var bytes = Array(#"{"log": {"entries": [{"request": {"url": "https://h/"#.utf8)
        bytes += [0xC3, 0x28]
        bytes += Array(#".png"}, "response": {"status": 200}}, \#(Self.good)]}}"#.utf8)
        let read = try Self.read(bytes)
        #expect(read.summary == ["1 invalid: request.url is not valid UTF-8", "2 https://h/a.png"])
    }

    /// A header too long or not UTF-8 is dropped; the entry stays good.
    @Test func unusableHeadersAreDropped() throws {
        var bytes = Array(#"{"log": {"entries": [{"request": {"url": "https://h/a.png", "headers": ["#.utf8)
        bytes +=
            Array(#"{"name": "Cookie", "value": ""#.utf8) + [UInt8](repeating: 0x61, count: 2 << 20)
            + Array(#""}, "#.utf8)
        bytes += Array(#"{"name": "X-Bad", "value": "\#u{1}"#.utf8).dropLast() + [0xFF] + Array(#""}, "#.utf8)
        bytes += Array(#"{"name": "Accept", "value": "image/webp"}]}, "response": {"status": 200}}]}}"#.utf8)
        let read = try Self.read(bytes)
        #expect(read.summary == ["1 https://h/a.png"])
        #expect(read.entry(1)?.requestHeaders == [HAREntry.Header(name: "Accept", value: "image/webp")])
    }

    /// A chain whose last hop was never recorded is judged by the URL the app asked for.
    @Test func unfinishedRedirectChain() throws {
        let text = """
            {"log": {"entries": [
              {"request": {"url": "https://h/x.jpg"}, "response": {"status": 302, "redirectURL": "https://cdn/x.jpg"}},
              {"request": {"url": "https://h/page"}, "response": {"status": 301, "redirectURL": "https://h/page/"}}
            ]}}
            """
        let read = try Self.read(text)
        #expect(read.summary == ["1 https://h/x.jpg"])
        #expect(read.counts.skipped == 1)
    }

    @Test func postAndDataURLsAreNotTaken() throws {
        let text = """
            {"log": {"entries": [
              {"request": {"method": "POST", "url": "https://h/up.png"}, "response": {"status": 200, "content": {"mimeType": "image/png"}}},
              {"request": {"url": "data:image/png;base64,iVBORw0KGgo="}, "response": {"status": 200, "content": {"mimeType": "image/png"}}}
            ]}}
            """
        let read = try Self.read(text)
        #expect(read.summary.isEmpty)
        #expect(read.counts == HARList.Counts(entries: 2, images: 0, skipped: 2, invalid: 0))
    }
}

/// A HAR through the Input stage: image entries queued by their entry numbers, the duplicate
/// found by its key, nothing else.
@Suite struct HARIngestTests {
    @Test(arguments: [("capture.har", ListFormat.auto), ("capture.json", .har)])
    func chromeCaptureThroughLineIngest(_ name: String, _ format: ListFormat) throws {
        let temp = try TemporaryFolder()
        let list = try temp.write(name, Data(try HARReaderTests.fixture("chrome.har")))
        let ingest = LineIngest(
            sources: [ListSource(path: list, format: format)], keyFilters: try KeyFilterChain(specs: []),
            shard: nil, duplicateMemoryLimit: 1000, scratchFolder: temp.path)
        let spools = try Priority.allCases.sorted().map { try EntrySpool(priority: $0, folder: temp.path) }
        var duplicates: [Int] = []
        var invalid: [Int] = []
        try ingest.read(into: spools, order: .fifo) { event in
            switch event {
            case .invalid(let entry): invalid.append(entry.line)
            case .duplicate(let entry): duplicates.append(entry.line)
            case .otherShard, .unsupported: break
            }
        }
        var queued: [String] = []
        for spool in spools {
            while let entry = spool.next() { queued.append("\(entry.line) \(entry.key)") }
        }
        #expect(
            queued == [
                "2 https://img.example.com/a.png", "3 https://img.example.com/r/b", "6 https://img.example.com/c.webp",
                "8 https://img.example.com/d.gif?v=2", "9 https://img.example.com/avatar/42",
            ])
        #expect(duplicates == [5])
        #expect(invalid.isEmpty)
        #expect(ListSource(path: list, format: format).place(3) == "\(list) entry 3")
    }

    /// The variant headers travel through the spool with their entry (and only with it).
    @Test func variantHeadersGoThroughTheSpool() throws {
        let temp = try TemporaryFolder()
        let list = try temp.write("capture.har", Data(try HARReaderTests.fixture("charles.har")))
        let ingest = LineIngest(
            sources: [ListSource(path: list)], keyFilters: try KeyFilterChain(specs: []), shard: nil,
            duplicateMemoryLimit: 1000, scratchFolder: temp.path)
        let spools = try Priority.allCases.sorted().map { try EntrySpool(priority: $0, folder: temp.path) }
        try ingest.read(into: spools, order: .lifo) { _ in }
        var headers: [Int: [String]] = [:]
        for spool in spools {
            while let entry = spool.next() { headers[entry.line] = entry.headers }
        }
        let sent = ["Accept: image/webp,*/*", "User-Agent: MyApp/3.2 CFNetwork/1410 Darwin/22.6.0"]
        #expect(headers == [1: sent, 2: sent])
        #expect(ingest.notImages == 1)
    }

    @Test func headerValuesWithLineBreaksAreNotSent() {
        var entry = HAREntry(number: 1)
        entry.requestHeaders = [
            HAREntry.Header(name: "Accept", value: "image/webp\r\nX-Evil: 1"),
            HAREntry.Header(name: "USER-AGENT", value: "MyApp/1"), HAREntry.Header(name: "Cookie", value: "a=b"),
            HAREntry.Header(name: "X-Api-Key", value: "k"), HAREntry.Header(name: "Accept-Language", value: ""),
        ]
        #expect(entry.variantHeaders == ["User-Agent: MyApp/1"])
        #expect(entry.headersToSend(credentials: false) == ["User-Agent: MyApp/1"])
        #expect(entry.headersToSend(credentials: true) == ["User-Agent: MyApp/1", "Cookie: a=b"])
    }
}
