import ImgwarmSystem
import Testing

@testable import ImgwarmKit

/// `<key>.0` read as OkHttp's `Cache.Entry(Source)` reads it, within imgwarm's bounds (issue 47):
/// hostile counts and lengths are refused with the reason, at once, never looped over.
@Suite struct OkHttpMetadataTests {
    static let writer = OkHttpEntry(profile: RequestProfile(userAgent: "okhttp/3.12.13"))

    static func written(_ url: String, fields: [String], tls: TLSSession? = nil) -> [UInt8] {
        Array(
            writer.metadata(
                url: url,
                response: OkHttpEntryTests.response(url, status: "HTTP/1.1 200 OK", fields: fields, tls: tls)
            ).utf8)
    }

    /// The file imgwarm writes reads back whole: what the writer put in, OkHttp's own two fields apart.
    @Test func whatImgwarmWritesReadsBack() throws {
        let tls = TLSSession(
            cipherSuite: "TLS_AES_256_GCM_SHA384", version: "TLSv1.2", peerCertificates: ["AAAA", "BBBB"])
        let bytes = Self.written(
            "https://h.example/a.png", fields: ["Content-Type: image/png", "Vary: User-Agent", "ETag: \"x\""], tls: tls)
        let metadata = try OkHttpMetadata(bytes)
        #expect(metadata.url == "https://h.example/a.png" && metadata.method == "GET")
        #expect(metadata.varyLines == ["User-Agent: okhttp/3.12.13"])
        #expect(metadata.status == 200 && metadata.statusLine == "HTTP/1.1 200 OK")
        #expect(metadata.fields.map(\.0) == ["Content-Type", "Vary", "ETag"])
        #expect(metadata.values("etag") == ["\"x\""])
        #expect(metadata.sentMillis == 1_700_000_000_005 && metadata.receivedMillis == 1_700_000_000_005)
        #expect(
            metadata.handshake
                == OkHttpMetadata.Handshake(
                    cipherSuite: "TLS_AES_256_GCM_SHA384", peerCertificates: ["AAAA", "BBBB"], localCertificates: [],
                    tlsVersion: "TLSv1.2"))
    }

    static func reason(_ text: String) -> String? {
        do {
            _ = try OkHttpMetadata(Array(text.utf8))
            return nil
        } catch {
            return error.reason
        }
    }

    /// Every count OkHttp reads with `readInt` (Vary lines, header lines, each certificate list)
    /// is refused past 2^31−1 as OkHttp refuses it, past imgwarm's limit, or where the file ends
    /// before the lines it counts: a count of 2^63−1 once made `verify` spin for ever.
    @Test func hostileCountsAreRefusedWithTheReason() throws {
        let head = "http://h.example/a.png\nGET\n"
        let status = "HTTP/1.1 200 OK\n"
        let cases: [(text: String, reason: String)] = [
            (head + "9223372036854775807\n" + status + "0\n", "outside the 0…2147483647 OkHttp reads"),
            (head + "99999999999999999999999\n" + status + "0\n", "outside the 0…2147483647 OkHttp reads"),
            (head + "-1\n" + status + "0\n", "outside the 0…2147483647 OkHttp reads"),
            (head + "2147483647\n" + status + "0\n", "more than the 256 imgwarm reads"),
            // Three Vary lines take the status line and the count with them: the file ends early.
            (head + "3\nA: b\n" + status + "0\n", "the file ends before the status line"),
            (head + "1x\n" + status + "0\n", "is not a number"),
            (head + "\n" + status + "0\n", "is not a number"),
            (head + "0\n" + status + "2147483647\n", "more than the 1024 imgwarm reads"),
            (head + "0\n" + status + "9223372036854775807\n", "outside the 0…2147483647 OkHttp reads"),
            (head + "0\n" + status + "40\nA: b\n", "the file ends before a response header"),
            (head + "0\nHTTP/2 200\n0\n", "StatusLine.parse refuses"),
            (head + "0\nHTTP/1.1 2000 OK\n0\n", "StatusLine.parse refuses"),
            (head + "0\n" + status + "0", "ends in the middle of the count of response headers"),
            ("http://h.example/a.png\nGET", "ends in the middle of the request method"),
            ("", "the file ends before the URL"),
        ]
        for (text, expected) in cases {
            let reason = Self.reason(text)
            #expect(reason?.contains(expected) == true, "\(text.debugDescription): \(reason ?? "read")")
        }
        let https = "https://h.example/a.png\nGET\n0\n" + status + "0\n"
        let handshakes: [(text: String, reason: String)] = [
            (https, "the file ends before the blank line"),
            (https + "x\nTLS_AES_128_GCM_SHA256\n0\n0\n", "expects a blank line before the handshake"),
            (https + "\nTLS_AES_128_GCM_SHA256\n2147483647\n", "the count of peer certificates is 2147483647"),
            (https + "\nTLS_AES_128_GCM_SHA256\n9223372036854775807\n", "outside the 0…2147483647"),
            (https + "\nTLS_AES_128_GCM_SHA256\n0\n5\n", "the file ends before a local certificate"),
        ]
        for (text, expected) in handshakes {
            let reason = Self.reason(text)
            #expect(reason?.contains(expected) == true, "\(text.debugDescription): \(reason ?? "read")")
        }
        // The TLS version may be missing (OkHttp then takes SSL 3.0).
        #expect(Self.reason(https + "\nTLS_AES_128_GCM_SHA256\n0\n0\n") == nil)
    }

    /// A line or a file past imgwarm's bounds is refused before it is all looked at.
    @Test func hostileLengthsAreRefusedWithTheReason() {
        let long = "http://h.example/" + String(repeating: "a", count: 70_000) + "\nGET\n0\nHTTP/1.1 200 OK\n0\n"
        #expect(Self.reason(long)?.contains("longer than the 65536 bytes imgwarm reads of a line") == true)
        let noBreak = String(repeating: "a", count: 200_000)
        #expect(Self.reason(noBreak)?.contains("longer than the 65536 bytes") == true)
        let huge = [UInt8](repeating: UInt8(ascii: "\n"), count: (1 << 20) + 1)
        #expect(throws: OkHttpMetadata.Unreadable.self) { try OkHttpMetadata(huge) }
        var small = OkHttpMetadata.Limits()
        small.lineBytes = 12
        #expect(throws: OkHttpMetadata.Unreadable.self) {
            try OkHttpMetadata(Array("0123456789ABC\n".utf8), limits: small)
        }
        #expect((try? OkHttpMetadata(Array("0123456789\nGET\n0\nHTTP/1.0 200\n0\n".utf8), limits: small)) != nil)
    }

    /// Every cut of a real file reads or is refused, never anything else (each prefix is a file a
    /// crash or a full disk could leave).
    @Test func everyPrefixOfAFileReadsOrIsRefused() {
        let tls = TLSSession(cipherSuite: "TLS_AES_128_GCM_SHA256", version: "TLSv1.3", peerCertificates: ["QUJD"])
        let bytes = Self.written("https://h.example/a.png", fields: ["ETag: \"x\"", "Vary: Accept-Encoding"], tls: tls)
        var read = 0
        for end in 0...bytes.count {
            if (try? OkHttpMetadata(Array(bytes[..<end]))) != nil { read += 1 }
        }
        // The whole file, and the file without its TLS version line (OkHttp allows that).
        #expect(read == 2)
    }

    /// `verify`'s judgement of a hit: a file OkHttp cannot read is a `bad-metadata` miss with the
    /// reason; a readable one is served or stale by `CacheStrategy`.
    @Test func judgementsOfReadableAndHostileFiles() {
        let now = Timestamp(seconds: 1_700_000_100)
        let fresh = Self.written("http://h.example/a.png", fields: ["Cache-Control: max-age=3600"])
        #expect(
            Self.writer.judge(hitWith: fresh, now: now)
                == .serves("OkHttp serves it offline until 2023-11-14T23:13:20.005Z"))
        let stale = Self.written("http://h.example/a.png", fields: ["Cache-Control: max-age=60", "ETag: \"v1\""])
        guard case .stale(let since, let words) = Self.writer.judge(hitWith: stale, now: now) else {
            Issue.record("a max-age=60 entry 100 s old is stale")
            return
        }
        #expect(since == Timestamp(seconds: 1_700_000_060, nanoseconds: 5_000_000))
        #expect(words.contains("ETag lets the app revalidate it cheaply"), "\(words)")
        let hostile = Array("http://h.example/a.png\nGET\n9223372036854775807\n".utf8)
        guard case .miss(.badMetadata, let why) = Self.writer.judge(hitWith: hostile, now: now) else {
            Issue.record("a hostile count is a bad-metadata miss")
            return
        }
        #expect(why.contains("OkHttp cannot read its metadata"), "\(why)")
    }
}
