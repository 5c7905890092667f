import Testing

@testable import ImgwarmKit

/// Which proxy a request goes through, as libcurl decides it, and what of it the client
/// fingerprint holds (issue 31).
@Suite struct ProxyRouteTests {
    /// Every setting that changes where requests go changes the fingerprint: `--proxy`,
    /// `--noproxy`, and the environment's proxies where those are left out.
    @Test func theFingerprintChangesWithTheProxy() {
        let plain = FetchConfiguration()
        var fingerprints: Set<String> = [plain.clientFingerprint]
        var explicit = plain
        explicit.proxy = "http://proxy.example:3128"
        var other = plain
        other.proxy = "http://user:pw@proxy.example:3128"
        var none = plain
        none.proxy = ""
        var excepted = plain
        excepted.noProxy = "images.example"
        var environment = plain
        environment.proxyEnvironment = ProxyEnvironment(environment: ["http_proxy": "http://proxy.example:3128"])
        var environmentHTTPS = plain
        environmentHTTPS.proxyEnvironment = ProxyEnvironment(environment: ["HTTPS_PROXY": "http://proxy.example:3128"])
        var environmentExcepted = plain
        environmentExcepted.proxyEnvironment = ProxyEnvironment(environment: ["no_proxy": "images.example"])
        for configuration in [explicit, other, none, excepted, environment, environmentHTTPS, environmentExcepted] {
            #expect(fingerprints.insert(configuration.clientFingerprint).inserted)
        }
        // With --proxy, the environment's proxies are not used, and do not count.
        var both = explicit
        both.proxyEnvironment = environment.proxyEnvironment
        #expect(both.clientFingerprint == explicit.clientFingerprint)
        // Without proxy variables, the fingerprint is the one older versions recorded.
        var unrelated = plain
        unrelated.proxyEnvironment = ProxyEnvironment(environment: ["HTTP_PROXY": "http://ignored:1", "PATH": "/bin"])
        #expect(unrelated.clientFingerprint == plain.clientFingerprint)
    }

    /// libcurl's choice: `--proxy` for every URL, else the variable of the URL's scheme
    /// (`http_proxy`, never `HTTP_PROXY`; `https_proxy` or `HTTPS_PROXY`), else `all_proxy`;
    /// none for a host the no-proxy list names.
    @Test func theProxyOfAURLIsLibcurls() {
        var c = FetchConfiguration()
        c.proxyEnvironment = ProxyEnvironment(environment: [
            "HTTP_PROXY": "http://upper:1", "HTTPS_PROXY": "http://secure:2", "ALL_PROXY": "socks5h://all:3",
            "NO_PROXY": "local.example, 10.0.0.0/8",
        ])
        #expect(c.proxy(for: "http://images.example/a.jpg")?.displayName == "socks5h://all:3")
        #expect(c.proxy(for: "https://images.example/a.jpg")?.displayName == "http://secure:2")
        #expect(c.proxy(for: "https://cdn.local.example/a.jpg") == nil)
        #expect(c.proxy(for: "http://10.1.2.3/a.jpg") == nil)
        #expect(c.proxy(for: "http://11.1.2.3/a.jpg")?.displayName == "socks5h://all:3")
        c.noProxy = ""
        #expect(c.proxy(for: "https://cdn.local.example/a.jpg")?.displayName == "http://secure:2")
        c.proxy = "http://u:p@explicit:4"
        #expect(c.proxy(for: "https://cdn.local.example/a.jpg")?.displayName == "http://explicit:4")
        c.proxy = ""
        #expect(c.proxy(for: "https://images.example/a.jpg") == nil)
    }

    /// libcurl 7.88's no-proxy rules (`Curl_check_noproxy`).
    @Test func theNoProxyListIsReadAsLibcurlReadsIt() {
        let list = "example.com, .other.org ,10.0.0.0/8 192.168.1.1,[::1]"
        for host in ["example.com", "www.example.com", "EXAMPLE.com.", "other.org", "a.other.org", "10.9.8.7"] {
            #expect(FetchConfiguration.isExcepted(host, by: list), "\(host)")
        }
        for host in ["badexample.com", "example.co", "11.0.0.1", "192.168.1.2", "notother.org"] {
            #expect(!FetchConfiguration.isExcepted(host, by: list), "\(host)")
        }
        #expect(FetchConfiguration.isExcepted("anything", by: "*"))
        #expect(!FetchConfiguration.isExcepted("anything", by: ""))
    }
}
