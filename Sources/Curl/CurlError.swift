import CCurl

/// A libcurl failure: the `CURLcode` (or `CURLMcode`), what kind of failure it is, and a
/// message for people (libcurl's detailed one when it wrote one).
public struct CurlError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as the engine classifies failures. Codes imgwarm does not tell apart
    /// are `.other`.
    public enum Kind: Sendable, Equatable {
        /// A write callback refused the bytes (`CURLE_WRITE_ERROR`).
        case writeRefused
        /// The announced body is larger than the maximum file size (`CURLE_FILESIZE_EXCEEDED`).
        case fileTooLarge
        /// A connect or whole-transfer timeout, or libcurl's low-speed check.
        case timedOut
        /// A progress callback ended the transfer (`CURLE_ABORTED_BY_CALLBACK`).
        case abortedByCallback
        case couldNotResolve
        /// The proxy's host name did not resolve (`CURLE_COULDNT_RESOLVE_PROXY`).
        case couldNotResolveProxy
        /// A SOCKS proxy failed or refused (`CURLE_PROXY`; `CURLINFO_PROXY_ERROR` says more).
        case proxy
        case couldNotConnect
        /// Receiving failed (a reset, or headers libcurl refused as too large).
        case receiveFailed
        case sendFailed
        /// The server closed the connection without an answer.
        case gotNothing
        /// An HTTP/2 framing or stream error.
        case http2
        /// The body ended before its Content-Length.
        case partialFile
        case outOfMemory
        /// A scheme libcurl was told not to use (also its answer to HTTP/0.9 and garbage).
        case unsupportedProtocol
        /// An answer that is not HTTP.
        case weirdServerReply
        case tooManyRedirects
        /// Any TLS failure: certificate, handshake, pinning.
        case tls
        /// The Content-Encoding could not be decoded.
        case badContentEncoding
        case malformedURL
        /// libcurl refused to set an option (`curl_easy_setopt` or `curl_multi_setopt` failed): a
        /// feature this build lacks, or a value it does not know. `option` names it.
        case optionRefused
        case other
    }

    public var code: Int32
    public var message: String
    public var kind: Kind
    /// The option libcurl refused (`CURLOPT_ACCEPT_ENCODING`), with `.optionRefused`.
    public var option: String?

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
        kind = .other
    }

    init(_ code: CURLcode, detail: String? = nil) {
        self.code = Int32(code.rawValue)
        let generic = String(cString: curl_easy_strerror(code))
        if let detail, !detail.isEmpty { message = detail } else { message = generic }
        kind = CurlError.kind(of: code)
    }

    /// libcurl refused `option` with `code` (from curl_easy_setopt).
    init(option: String, _ code: CURLcode) {
        self.code = Int32(code.rawValue)
        self.option = option
        message = "this libcurl refuses \(option): \(String(cString: curl_easy_strerror(code)))"
        kind = .optionRefused
    }

    /// libcurl refused `option` with `code` (from curl_multi_setopt).
    init(option: String, multi code: CURLMcode) {
        self.code = Int32(code.rawValue)
        self.option = option
        message = "this libcurl refuses \(option): \(String(cString: curl_multi_strerror(code)))"
        kind = .optionRefused
    }

    init(multi code: CURLMcode) {
        self.code = Int32(code.rawValue)
        message = String(cString: curl_multi_strerror(code))
        kind = .other
    }

    public var description: String { "libcurl error \(code): \(message)" }

    static func kind(of code: CURLcode) -> Kind {
        switch code {
        case CURLE_WRITE_ERROR: return .writeRefused
        case CURLE_FILESIZE_EXCEEDED: return .fileTooLarge
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_ABORTED_BY_CALLBACK: return .abortedByCallback
        case CURLE_COULDNT_RESOLVE_HOST: return .couldNotResolve
        case CURLE_COULDNT_RESOLVE_PROXY: return .couldNotResolveProxy
        case CURLE_PROXY: return .proxy
        case CURLE_COULDNT_CONNECT: return .couldNotConnect
        case CURLE_RECV_ERROR: return .receiveFailed
        case CURLE_SEND_ERROR: return .sendFailed
        case CURLE_GOT_NOTHING: return .gotNothing
        case CURLE_HTTP2, CURLE_HTTP2_STREAM: return .http2
        case CURLE_PARTIAL_FILE: return .partialFile
        case CURLE_OUT_OF_MEMORY: return .outOfMemory
        case CURLE_UNSUPPORTED_PROTOCOL: return .unsupportedProtocol
        case CURLE_WEIRD_SERVER_REPLY: return .weirdServerReply
        case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS:
            return .tls
        case CURLE_BAD_CONTENT_ENCODING: return .badContentEncoding
        case CURLE_URL_MALFORMAT: return .malformedURL
        default: return .other
        }
    }
}
