import ImgwarmSystem
import Testing

@testable import ImgwarmKit

/// OkHttp's `<key>.0` as `Cache.Entry.writeTo` writes it (docs/cache-formats-android.md,
/// "OkHttp"), for the cases the loopback tests cannot make: an HTTP/2 status line, folded case in
/// `Vary`, an https entry without a TLS session, the run's own `--user-agent`.
@Suite struct OkHttpEntryTests {
    static func response(_ url: String, status: String, fields: [String], tls: TLSSession? = nil)
        -> CacheIndexResponse
    {
        var headers = ResponseHeaders()
        headers.head = ResponseHead(statusLine: status, fields: fields)
        headers.head?.tls = tls
        return CacheIndexResponse(
            key: url, url: url, headers: headers, receivedAt: Timestamp(seconds: 1_700_000_000, nanoseconds: 5_000_000),
            length: 1)
    }

    @Test func http2ResponsesAndVaryNamesAsOkHttpWritesThem() {
        let entry = OkHttpEntry(profile: RequestProfile(userAgent: "okhttp/3.12.13"))
        let text = entry.metadata(
            url: "http://h.example:8080/a.png",
            response: Self.response(
                "http://h.example:8080/a.png", status: "HTTP/2 200",
                fields: ["content-type: image/png", "vary: user-agent, ACCEPT-encoding", "cache-control:max-age=60 "]))
        #expect(
            text == """
                http://h.example:8080/a.png
                GET
                2
                Accept-Encoding: gzip
                User-Agent: okhttp/3.12.13
                HTTP/1.1 200 \n5
                content-type: image/png
                vary: user-agent, ACCEPT-encoding
                cache-control: max-age=60
                OkHttp-Sent-Millis: 1700000000005
                OkHttp-Received-Millis: 1700000000005

                """)
    }

    @Test func httpsWithoutASessionStillHasTheBlockOkHttpNeeds() {
        let entry = OkHttpEntry(profile: RequestProfile(userAgent: "okhttp/3.12.13"), freshness: 600)
        let text = entry.metadata(
            url: "https://h.example/a.png",
            response: Self.response(
                "https://h.example/a.png", status: "HTTP/1.0 200 OK", fields: ["Expires: 0", "Cache-Control: no-cache"])
        )
        #expect(
            text.hasSuffix(
                "HTTP/1.0 200 OK\n3\nCache-Control: max-age=600\nOkHttp-Sent-Millis: 1700000000005\nOkHttp-Received-Millis: 1700000000005\n\nTLS_AES_128_GCM_SHA256\n0\n0\nTLSv1.3\n"
            ), "\(text)")
    }

    @Test func theRunsOwnUserAgentWinsOverTheProfiles() {
        var configuration = FetchConfiguration()
        configuration.profile = RequestProfile(userAgent: "okhttp/4.9.1")
        #expect(configuration.effectiveUserAgent == "okhttp/4.9.1")
        #expect(configuration.requestHeaders.contains("Accept-Encoding: gzip"))
        configuration.userAgent = "MyApp/2"
        #expect(configuration.effectiveUserAgent == "MyApp/2")
    }
}
