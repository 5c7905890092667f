/// The options of a transfer that stay the same across a run, as Swift values. `CurlEasy.apply`
/// sets them on a handle; each property names the libcurl option it becomes.
public struct CurlTransferOptions: Sendable {
    public enum HTTPVersion: Sendable {
        /// HTTP/1.1 only, never HTTP/2 (`CURL_HTTP_VERSION_1_1`).
        case http1
        /// HTTP/2 where TLS negotiates it, else HTTP/1.1 (`CURL_HTTP_VERSION_2TLS`).
        case http2OverTLS
    }

    /// URL schemes allowed, for requests and redirects alike (`CURLOPT_PROTOCOLS_STR`,
    /// `CURLOPT_REDIR_PROTOCOLS_STR`). `http,https` by default.
    public var protocols = "http,https"
    /// Redirects followed (`CURLOPT_FOLLOWLOCATION`, `CURLOPT_MAXREDIRS`); 0 follows none.
    /// `10` by default.
    public var maxRedirects = 10
    /// Milliseconds a connection attempt may take (`CURLOPT_CONNECTTIMEOUT_MS`). `15000` by default.
    public var connectTimeoutMilliseconds = 15_000
    /// Abort when under `bytesPerSecond` for `seconds` (`CURLOPT_LOW_SPEED_LIMIT/TIME`); nil for
    /// no check. None by default.
    public var lowSpeed: (bytesPerSecond: Int, seconds: Int)?
    /// Milliseconds a whole transfer may take (`CURLOPT_TIMEOUT_MS`); nil for no limit. None by default.
    public var totalTimeoutMilliseconds: Int?
    /// Largest body accepted, announced or received (`CURLOPT_MAXFILESIZE_LARGE`); nil for no
    /// limit. None by default.
    public var maxBodySize: Int64?
    /// Content encodings asked for and decoded (`CURLOPT_ACCEPT_ENCODING`); `""` is every one
    /// libcurl can decode, nil none. `""` by default.
    public var acceptEncoding: String? = ""
    public var httpVersion = HTTPVersion.http2OverTLS
    /// Wait for a connection that can multiplex rather than open another (`CURLOPT_PIPEWAIT`).
    /// `true` by default. Only worth it where HTTP/2 can be negotiated (TLS): `CurlEasy
    /// .setWaitForMultiplexing` changes it per transfer.
    public var waitForMultiplexing = true
    /// `CURLOPT_USERAGENT`; nil sends none.
    public var userAgent: String?
    /// Receive buffer size in bytes (`CURLOPT_BUFFERSIZE`). `65536` by default.
    public var receiveBufferSize = 64 * 1024
    /// A PEM file of certificate authorities (`CURLOPT_CAINFO`); nil for the system's.
    public var certificateAuthorities: String?
    /// Verify the server's certificate and name (`CURLOPT_SSL_VERIFYPEER/HOST`). `true` by default.
    public var verifyTLS = true
    /// A netrc file whose credentials are used where it names the host (`CURLOPT_NETRC_FILE`,
    /// `CURL_NETRC_OPTIONAL`); nil for none.
    public var netrcFile: String?
    /// The proxy every request goes through (`CURLOPT_PROXY`), `""` for none; nil leaves libcurl
    /// to the environment (`http_proxy`, `https_proxy`, `all_proxy`). None by default.
    public var proxy: String?
    /// Hosts reached without the proxy, comma-separated, `*` for all (`CURLOPT_NOPROXY`); nil
    /// leaves libcurl to `no_proxy`. None by default.
    public var noProxy: String?
    /// Keep the server's certificate chain of each TLS connection (`CURLOPT_CERTINFO`), for
    /// `CurlEasy.peerCertificates`. `false` by default.
    public var keepsCertificates = false

    public init() {}
}
