/// Why a URL did not end in the cache: the `errorClass` of a report entry.
///
/// Each reason is transient (worth retrying within the run: docs/cache-contract.md §5) or permanent (not retried,
/// and blacklisted).
public enum FailureReason: String, Codable, Sendable, CaseIterable {
    // HTTP
    /// A status outside 2xx (the entry carries it).
    case httpStatus = "http-status"
    // Network (transient)
    case timeout
    case dns
    case connectFailed = "connect-failed"
    case connectionLost = "connection-lost"
    // Transfer
    /// The body ended before its Content-Length.
    case truncated
    /// Larger than `--max-bytes` (decoded), or announced as larger.
    case tooLarge = "too-large"
    case emptyBody = "empty-body"
    case decodingFailed = "content-decoding-failed"
    /// The answer is not an HTTP/1.x or later response: no status line at all (HTTP/0.9), a status
    /// code that is not a number, an unknown HTTP version, two different `Content-Length` values.
    /// Permanent.
    case badResponse = "bad-response"
    // Policy
    case redirectNotAllowed = "redirect-not-allowed"
    case tooManyRedirects = "too-many-redirects"
    case tls
    case invalidURL = "invalid-url"
    // Image validation
    case notAnImage = "not-an-image"
    case unsupportedFormat = "unsupported-format"
    case imageTooLarge = "image-too-large"
    case decodeFailed = "decode-failed"
    /// The image may be fine, but checking it needs more than imgwarm or ImageMagick allows one
    /// validation (`--max-decode-memory`, ImageMagick's pixel cache memory, 30 s): a limit of
    /// this machine's, not a fault of the URL. Not retried, never blacklisted.
    case validationLimit = "validation-limit"
    // Local
    /// Writing the file failed (disk full, permissions): the entry failed, the run may go on.
    case writeFailed = "write-failed"
    /// Any other libcurl failure.
    case transferFailed = "transfer-failed"
    /// The run was interrupted while this URL was in flight.
    case interrupted
    /// Its host's connections failed or timed out in too many rounds in a row, with no response
    /// between, or it answered only 429 or 503 in too many rounds in a row (`HostBreaker`): the
    /// host is unavailable for the rest of the run, and its URLs end without a request of their
    /// own. Transient: never blacklisted, tried again by the next run.
    case hostUnavailable = "host-unavailable"
    /// The proxy the request went through could not be reached, or refused it (407, a CONNECT
    /// refused with a 4xx, a SOCKS refusal): its fault, not the URL's. Not retried, never
    /// blacklisted, not counted against the URL's host; a proxy that cannot be reached stops
    /// the run (`PrefetchJob.Halt.proxy`), as does a request that did not go through it.
    case proxyFailed = "proxy-failed"
    /// `--offline`: the entry has no body to store (a HAR entry whose response was a 304 or had
    /// its body left out, a `content.size` that differs from it, bad base64; a plain URL line).
    /// The entry's `no-body` outcome; never retried nor blacklisted.
    case noBody = "no-body"
    /// The app's library decodes this kind of image only with a plugin (an SVG document, without
    /// `--accept-svg`): the entry's `unsupported` outcome. Not a failure: never retried nor
    /// blacklisted, and the run's exit status does not change for it.
    case unsupported

    /// HTTP statuses worth retrying: 408, 429, 500, 502, 503, 504.
    public static func isTransient(status: Int) -> Bool {
        [408, 429, 500, 502, 503, 504].contains(status)
    }

    /// True when the failure may go away by itself (retried, never blacklisted).
    public func isTransient(status: Int?) -> Bool {
        switch self {
        case .timeout, .dns, .connectFailed, .connectionLost, .truncated, .hostUnavailable: return true
        case .httpStatus: return status.map(FailureReason.isTransient(status:)) ?? false
        default: return false
        }
    }

    /// True when the failure depends on the client's configuration more than on the URL: a TLS
    /// failure (a CA file, `--insecure`), 401, 403 and 407 (credentials, headers, a proxy). Such a
    /// blacklist entry holds only while that configuration is unchanged.
    public func dependsOnClient(status: Int?) -> Bool {
        switch self {
        case .tls: return true
        case .httpStatus: return [401, 403, 407].contains(status ?? 0)
        default: return false
        }
    }

    /// Whether this failure goes on the blacklist: every permanent failure of the URL itself.
    /// Local trouble (a full disk, an interruption, a validation limit) says nothing about the URL
    /// and never does.
    public func isBlacklisted(status: Int?) -> Bool {
        switch self {
        case .writeFailed, .interrupted, .validationLimit, .proxyFailed, .noBody, .unsupported: return false
        default: return !isTransient(status: status)
        }
    }
}

/// A failure with its message and the HTTP status when there was one.
public struct Failure: Sendable, Equatable, Error {
    public var reason: FailureReason
    public var message: String
    public var httpStatus: Int?
    /// The request went through a proxy: an answer may be the proxy's own, which the URL does not
    /// tell apart (`FailurePolicy`: never blacklisted when it depends on the client, else only
    /// while the proxy is the same).
    public var throughProxy = false

    public init(_ reason: FailureReason, _ message: String, httpStatus: Int? = nil, throughProxy: Bool = false) {
        self.reason = reason
        self.message = message
        self.httpStatus = httpStatus
        self.throughProxy = throughProxy
    }

    public var isTransient: Bool { reason.isTransient(status: httpStatus) }
}
