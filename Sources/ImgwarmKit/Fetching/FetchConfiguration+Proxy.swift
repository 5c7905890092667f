import Curl

/// Which proxy a request goes through. libcurl decides and connects; the engine repeats its
/// decision only to name the proxy when the proxy, not the URL's host, failed or refused.
extension FetchConfiguration {
    /// Why libcurl would not use `text` as a proxy (`CurlProxy.Problem`), in words that never
    /// repeat the value; nil when it would, and for `""` (no proxy).
    public static func proxyProblem(_ text: String) -> String? {
        guard !text.isEmpty, case .failure(let problem) = CurlProxy.parse(text) else { return nil }
        return problem.description
    }

    /// Whether any request may go through a proxy: `proxy`, or without it a proxy variable.
    var mayUseProxy: Bool {
        if let proxy { return !proxy.isEmpty }
        return !proxyEnvironment.proxies.isEmpty
    }

    /// The proxy libcurl sends a request for `url` through, or nil when it connects directly:
    /// `proxy`, else the environment's variable for the URL's scheme, unless `noProxy` (else the
    /// environment's `no_proxy`) names the URL's host. A proxy libcurl would drop for its user
    /// name or password (refused before a run) is still named: where requests should have gone.
    func proxy(for url: String) -> CurlProxy? {
        let scheme = ResponseHeaders.scheme(of: url) ?? "http"
        guard let text = proxy ?? proxyEnvironment.variable(forScheme: scheme)?.value, !text.isEmpty,
            case .success(let found) = CurlProxy.parse(text, credentials: false)
        else { return nil }
        if let host = URIReference(url)?.host,
            FetchConfiguration.isExcepted(String(host), by: noProxy ?? proxyEnvironment.noProxy ?? "")
        {
            return nil
        }
        return found
    }

    /// Whether the no-proxy list `list` names `host`, by libcurl 7.88's rules (`Curl_check_noproxy`):
    /// `*` alone names every host; otherwise entries separated by commas or blanks, each a name
    /// that matches the host or a domain it is in (`example.com` names `www.example.com`, never
    /// `badexample.com`; a leading or trailing dot is ignored), or an IP address, IPv4 with an
    /// optional `/bits` prefix length.
    static func isExcepted(_ host: String, by list: String) -> Bool {
        guard !host.isEmpty, !list.isEmpty else { return false }
        if list == "*" { return true }
        var name = host.lowercased()
        let isIPv6 = name.hasPrefix("[")
        if isIPv6 { name = String(name.dropFirst().prefix { $0 != "]" }) }
        let ipv4 = FetchConfiguration.ipv4(name)
        if ipv4 == nil && !isIPv6 && name.hasSuffix(".") { name.removeLast() }
        let entries = list.lowercased().split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
        for entry in entries {
            if isIPv6 {
                if entry == name { return true }
            } else if let address = ipv4 {
                let parts = entry.split(separator: "/", maxSplits: 1)
                guard let network = FetchConfiguration.ipv4(String(parts[0])) else { continue }
                let bits = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                let mask: UInt32 = bits <= 0 || bits >= 32 ? .max : ~(UInt32.max >> UInt32(bits))
                if address & mask == network & mask { return true }
            } else {
                var token = Substring(entry)
                if token.hasSuffix(".") { token = token.dropLast() }
                if token.hasPrefix(".") { token = token.dropFirst() }
                if token == name || (name.hasSuffix("." + token) && !token.isEmpty) { return true }
            }
        }
        return false
    }

    /// A dotted IPv4 address as a number; nil for anything else.
    static func ipv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }
}
