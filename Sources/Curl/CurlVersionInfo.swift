import CCurl

/// What the libcurl linked in was built with (`curl_version_info`), as Swift values.
public struct CurlVersionInfo: Sendable, Equatable {
    /// The libcurl version, e.g. `7.88.1`.
    public var version: String
    /// The host libcurl was built for, e.g. `x86_64-pc-linux-gnu`.
    public var host: String
    /// The TLS library and its version, e.g. `OpenSSL/3.0.17`; nil without TLS.
    public var tls: String?
    /// zlib's version (gzip and deflate decoding); nil without it.
    public var zlib: String?
    /// Brotli's version (`br` decoding); nil without it.
    public var brotli: String?
    /// zstd's version (`zstd` decoding); nil without it.
    public var zstd: String?
    /// nghttp2's version; nil without HTTP/2.
    public var nghttp2: String?
    /// True when libcurl speaks HTTP/2.
    public var http2: Bool
    /// True when libcurl speaks HTTP/3.
    public var http3: Bool
    /// The URL schemes libcurl handles, e.g. `http`, `https`.
    public var protocols: [String]
    /// libcurl's feature names as `curl -V` lists them, e.g. `HTTP2`, `brotli`, `zstd`.
    public var features: [String]
}

extension Curl {
    /// What the libcurl linked in was built with.
    public static var versionInfo: CurlVersionInfo {
        start()
        guard let pointer = imgwarm_version_info() else {
            return CurlVersionInfo(
                version: "unknown", host: "unknown", tls: nil, zlib: nil, brotli: nil, zstd: nil, nghttp2: nil,
                http2: false, http3: false, protocols: [], features: [])
        }
        let info = pointer.pointee
        let age = info.age.rawValue
        let bits = info.features
        func text(_ pointer: UnsafePointer<CChar>?) -> String? {
            guard let pointer else { return nil }
            let value = String(cString: pointer)
            return value.isEmpty ? nil : value
        }
        func list(_ pointer: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
            guard var entry = pointer else { return [] }
            var result: [String] = []
            while let name = entry.pointee {
                result.append(String(cString: name))
                entry += 1
            }
            return result
        }
        let has = { (bit: Int32) in bits & bit != 0 }
        return CurlVersionInfo(
            version: text(info.version) ?? "unknown",
            host: text(info.host) ?? "unknown",
            tls: has(CURL_VERSION_SSL) ? text(info.ssl_version) : nil,
            zlib: has(CURL_VERSION_LIBZ) ? text(info.libz_version) : nil,
            brotli: has(CURL_VERSION_BROTLI) && age >= CURLVERSION_FIFTH.rawValue ? text(info.brotli_version) : nil,
            zstd: has(CURL_VERSION_ZSTD) && age >= CURLVERSION_EIGHTH.rawValue ? text(info.zstd_version) : nil,
            nghttp2: has(CURL_VERSION_HTTP2) && age >= CURLVERSION_SIXTH.rawValue ? text(info.nghttp2_version) : nil,
            http2: has(CURL_VERSION_HTTP2),
            http3: has(CURL_VERSION_HTTP3),
            protocols: list(info.protocols),
            features: age >= CURLVERSION_ELEVENTH.rawValue ? list(info.feature_names) : [])
    }
}
