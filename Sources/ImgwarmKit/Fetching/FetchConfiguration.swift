import Curl

/// How URLs are requested. Defaults are SDWebImage's where it has one.
public struct FetchConfiguration: Sendable {
    /// Body bytes received per second, all transfers together; `0` for no limit (`Downloader`
    /// pauses transfers that would go over it: `ByteRateLimit`). `0` by default.
    public var limitRate = 0
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
    /// The proxy variables of the environment libcurl reads where `proxy` (or `noProxy`) is nil,
    /// handed over by the caller: they name the proxy in messages and count in
    /// `clientFingerprint`. None by default.
    public var proxyEnvironment = ProxyEnvironment()
    /// Bodies up to this size stay in memory; larger ones are written to a temporary file as
    /// they arrive. `4 MiB` by default.
    public var memoryBodyLimit = 4 << 20
    /// Send a HAR entry's recorded `Cookie` and `Authorization` too (`--replay-credentials`).
    /// `false` by default: credentials never leave the machine unless asked.
    public var replayCredentials = false
    /// The `Accept` header sent unless `headers` replaces it.
    public var accept = "image/*,*/*;q=0.8"
    /// How the app's own client asks, when the cache keeps its requests and responses whole
    /// (`RequestProfile`): its `Accept-Encoding` (bodies then stored as received, not decoded),
    /// its `User-Agent` where `userAgent` is the default, every response's head kept. None by default.
    public var profile: RequestProfile?

    /// The `User-Agent` sent: `userAgent`, or the profile's when `userAgent` is the default.
    public var effectiveUserAgent: String {
        guard let profile, userAgent == FetchConfiguration().userAgent else { return userAgent }
        return profile.userAgent
    }

    public init() {}

    /// A fingerprint of what decides whether a server accepts this client, for the blacklist
    /// entries of failures that depend on it (TLS, 401, 403, 407: `FailureReason.dependsOnClient`):
    /// the CA file, `insecure`, the request headers, whether recorded credentials are replayed, the
    /// netrc file, the user agent, and where
    /// requests go: the proxy and the hosts reached without it, the environment's where those
    /// are nil (`proxyEnvironment`). The first 16 hex digits of an MD5 of them: the headers
    /// (which may carry tokens) and the proxy (which may carry a password) are never stored as such.
    public var clientFingerprint: String {
        let parts =
            [
                "ca=\(caCertificates ?? "")", "insecure=\(insecure)", "netrc=\(netrcFile ?? "")",
                "agent=\(userAgent)", "credentials=\(replayCredentials ? "replayed" : "not sent")",
                "proxy=\(proxy ?? proxyEnvironment.fingerprintText)",
                "noproxy=\(noProxy ?? proxyEnvironment.noProxy.map { "(environment) " + $0 } ?? "(environment)")",
            ] + requestHeaders.map { "header=" + $0 }
        return String(MD5.digest(Array(parts.joined(separator: "\n").utf8)).hex.prefix(16))
    }

    /// `timeout` in whole milliseconds (at least 1), for the progress callback's comparison.
    var timeoutMilliseconds: Int64 { max(1, Int64((timeout * 1000).rounded())) }

    /// The request headers: defaults, then `headers` adding to or replacing them.
    var requestHeaders: [String] { requestHeaders(recorded: []) }

    /// The request headers of an entry with `recorded` headers (`PendingEntry.headers`): the
    /// defaults, replaced by the recorded ones of the same name, then `headers` (`--header`)
    /// adding to or replacing them all.
    func requestHeaders(recorded: [String]) -> [String] {
        var result = ["Accept: \(accept)"]
        if let profile { result.append("Accept-Encoding: \(profile.acceptEncoding)") }
        for header in recorded + headers {
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
