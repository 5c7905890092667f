/// How an app's HTTP client asks for an image when its cache keeps the response as the client
/// received it (OkHttp's `Cache`, docs/cache-formats-android.md "OkHttp"): the headers the client
/// adds itself, and that the body is kept as it came off the network (a gzip body still gzip),
/// with the whole response head. A format that needs one names it
/// (`RequestProfileFormat`, Cache/FormatCapabilities.swift); `FetchConfiguration.profile` carries it.
public struct RequestProfile: Sendable, Equatable {
    /// The `User-Agent` the client sends, unless the run was given its own.
    public var userAgent: String
    /// The `Accept-Encoding` the client sends (OkHttp's `BridgeInterceptor`: `gzip`); libcurl then
    /// decodes nothing, and the body is stored as received.
    public var acceptEncoding: String

    public init(userAgent: String, acceptEncoding: String = "gzip") {
        self.userAgent = userAgent
        self.acceptEncoding = acceptEncoding
    }
}

/// A response's head whole, as a client that caches it keeps it: the status line and every
/// header field as received (CR LF dropped), in order.
public struct ResponseHead: Sendable, Equatable {
    /// `HTTP/1.1 200 OK`, `HTTP/2 200`.
    public var statusLine = ""
    /// `Name: value` lines, as received.
    public var fields: [String] = []
    /// The TLS session the response came over (https); nil for http or when libcurl gave none.
    public var tls: TLSSession?
    /// For a response a capture recorded (`--offline`), what it recorded of the exchange: the
    /// request headers its `Vary` names and when it was sent and received; nil for a download.
    public var captured: CapturedExchange?

    public init(statusLine: String = "", fields: [String] = []) {
        self.statusLine = statusLine
        self.fields = fields
    }

    /// The values of header `name` (any case), trimmed, in order.
    public func values(of name: String) -> [String] {
        let lower = name.lowercased()
        return fields.compactMap { field in
            guard let colon = field.firstIndex(of: ":"),
                field[..<colon].trimmingCharacters(in: " \t").lowercased() == lower
            else { return nil }
            return field[field.index(after: colon)...].trimmingCharacters(in: " \t")
        }
    }

    /// The status code of `statusLine`, or 0.
    public var status: Int {
        let parts = statusLine.split(separator: " ")
        return parts.count > 1 ? Int(parts[1]) ?? 0 : 0
    }
}

/// What a capture (a HAR entry) recorded of an exchange beside the response's head.
public struct CapturedExchange: Sendable, Equatable {
    /// The recorded request headers the response's `Vary` names, `Name: value`.
    public var requestFields: [String]
    /// When the capture sent the request and received the response (milliseconds since the
    /// epoch); nil when it does not say.
    public var sentMillis: Int64?
    public var receivedMillis: Int64?

    public init(requestFields: [String], sentMillis: Int64? = nil, receivedMillis: Int64? = nil) {
        (self.requestFields, self.sentMillis, self.receivedMillis) = (requestFields, sentMillis, receivedMillis)
    }
}

/// What a client that caches responses records of the TLS session one came over (OkHttp's
/// `Handshake`): names as Java spells them, the peer's chain as base64 DER.
public struct TLSSession: Sendable, Equatable {
    /// `TLS_AES_128_GCM_SHA256`, `TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256` (IANA names).
    public var cipherSuite: String
    /// `TLSv1.3`, `TLSv1.2`.
    public var version: String
    /// The server's certificates, leaf first, each base64 of its DER bytes.
    public var peerCertificates: [String]

    public init(cipherSuite: String, version: String, peerCertificates: [String]) {
        (self.cipherSuite, self.version, self.peerCertificates) = (cipherSuite, version, peerCertificates)
    }
}
