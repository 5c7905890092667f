import CCurl

/// What the owner of a transfer hears from libcurl, on the thread that drives the multi handle.
public protocol CurlTransferDelegate: AnyObject {
    /// Body bytes, after content decoding. Returning false aborts the transfer
    /// (`CurlError.Kind.writeRefused`).
    func curlReceive(body: UnsafeRawBufferPointer) -> Bool
    /// One response header line, line ending included (also status lines, and those of
    /// redirects and `100 Continue`).
    func curlReceive(headerLine: UnsafeRawBufferPointer)
    /// Progress: body bytes received so far. Called as data arrives and about once a second
    /// while nothing does; returning false aborts the transfer (`.abortedByCallback`).
    func curlProgress(downloaded: Int64) -> Bool
    /// A connection is ready and a request is about to be sent (each hop of a redirect too).
    func curlRequestWillBeSent()
    /// Asked before each chunk of body bytes: false pauses the transfer's receiving
    /// (`CURL_WRITEFUNC_PAUSE`: libcurl keeps the chunk and stops reading the connection) until
    /// `CurlEasy.resumeReceiving()`. True by default.
    func curlMayReceive() -> Bool
}

extension CurlTransferDelegate {
    public func curlMayReceive() -> Bool { true }
}

/// One libcurl easy handle, owned by one Swift object and cleaned up in `deinit`.
///
/// Options are set through typed Swift methods (libcurl's setopt is variadic, which Swift cannot
/// call; the shim's typed wrappers are used here and nowhere else). A handle is reused across
/// transfers: options stay set, connections live in the multi handle.
public final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    /// libcurl writes its detailed error message here (CURLOPT_ERRORBUFFER).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: CurlStringList?
    /// Receives the transfer's data; held weakly (the delegate usually owns this handle).
    public private(set) weak var delegate: (any CurlTransferDelegate)?

    public init() throws(CurlError) {
        Curl.start()
        guard let handle = curl_easy_init() else { throw CurlError(code: -1, message: "curl_easy_init failed") }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try check(
            imgwarm_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer)),
            "CURLOPT_ERRORBUFFER")
        // A completion names its handle; CURLINFO_PRIVATE leads back to this object.
        try check(
            imgwarm_easy_setopt_pointer(handle, CURLOPT_PRIVATE, Unmanaged.passUnretained(self).toOpaque()),
            "CURLOPT_PRIVATE")
        try setLong(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// The detailed message of the last failure, or nil.
    var errorDetail: String? {
        errorBuffer[0] == 0 ? nil : String(cString: errorBuffer)
    }

    // MARK: Options

    /// The URL of the next transfer (libcurl copies it).
    public func setURL(_ url: String) throws(CurlError) {
        errorBuffer[0] = 0
        try setString(CURLOPT_URL, url, "CURLOPT_URL")
    }

    /// Sets every option of `options`. An option this libcurl refuses (one it was built without,
    /// a value it does not know) is a `.optionRefused` error naming it, never ignored.
    public func apply(_ options: CurlTransferOptions) throws(CurlError) {
        try setString(CURLOPT_PROTOCOLS_STR, options.protocols, "CURLOPT_PROTOCOLS_STR")
        try setString(CURLOPT_REDIR_PROTOCOLS_STR, options.protocols, "CURLOPT_REDIR_PROTOCOLS_STR")
        try setLong(CURLOPT_FOLLOWLOCATION, options.maxRedirects > 0 ? 1 : 0, "CURLOPT_FOLLOWLOCATION")
        try setLong(CURLOPT_MAXREDIRS, options.maxRedirects, "CURLOPT_MAXREDIRS")
        try setLong(CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMilliseconds, "CURLOPT_CONNECTTIMEOUT_MS")
        if let lowSpeed = options.lowSpeed {
            try setLong(CURLOPT_LOW_SPEED_LIMIT, lowSpeed.bytesPerSecond, "CURLOPT_LOW_SPEED_LIMIT")
            try setLong(CURLOPT_LOW_SPEED_TIME, lowSpeed.seconds, "CURLOPT_LOW_SPEED_TIME")
        }
        try setLong(CURLOPT_TIMEOUT_MS, options.totalTimeoutMilliseconds ?? 0, "CURLOPT_TIMEOUT_MS")
        try check(
            imgwarm_easy_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(options.maxBodySize ?? 0)),
            "CURLOPT_MAXFILESIZE_LARGE")
        if let encoding = options.acceptEncoding {
            try setString(CURLOPT_ACCEPT_ENCODING, encoding, "CURLOPT_ACCEPT_ENCODING")
        }
        let version = options.httpVersion == .http1 ? CURL_HTTP_VERSION_1_1 : CURL_HTTP_VERSION_2TLS
        try setLong(CURLOPT_HTTP_VERSION, Int(version), "CURLOPT_HTTP_VERSION")
        try setWaitForMultiplexing(options.waitForMultiplexing)
        if let agent = options.userAgent { try setString(CURLOPT_USERAGENT, agent, "CURLOPT_USERAGENT") }
        try setLong(CURLOPT_BUFFERSIZE, options.receiveBufferSize, "CURLOPT_BUFFERSIZE")
        if let authorities = options.certificateAuthorities {
            try setString(CURLOPT_CAINFO, authorities, "CURLOPT_CAINFO")
        }
        try setLong(CURLOPT_SSL_VERIFYPEER, options.verifyTLS ? 1 : 0, "CURLOPT_SSL_VERIFYPEER")
        try setLong(CURLOPT_SSL_VERIFYHOST, options.verifyTLS ? 2 : 0, "CURLOPT_SSL_VERIFYHOST")
        if let netrc = options.netrcFile {
            try setLong(CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue), "CURLOPT_NETRC")
            try setString(CURLOPT_NETRC_FILE, netrc, "CURLOPT_NETRC_FILE")
        }
        if let proxy = options.proxy { try setString(CURLOPT_PROXY, proxy, "CURLOPT_PROXY") }
        if let noProxy = options.noProxy { try setString(CURLOPT_NOPROXY, noProxy, "CURLOPT_NOPROXY") }
        if options.keepsCertificates { try setLong(CURLOPT_CERTINFO, 1, "CURLOPT_CERTINFO") }
    }

    /// Connects directly, whatever `http_proxy`, `https_proxy` and `all_proxy` say (`CURLOPT_PROXY` "").
    public func disableProxies() throws(CurlError) {
        try setString(CURLOPT_PROXY, "", "CURLOPT_PROXY")
    }

    /// `CURLOPT_PIPEWAIT` for the next transfer: wait for a connection that may multiplex rather
    /// than open another one.
    public func setWaitForMultiplexing(_ wait: Bool) throws(CurlError) {
        try setLong(CURLOPT_PIPEWAIT, wait ? 1 : 0, "CURLOPT_PIPEWAIT")
    }

    /// Sends the transfer's body, headers and progress to `delegate` from now on.
    public func setDelegate(_ delegate: any CurlTransferDelegate) throws(CurlError) {
        self.delegate = delegate
        let me = Unmanaged.passUnretained(self).toOpaque()
        try check(
            imgwarm_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, curlWriteTrampoline),
            "CURLOPT_WRITEFUNCTION")
        try check(imgwarm_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me), "CURLOPT_WRITEDATA")
        try check(
            imgwarm_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, curlHeaderTrampoline),
            "CURLOPT_HEADERFUNCTION")
        try check(imgwarm_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me), "CURLOPT_HEADERDATA")
        try check(imgwarm_easy_setopt_progress_callback(handle, curlProgressTrampoline), "CURLOPT_XFERINFOFUNCTION")
        try check(imgwarm_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, me), "CURLOPT_XFERINFODATA")
        try setLong(CURLOPT_NOPROGRESS, 0, "CURLOPT_NOPROGRESS")
        try check(imgwarm_easy_setopt_prereq_callback(handle, curlRequestTrampoline), "CURLOPT_PREREQFUNCTION")
        try check(imgwarm_easy_setopt_pointer(handle, CURLOPT_PREREQDATA, me), "CURLOPT_PREREQDATA")
    }

    /// Request headers (CURLOPT_HTTPHEADER), `Name: value` each.
    public func setHeaders(_ headers: [String]) throws(CurlError) {
        try setHeaders(CurlStringList(headers))
    }

    /// Request headers from a list that may be shared by several handles (kept alive here).
    public func setHeaders(_ list: CurlStringList) throws(CurlError) {
        headerList = list
        try check(imgwarm_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list.pointer), "CURLOPT_HTTPHEADER")
    }

    private func setLong(_ option: CURLoption, _ value: Int, _ name: String) throws(CurlError) {
        try check(imgwarm_easy_setopt_long(handle, option, value), name)
    }

    /// libcurl copies string options (since 7.17), so the Swift string need not outlive the call.
    private func setString(_ option: CURLoption, _ value: String, _ name: String) throws(CurlError) {
        let code = value.withCString { imgwarm_easy_setopt_string(handle, option, UnsafeMutablePointer(mutating: $0)) }
        try check(code, name)
    }

    /// Throws `.optionRefused` naming the option when setting it failed.
    func check(_ code: CURLcode, _ option: String) throws(CurlError) {
        guard code == CURLE_OK else { throw CurlError(option: option, code) }
    }

    /// Lets a transfer paused by `curlMayReceive` receive again (`curl_easy_pause`); libcurl hands
    /// over the chunk it kept at once, from within this call. False when libcurl refused.
    @discardableResult
    public func resumeReceiving() -> Bool {
        curl_easy_pause(handle, CURLPAUSE_CONT) == CURLE_OK
    }

    // MARK: Information

    /// The TLS session of the connection in use, as OpenSSL names it (`TLS_AES_128_GCM_SHA256`,
    /// `TLSv1.3`); nil without TLS or with another TLS library. Only valid from a transfer's
    /// callbacks, while its connection is alive.
    public var tlsNames: (cipherSuite: String, version: String)? {
        var cipher: UnsafePointer<CChar>?
        var version: UnsafePointer<CChar>?
        guard imgwarm_easy_tls_names(handle, &cipher, &version) != 0, let cipher, let version else { return nil }
        return (String(cString: cipher), String(cString: version))
    }

    /// The connection in use agreed on HTTP/2 in its TLS handshake (ALPN `h2`): it will multiplex,
    /// though no answer has said so yet. False without TLS or with another TLS library. Only
    /// valid from a transfer's callbacks, while its connection is alive.
    public var negotiatedHTTP2: Bool { imgwarm_easy_alpn_h2(handle) != 0 }

    /// The server's certificates (leaf first), each the base64 of its DER bytes, from
    /// `CURLINFO_CERTINFO` (`CurlTransferOptions.keepsCertificates`); empty when libcurl gave none
    /// (a reused connection, a plain one).
    public var peerCertificates: [String] {
        var pointer: UnsafeMutableRawPointer?
        guard imgwarm_easy_getinfo_pointer(handle, CURLINFO_CERTINFO, &pointer) == CURLE_OK, let pointer else {
            return []
        }
        let info = pointer.assumingMemoryBound(to: curl_certinfo.self).pointee
        guard info.num_of_certs > 0, let lists = info.certinfo else { return [] }
        var result: [String] = []
        for index in 0..<Int(info.num_of_certs) {
            var item = lists[index]
            while let node = item {
                if let data = node.pointee.data {
                    let text = String(cString: data)
                    if text.hasPrefix("Cert:") {
                        // PEM: the armor lines dropped, the base64 lines joined.
                        let lines = text.dropFirst(5).split(whereSeparator: { $0 == "\n" || $0 == "\r" })
                        result.append(lines.filter { !$0.hasPrefix("-----") }.joined())
                        break
                    }
                }
                item = node.pointee.next
            }
        }
        return result
    }

    /// The HTTP status of the last response received (0 before one arrived).
    public var responseCode: Int {
        var value = 0
        _ = imgwarm_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &value)
        return value
    }

    /// The status a proxy answered the last CONNECT with (0 when there was none: no proxy, or
    /// a request sent to it as is).
    public var connectResponseCode: Int {
        var value = 0
        _ = imgwarm_easy_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &value)
        return value
    }

    /// True when the last transfer's SOCKS proxy said the host behind it could not be reached
    /// (`CURLINFO_PROXY_ERROR`: connection refused, host or network unreachable, TTL expired, or
    /// a name libcurl could not resolve for it): the host's failure, not the proxy's.
    public var proxyFoundHostUnreachable: Bool {
        var value = 0
        _ = imgwarm_easy_getinfo_long(handle, CURLINFO_PROXY_ERROR, &value)
        let codes = [
            CURLPX_REPLY_CONNECTION_REFUSED, CURLPX_REPLY_HOST_UNREACHABLE, CURLPX_REPLY_NETWORK_UNREACHABLE,
            CURLPX_REPLY_TTL_EXPIRED, CURLPX_RESOLVE_HOST,
        ]
        return codes.contains { Int($0.rawValue) == value }
    }

    /// The address and port of the last connection (the proxy's when it went through one);
    /// nil and 0 before one was made.
    public var primaryIP: String? { string(CURLINFO_PRIMARY_IP) }
    public var primaryPort: Int {
        var value = 0
        _ = imgwarm_easy_getinfo_long(handle, CURLINFO_PRIMARY_PORT, &value)
        return value
    }

    /// The URL last requested (after redirects).
    public var effectiveURL: String? { string(CURLINFO_EFFECTIVE_URL) }

    func string(_ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard imgwarm_easy_getinfo_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// The Content-Length of the response being received; nil when it did not say.
    public var contentLength: Int64? {
        var value: curl_off_t = -1
        _ = imgwarm_easy_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &value)
        return value >= 0 ? Int64(value) : nil
    }

    /// How many new connections the last transfer had to open (0 when it reused one).
    public var newConnections: Int {
        var value = 0
        _ = imgwarm_easy_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &value)
        return value
    }

    /// The object whose handle `pointer` is (from a completion message).
    static func owner(of pointer: UnsafeMutableRawPointer) -> CurlEasy? {
        var value: UnsafeMutableRawPointer?
        guard imgwarm_easy_getinfo_pointer(pointer, CURLINFO_PRIVATE, &value) == CURLE_OK, let value else { return nil }
        return Unmanaged<CurlEasy>.fromOpaque(value).takeUnretainedValue()
    }
}

