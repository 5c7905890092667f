import CCurl

/// One libcurl multi handle: the connection cache, HTTP/2 multiplexing and the event loop of
/// every transfer. Driven from one thread; only `wakeup()` may be called from others.
public final class CurlMulti: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    /// Hears the connections of this handle's cache close (handles report to it through
    /// `CurlEasy.reportClosing`); it lives as long as the cache.
    public let connectionWatch = CurlConnectionWatch()

    /// A multi handle that multiplexes HTTP/2 streams (`CURLMOPT_PIPELINING`) and keeps up to
    /// `maxConnections` connections in its cache (`CURLMOPT_MAXCONNECTS`). `maxHostConnections`
    /// caps the connections to one host, 0 for no cap (`CURLMOPT_MAX_HOST_CONNECTIONS`: libcurl
    /// queues the transfers over it); `maxStreams` caps the streams of one HTTP/2 connection
    /// (`CURLMOPT_MAX_CONCURRENT_STREAMS`, libcurl's default 100; a server's lower limit wins).
    public init(
        multiplexing: Bool = true, maxConnections: Int, maxHostConnections: Int = 0, maxStreams: Int = 100
    ) throws(CurlError) {
        Curl.start()
        guard let handle = curl_multi_init() else { throw CurlError(code: -1, message: "curl_multi_init failed") }
        self.handle = handle
        let options: [(CURLMoption, Int, String)] = [
            (CURLMOPT_PIPELINING, multiplexing ? Int(CURLPIPE_MULTIPLEX) : 0, "CURLMOPT_PIPELINING"),
            (CURLMOPT_MAXCONNECTS, maxConnections, "CURLMOPT_MAXCONNECTS"),
            (CURLMOPT_MAX_HOST_CONNECTIONS, maxHostConnections, "CURLMOPT_MAX_HOST_CONNECTIONS"),
            (CURLMOPT_MAX_CONCURRENT_STREAMS, maxStreams, "CURLMOPT_MAX_CONCURRENT_STREAMS"),
        ]
        for (option, value, name) in options {
            let code = imgwarm_multi_setopt_long(handle, option, value)
            // Thrown after every stored property is set: deinit cleans the handle up.
            guard code == CURLM_OK else { throw CurlError(option: name, multi: code) }
        }
    }

    deinit {
        curl_multi_cleanup(handle)
    }

    public func add(_ easy: CurlEasy) throws(CurlError) {
        let code = curl_multi_add_handle(handle, easy.handle)
        guard code == CURLM_OK else { throw CurlError(multi: code) }
    }

    public func remove(_ easy: CurlEasy) {
        curl_multi_remove_handle(handle, easy.handle)
    }

    /// Runs whatever the transfers can do now; returns how many are still running.
    @discardableResult
    public func perform() -> Int {
        var running: Int32 = 0
        curl_multi_perform(handle, &running)
        return Int(running)
    }

    /// Waits until a transfer has something to do, `wakeup()` is called, `timeoutMilliseconds`
    /// pass, or `extraDescriptor` (when given) becomes readable.
    public func poll(timeoutMilliseconds: Int, extraDescriptor: Int32? = nil) {
        var count: Int32 = 0
        if let extraDescriptor, extraDescriptor >= 0 {
            var wait = curl_waitfd(fd: extraDescriptor, events: Int16(CURL_WAIT_POLLIN), revents: 0)
            curl_multi_poll(handle, &wait, 1, Int32(clamping: timeoutMilliseconds), &count)
        } else {
            curl_multi_poll(handle, nil, 0, Int32(clamping: timeoutMilliseconds), &count)
        }
    }

    /// Ends a `poll` early, from any thread.
    public func wakeup() {
        curl_multi_wakeup(handle)
    }

    /// A finished transfer: its handle, and its error (nil when it succeeded; an HTTP error
    /// status is a success here).
    public struct Completion {
        public var easy: CurlEasy
        public var error: CurlError?
    }

    /// The next finished transfer, or nil when there is none.
    public func nextCompletion() -> Completion? {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(handle, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let pointer = message.pointee.easy_handle,
                let easy = CurlEasy.owner(of: pointer)
            else { continue }
            let code = imgwarm_msg_result(message)
            return Completion(easy: easy, error: code == CURLE_OK ? nil : CurlError(code, detail: easy.errorDetail))
        }
        return nil
    }
}
