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

    /// A captured response (`--offline` from a HAR, issue 47) is moved to the moment it is
    /// stored: its dates by the capture's age, the sent time with them, `Age` kept; its `Vary`
    /// lines are the recorded request's, the client's own for a name the capture did not record.
    @Test func aCapturedResponseIsMovedToTheMomentItIsStored() throws {
        var response = Self.response(
            "http://h.example/a.png", status: "HTTP/1.1 200 OK",
            fields: [
                "Date: Wed, 01 May 2024 10:00:00 GMT", "Expires: Wed, 01 May 2024 11:00:00 GMT",
                "Last-Modified: Mon, 01 Apr 2024 10:00:00 GMT", "Age: 30", "Vary: Accept-Encoding, User-Agent",
                "Cache-Control: public",
            ])
        response.headers.head?.captured = CapturedExchange(
            requestFields: ["Accept-Encoding: gzip, br"], sentMillis: 1_714_557_599_900,
            receivedMillis: 1_714_557_600_000)
        // Stored 31 days after the capture received it.
        response.receivedAt = Timestamp(seconds: 1_717_236_000)
        let entry = OkHttpEntry(profile: RequestProfile(userAgent: "okhttp/3.12.13"))
        let text = entry.metadata(url: "http://h.example/a.png", response: response)
        #expect(
            text == """
                http://h.example/a.png
                GET
                2
                Accept-Encoding: gzip, br
                User-Agent: okhttp/3.12.13
                HTTP/1.1 200 OK
                8
                Date: Sat, 01 Jun 2024 10:00:00 GMT
                Expires: Sat, 01 Jun 2024 11:00:00 GMT
                Last-Modified: Thu, 02 May 2024 10:00:00 GMT
                Age: 30
                Vary: Accept-Encoding, User-Agent
                Cache-Control: public
                OkHttp-Sent-Millis: 1717235999900
                OkHttp-Received-Millis: 1717236000000

                """)
        // As fresh as when the app received it: an hour from Date, less its age of 30 s.
        let judged = entry.judge(hitWith: Array(text.utf8), now: Timestamp(seconds: 1_717_236_000 + 3000))
        #expect(judged == .serves("OkHttp serves it offline until 2024-06-01T10:59:29.900Z"), "\(judged)")
        // Without the capture's times, its recorded Date says when it was received.
        response.headers.head?.captured = CapturedExchange(requestFields: [])
        let byDate = entry.metadata(url: "http://h.example/a.png", response: response)
        #expect(byDate.contains("\nDate: Sat, 01 Jun 2024 10:00:00 GMT\n"), "\(byDate)")
        #expect(byDate.contains("\nOkHttp-Sent-Millis: 1717236000000\n"), "\(byDate)")
        for (millis, text) in [
            (Int64(0), "Thu, 01 Jan 1970 00:00:00 GMT"), (951_782_400_000, "Tue, 29 Feb 2000 00:00:00 GMT"),
            (-1000, "Wed, 31 Dec 1969 23:59:59 GMT"), (4_102_444_799_999, "Thu, 31 Dec 2099 23:59:59 GMT"),
        ] {
            #expect(OkHttpCapture.httpDate(millis: millis) == text)
            #expect(OkHttpCapture.date(millisOf: text) == millis - (millis % 1000 + 1000) % 1000)
        }
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
