import Curl

/// How URLs are requested. Defaults are SDWebImage's where it has one.
public struct FetchConfiguration: Sendable {
    /// How many transfers run at once.
    public enum Concurrency: Sendable, Equatable {
        /// As many as each host can serve well: up to `maxPerHost` connections to an HTTP/1.1
        /// host; up to `autoStreamsPerHost` streams to a host that answered over HTTP/2,
        /// `streamsPerConnection` per connection (fewer when the server's
        /// SETTINGS_MAX_CONCURRENT_STREAMS says so: libcurl honours it) on at most `maxPerHost`
        /// connections; `autoTotal` in all.
        case auto
        /// This many transfers in flight, whatever their hosts.
        case fixed(Int)
    }

    /// `.auto` by default. (SDWebImage's `maxConcurrentDownloads` is 6: an app shares its network
    /// with the user; a cache warmer has the link to itself.)
    public var concurrency = Concurrency.auto
    /// With `.auto`, the most connections to one host (HTTP/1.1 needs one per transfer). `8` by
    /// default.
    public var maxPerHost = 8
    /// The most streams on one HTTP/2 connection (libcurl's `CURLMOPT_MAX_CONCURRENT_STREAMS`;
    /// a server's own lower limit wins): the issue's cap, and libcurl's default.
    public static let streamsPerConnection = 100
    /// With `.auto`, the most HTTP/2 streams to one host: two connections' worth. One
    /// connection's 100 streams of a typical 27 KB image hold 2.7 MB in flight, less than a
    /// 100 MB/s link 40 ms away carries per round trip (4 MB), so the link idles between rounds;
    /// with two it stays full (docs/performance.md, "Latency").
    public static let autoStreamsPerHost = 2 * streamsPerConnection
    /// With `.auto`, the most transfers in flight over all hosts.
    public static let autoTotal = 256
    /// Seconds without a byte before a transfer (or a connection attempt) gives up
    /// (SDWebImage's `downloadTimeout`): an inactivity timeout, counted from when the request is
    /// sent and then from the last byte received, however fast the bytes before it came.
    /// `15` by default.
    public var timeout = 15.0
    /// Seconds one whole transfer may take; `0` for no limit. `300` by default, so a server that
    /// trickles a byte at a time cannot hold a slot forever.
    public var maxTime = 300.0
    /// The largest body stored, counted after content decoding and enforced while receiving.
    /// `52_428_800` (50 MiB) by default.
    public var maxBytes = 50 << 20
    /// Redirects followed, each to http or https only. `10` by default.
    public var maxRedirects = 10
    /// Extra or replacing request headers, `Name: value` (`Name:` removes a default one).
    /// None by default.
    public var headers: [String] = []
    /// The `User-Agent`. `imgwarm/<version>` by default.
    public var userAgent = "imgwarm/\(ImgwarmVersion.current)"
    /// Use HTTP/1.1 even where the server offers HTTP/2. `false` by default.
    public var http1Only = false
    /// A PEM file of certificate authorities to trust instead of the system's. None by default.
    public var caCertificates: String?
    /// Skip TLS verification (SDWebImage's `AllowInvalidSSLCertificates`). `false` by default.
    public var insecure = false
    /// Why libcurl cannot use `file` as `caCertificates` (unreadable, no certificate in it, or
    /// a certificate it cannot parse), or nil when it can. libcurl would otherwise fail every
    /// https transfer with a TLS error, a permanent failure. Runs one TLS handshake on loopback
    /// (`Curl.certificateAuthoritiesProblem`).
    public static func certificateAuthoritiesProblem(file: String) -> String? {
        Curl.certificateAuthoritiesProblem(file: file)
    }

    /// A netrc file with credentials (used only for hosts it names). None by default.
    public var netrcFile: String?
    /// The proxy for every request, `[scheme://][user:password@]host[:port]` (http, https,
    /// socks4, socks4a, socks5, socks5h), `""` for none whatever the environment says; nil takes
    /// the environment's (`http_proxy`, `https_proxy`, `all_proxy`). None by default.
    public var proxy: String?
    /// Hosts reached directly, comma-separated (`*`: all); nil takes `no_proxy`. None by default.
    public var noProxy: String?
    /// Bodies up to this size stay in memory; larger ones are written to a temporary file as
    /// they arrive. `4 MiB` by default.
    public var memoryBodyLimit = 4 << 20
    /// The `Accept` header sent unless `headers` replaces it.
    public var accept = "image/*,*/*;q=0.8"

    public init() {}

    /// The most transfers in flight at once.
    var maxInFlight: Int {
        switch concurrency {
        case .auto: return FetchConfiguration.autoTotal
        case .fixed(let count): return max(1, count)
        }
    }

    /// A fingerprint of what decides whether a server accepts this client, for the blacklist
    /// entries of failures that depend on it (TLS, 401, 403, 407: `FailureReason.dependsOnClient`):
    /// the CA file, `insecure`, the request headers, the netrc file, the user agent and the
    /// proxy. The first 16 hex digits of an MD5 of them: the headers (which may carry tokens) and
    /// the proxy (which may carry a password) are never stored as such.
    public var clientFingerprint: String {
        let parts =
            [
                "ca=\(caCertificates ?? "")", "insecure=\(insecure)", "netrc=\(netrcFile ?? "")",
                "agent=\(userAgent)", "proxy=\(proxy ?? "(environment)")", "noproxy=\(noProxy ?? "(environment)")",
            ] + requestHeaders.map { "header=" + $0 }
        return String(MD5.digest(Array(parts.joined(separator: "\n").utf8)).hex.prefix(16))
    }

    /// `timeout` in whole milliseconds (at least 1), for the progress callback's comparison.
    var timeoutMilliseconds: Int64 { max(1, Int64((timeout * 1000).rounded())) }

    /// The request headers: defaults, then `headers` adding to or replacing them.
    var requestHeaders: [String] {
        var result = ["Accept: \(accept)"]
        for header in headers {
            let name = header.split(separator: ":", maxSplits: 1).first.map { $0.trimmingCharacters(in: " ") }
            if let name {
                result.removeAll { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            }
            result.append(header)
        }
        return result
    }
}

extension Substring {
    func trimmingCharacters(in characters: String) -> String {
        var text = self
        while let first = text.first, characters.contains(first) { text = text.dropFirst() }
        while let last = text.last, characters.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