private func delegate(_ userData: UnsafeMutableRawPointer?) -> (any CurlTransferDelegate)? {
    guard let userData else { return nil }
    return Unmanaged<CurlEasy>.fromOpaque(userData).takeUnretainedValue().delegate
}

private let curlWriteTrampoline: imgwarm_data_callback = { buffer, size, count, userData in
    let length = size * count
    guard let buffer, let target = delegate(userData) else { return 0 }
    guard target.curlMayReceive() else { return Int(CURL_WRITEFUNC_PAUSE) }
    return target.curlReceive(body: UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

private let curlHeaderTrampoline: imgwarm_data_callback = { buffer, size, count, userData in
    let length = size * count
    guard let buffer, let target = delegate(userData) else { return 0 }
    target.curlReceive(headerLine: UnsafeRawBufferPointer(start: buffer, count: length))
    return length
}

private let curlProgressTrampoline: imgwarm_progress_callback = { userData, _, downloaded, _, _ in
    guard let target = delegate(userData) else { return 0 }
    return target.curlProgress(downloaded: Int64(downloaded)) ? 0 : 1
}

private let curlRequestTrampoline: imgwarm_prereq_callback = { userData, _, _, _, _ in
    delegate(userData)?.curlRequestWillBeSent()
    return 0  // CURL_PREREQFUNC_OK
}

/// A `curl_slist` of strings (request headers), owned by one Swift object; several handles may
/// share one.
public final class CurlStringList {
    private(set) var pointer: UnsafeMutablePointer<curl_slist>?

    public init(_ strings: [String]) {
        for string in strings {
            pointer = curl_slist_append(pointer, string)
        }
    }

    deinit {
        curl_slist_free_all(pointer)
    }
}
