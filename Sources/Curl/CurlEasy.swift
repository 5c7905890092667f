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
        _ = imgwarm_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        // A completion names its handle; CURLINFO_PRIVATE leads back to this object.
        _ = imgwarm_easy_setopt_pointer(handle, CURLOPT_PRIVATE, Unmanaged.passUnretained(self).toOpaque())
        _ = imgwarm_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
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
    public func setURL(_ url: String) {
        errorBuffer[0] = 0
        setString(CURLOPT_URL, url)
    }

    /// Sets every option of `options`.
    public func apply(_ options: CurlTransferOptions) {
        setString(CURLOPT_PROTOCOLS_STR, options.protocols)
        setString(CURLOPT_REDIR_PROTOCOLS_STR, options.protocols)
        setLong(CURLOPT_FOLLOWLOCATION, options.maxRedirects > 0 ? 1 : 0)
        setLong(CURLOPT_MAXREDIRS, options.maxRedirects)
        setLong(CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMilliseconds)
        if let lowSpeed = options.lowSpeed {
            setLong(CURLOPT_LOW_SPEED_LIMIT, lowSpeed.bytesPerSecond)
            setLong(CURLOPT_LOW_SPEED_TIME, lowSpeed.seconds)
        }
        setLong(CURLOPT_TIMEOUT_MS, options.totalTimeoutMilliseconds ?? 0)
        _ = imgwarm_easy_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(options.maxBodySize ?? 0))
        if let encoding = options.acceptEncoding { setString(CURLOPT_ACCEPT_ENCODING, encoding) }
        let version = options.httpVersion == .http1 ? CURL_HTTP_VERSION_1_1 : CURL_HTTP_VERSION_2TLS
        setLong(CURLOPT_HTTP_VERSION, Int(version))
        setLong(CURLOPT_PIPEWAIT, options.waitForMultiplexing ? 1 : 0)
        if let agent = options.userAgent { setString(CURLOPT_USERAGENT, agent) }
        setLong(CURLOPT_BUFFERSIZE, options.receiveBufferSize)
        if let authorities = options.certificateAuthorities { setString(CURLOPT_CAINFO, authorities) }
        setLong(CURLOPT_SSL_VERIFYPEER, options.verifyTLS ? 1 : 0)
        setLong(CURLOPT_SSL_VERIFYHOST, options.verifyTLS ? 2 : 0)
        if let netrc = options.netrcFile {
            setLong(CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
            setString(CURLOPT_NETRC_FILE, netrc)
        }
    }

    /// Connects directly, whatever `http_proxy`, `https_proxy` and `all_proxy` say (`CURLOPT_PROXY` "").
    public func disableProxies() {
        setString(CURLOPT_PROXY, "")
    }

    /// `CURLOPT_PIPEWAIT` for the next transfer: wait for a connection that may multiplex rather
    /// than open another one.
    public func setWaitForMultiplexing(_ wait: Bool) {
        setLong(CURLOPT_PIPEWAIT, wait ? 1 : 0)
    }

    /// Sends the transfer's body, headers and progress to `delegate` from now on.
    public func setDelegate(_ delegate: any CurlTransferDelegate) {
        self.delegate = delegate
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = imgwarm_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, curlWriteTrampoline)
        _ = imgwarm_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        _ = imgwarm_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, curlHeaderTrampoline)
        _ = imgwarm_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me)
        _ = imgwarm_easy_setopt_progress_callback(handle, curlProgressTrampoline)
        _ = imgwarm_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, me)
        setLong(CURLOPT_NOPROGRESS, 0)
        _ = imgwarm_easy_setopt_prereq_callback(handle, curlRequestTrampoline)
        _ = imgwarm_easy_setopt_pointer(handle, CURLOPT_PREREQDATA, me)
    }

    /// Request headers (CURLOPT_HTTPHEADER), `Name: value` each.
    public func setHeaders(_ headers: [String]) {
        setHeaders(CurlStringList(headers))
    }

    /// Request headers from a list that may be shared by several handles (kept alive here).
    public func setHeaders(_ list: CurlStringList) {
        headerList = list
        _ = imgwarm_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list.pointer)
    }

    private func setLong(_ option: CURLoption, _ value: Int) {
        _ = imgwarm_easy_setopt_long(handle, option, value)
    }

    /// libcurl copies string options (since 7.17), so the Swift string need not outlive the call.
    private func setString(_ option: CURLoption, _ value: String) {
        _ = value.withCString { imgwarm_easy_setopt_string(handle, option, UnsafeMutablePointer(mutating: $0)) }
    }

    // MARK: Information

    /// The HTTP status of the last response received (0 before one arrived).
    public var responseCode: Int {
        var value = 0
        _ = imgwarm_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &value)
        return value
    }

    /// The Content-Length of the response being received; nil when it did not say.
    public var contentLength: Int64? {
        var value: curl_off_t = -1
        _ = imgwarm_easy_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &value)
        return value >= 0 ? Int64(value) : nil
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
