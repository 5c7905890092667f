import CCurl

/// Process-wide libcurl facts and set-up.
public enum Curl {
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

    /// Runs `curl_global_init` once per process, before any handle exists.
    public static func start() {
        _ = globalInit
    }

    /// The libcurl version, e.g. `7.88.1`.
    public static var version: String { versionInfo.version }

    /// True when libcurl was built with HTTP/2 (nghttp2).
    public static var supportsHTTP2: Bool { versionInfo.http2 }
}
