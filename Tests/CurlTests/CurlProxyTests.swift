import Curl
import Testing

/// A proxy read as libcurl 7.88 reads one (`parse_proxy`), through its own URL API.
@Suite struct CurlProxyTests {
    @Test func aProxyIsReadAsLibcurlReadsIt() throws {
        let cases: [(String, String)] = [
            ("proxy.example:3128", "http://proxy.example:3128"),
            ("HTTP://user:pw@proxy.example:3128/", "http://proxy.example:3128"),
            ("https://proxy.example", "https://proxy.example:443"),
            ("socks5h://u:p@10.0.0.1", "socks5h://10.0.0.1:1080"),
            ("http://[::1]:8080", "http://[::1]:8080"),
            ("http://user:p%41ss@proxy.example:1", "http://proxy.example:1"),
        ]
        for (text, name) in cases {
            let proxy = try CurlProxy.parse(text).get()
            #expect(proxy.displayName == name, "\(text)")
        }
    }

    /// The values libcurl would not use, the one it drops without a word (`%00` in the user name
    /// or password) first; the words never hold the value.
    @Test func aValueLibcurlWouldNotUseIsAProblem() {
        let cases: [(String, CurlProxy.Problem)] = [
            ("http://user:s3cret%00@proxy.example:3128", .zeroByteInCredentials),
            ("http://s3cret%00:pw@proxy.example:3128", .zeroByteInCredentials),
            ("ftp://user:s3cret@proxy.example:21", .scheme("ftp")),
        ]
        for (text, problem) in cases {
            #expect(throws: problem, "\(text)") { try CurlProxy.parse(text).get() }
            #expect(!problem.description.contains("s3cret"))
        }
        for text in ["http://[::1", "http://proxy.example:99999", "http://pro xy:1", ""] {
            #expect(throws: CurlProxy.Problem.self, "\(text)") { try CurlProxy.parse(text).get() }
        }
    }
}
