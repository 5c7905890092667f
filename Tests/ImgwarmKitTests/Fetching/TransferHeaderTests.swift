import Testing

@testable import ImgwarmKit

/// The response-header facts a transfer keeps: validators only when they are safe to echo back,
/// the scheme of a `Location`, and only the latest response's, fed line by line as libcurl hands
/// them over.
@Suite struct TransferHeaderTests {
    @Test func safeValidators() {
        #expect(ResponseHeaders.isSafeValidator("\"5e1f-abc\""))
        #expect(ResponseHeaders.isSafeValidator("W/\"weak\""))
        #expect(ResponseHeaders.isSafeValidator("Tue, 03 Nov 2026 10:00:00 GMT"))
        #expect(ResponseHeaders.isSafeValidator(String(repeating: "x", count: ResponseHeaders.validatorLimit)))
        #expect(!ResponseHeaders.isSafeValidator(""))
        #expect(!ResponseHeaders.isSafeValidator("\"a\u{07}b\""), "a control character")
        #expect(!ResponseHeaders.isSafeValidator("\"a\tb\""), "a tab")
        #expect(!ResponseHeaders.isSafeValidator("\"a\u{7F}b\""), "DEL")
        #expect(!ResponseHeaders.isSafeValidator("\"é\""), "not ASCII")
        #expect(
            !ResponseHeaders.isSafeValidator(String(repeating: "x", count: ResponseHeaders.validatorLimit + 1)),
            "over 1 KiB")
    }

    @Test func locationSchemes() {
        #expect(ResponseHeaders.scheme(of: "ftp://127.0.0.1/a.png") == "ftp")
        #expect(ResponseHeaders.scheme(of: "FILE:///etc/passwd") == "file")
        #expect(ResponseHeaders.scheme(of: "https://a.example/x") == "https")
        #expect(ResponseHeaders.scheme(of: "svn+ssh://x") == "svn+ssh")
        #expect(ResponseHeaders.scheme(of: "/img/a.png") == nil)
        #expect(ResponseHeaders.scheme(of: "a.png") == nil)
        #expect(ResponseHeaders.scheme(of: "./x:y") == nil)
        #expect(ResponseHeaders.scheme(of: "1ab:x") == nil)
    }

    /// `ResponseHeaders` after the header lines `lines` (each given its CRLF).
    static func headers(_ lines: [String]) -> ResponseHeaders {
        var headers = ResponseHeaders()
        for line in lines {
            Array((line + "\r\n").utf8).withUnsafeBytes { headers.take($0) }
        }
        return headers
    }

    @Test func fieldsAreReadAndCacheControlIsFolded() {
        let headers = Self.headers([
            "HTTP/1.1 200 OK", "etag: \"a1\"", "Last-Modified: Tue, 03 Nov 2026 10:00:00 GMT",
            "Cache-Control: public", "CACHE-CONTROL:  max-age=60 ", "Content-Type: image/png", "Retry-After: 7",
            "Location: ftp://x/y", "Content-Length: 10", "X-Other: ignored", "",
        ])
        #expect(
            headers
                == ResponseHeaders(
                    etag: "\"a1\"", lastModified: "Tue, 03 Nov 2026 10:00:00 GMT", cacheControl: "public, max-age=60",
                    contentType: "image/png", retryAfter: "7"
                ).with {
                    $0.locationScheme = "ftp"
                    $0.contentLength = 10
                })
        #expect(Self.headers(["HTTP/1.1 200 OK", "ETag: \"a\u{07}\""]).etag == nil, "an unsafe validator is dropped")
    }

    /// Each status line starts a new response: a redirect's, a `100 Continue`'s or a proxy's
    /// `CONNECT` answer's headers are gone once the next response begins, and what the final one
    /// gives is all that is left.
    @Test(arguments: [
        ["HTTP/1.1 302 Found", "Location: /b", "ETag: \"r\"", "Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT"],
        ["HTTP/1.1 100 Continue", "ETag: \"r\"", "Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT"],
        ["HTTP/1.1 200 Connection established", "ETag: \"r\"", "Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT"],
    ])
    func aNewStatusLineForgetsThePreviousResponse(earlier: [String]) {
        let before =
            earlier + [
                "Cache-Control: max-age=31536000", "Content-Type: text/html", "Retry-After: 120", "Content-Length: 5",
                "Content-Length: 6", "",
            ]
        let bare = Self.headers(before + ["HTTP/1.1 200 OK", "Transfer-Encoding: chunked", ""])
        #expect(bare == ResponseHeaders(), "nothing of the earlier response is left")
        let other = Self.headers(
            before + ["HTTP/2 200", "etag: \"final\"", "cache-control: max-age=60", "content-type: image/gif", ""])
        #expect(
            other
                == ResponseHeaders(etag: "\"final\"", cacheControl: "max-age=60", contentType: "image/gif").with {
                    $0.multiplexed = true
                })
        #expect(Self.headers(["HTTP/2 302", "HTTP/1.1 200 OK"]).multiplexed == false)
    }
}

extension ResponseHeaders {
    fileprivate func with(_ change: (inout ResponseHeaders) -> Void) -> ResponseHeaders {
        var copy = self
        change(&copy)
        return copy
    }
}
