import CCurl

/// A proxy as libcurl reads `CURLOPT_PROXY` (and `http_proxy`, `https_proxy`, `all_proxy`):
/// parsed by libcurl's own URL API with the flags and the parts libcurl 7.88's `parse_proxy`
/// uses. libcurl drops a proxy whose user name or password decodes to a zero byte (`%00`)
/// without a word and connects directly (curl 7.88 exits 0): that value, and every other one
/// libcurl would not use, is a `Problem` here, found before any request.
public struct CurlProxy: Sendable, Equatable {
    /// The schemes libcurl speaks to a proxy with (and that imgwarm accepts).
    public static let schemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// Lower-case: `http` for a value without one (libcurl's guess), else one of `schemes`.
    public var scheme: String
    /// The host, percent-decoded, as libcurl connects to it (IPv6 without brackets).
    public var host: String
    /// The port given, else libcurl's default: 443 for an https proxy, 1080 for the others.
    public var port: Int

    /// `scheme://host:port`: the proxy named without its user name or password, for messages.
    public var displayName: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Why libcurl would not use a value. The words never repeat the value (it may hold a password).
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not a URL libcurl can parse (`curl_url_strerror`'s words).
        case syntax(String)
        /// A scheme libcurl does not speak to proxies.
        case scheme(String)
        /// The user name or the password decodes to a zero byte: libcurl would connect directly.
        case zeroByteInCredentials
        /// No host to connect to.
        case noHost

        public var description: String {
            switch self {
            case .syntax(let why):
                return "libcurl cannot parse it as [scheme://][user:password@]host[:port] (\(why))"
            case .scheme(let scheme):
                return "the scheme '\(scheme)' is not one of \(CurlProxy.schemes.joined(separator: ", "))"
            case .zeroByteInCredentials:
                return
                    "its user name or password holds %00 (a zero byte), which libcurl cannot send: it would drop the proxy and connect directly"
            case .noHost:
                return "it names no host, e.g. http://proxy:3128"
            }
        }
    }

    /// Parses `text` as libcurl parses a proxy; `""` (no proxy) is not a proxy and is refused as
    /// `.noHost`. `credentials` false skips the user name and password: where the proxy would be.
    public static func parse(_ text: String, credentials: Bool = true) -> Result<CurlProxy, Problem> {
        guard let url = curl_url() else { return .failure(.syntax("out of memory")) }
        defer { curl_url_cleanup(url) }
        // CURLU_NON_SUPPORT_SCHEME | CURLU_GUESS_SCHEME, as parse_proxy sets the URL.
        let set = curl_url_set(url, CURLUPART_URL, text, UInt32(CURLU_NON_SUPPORT_SCHEME | CURLU_GUESS_SCHEME))
        guard set == CURLUE_OK else { return .failure(.syntax(String(cString: curl_url_strerror(set)))) }
        guard case .some(let rawScheme) = part(url, CURLUPART_SCHEME, flags: 0).value else {
            return .failure(.syntax("no scheme"))
        }
        let scheme = rawScheme.lowercased()
        guard schemes.contains(scheme) else { return .failure(.scheme(scheme)) }
        // parse_proxy reads both decoded; a failure other than "none given" makes it return
        // without a proxy and without an error (libcurl 7.88's url.c).
        for (which, none) in [(CURLUPART_USER, CURLUE_NO_USER), (CURLUPART_PASSWORD, CURLUE_NO_PASSWORD)]
        where credentials {
            let got = part(url, which, flags: UInt32(CURLU_URLDECODE))
            if got.code != CURLUE_OK && got.code != none { return .failure(.zeroByteInCredentials) }
        }
        guard case .some(let host) = part(url, CURLUPART_HOST, flags: UInt32(CURLU_URLDECODE)).value, !host.isEmpty
        else { return .failure(.noHost) }
        let unbracketed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var port = scheme == "https" ? 443 : 1080
        if case .some(let given) = part(url, CURLUPART_PORT, flags: 0).value, let number = Int(given) { port = number }
        return .success(CurlProxy(scheme: scheme, host: unbracketed, port: port))
    }

    private static func part(_ url: OpaquePointer, _ which: CURLUPart, flags: UInt32) -> (
        code: CURLUcode, value: String?
    ) {
        var value: UnsafeMutablePointer<CChar>?
        let code = curl_url_get(url, which, &value, flags)
        defer { curl_free(value) }
        return (code, code == CURLUE_OK ? value.map { String(cString: $0) } : nil)
    }
}
