import CCurl

#if canImport(Glibc)
import Glibc
#endif

/// One libcurl easy handle, owned by one Swift object and cleaned up in `deinit`.
///
/// Options are set through typed methods (libcurl's setopt is variadic, which Swift cannot
/// call). An easy handle is reused across transfers: `reset()` clears options but keeps its
/// caches; connections live in the multi handle.
public final class CurlEasy {
    public let handle: UnsafeMutableRawPointer
    /// libcurl writes its detailed error message here (CURLOPT_ERRORBUFFER).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: CurlStringList?

    public init() throws(CurlError) {
        Curl.start()
        guard let handle = curl_easy_init() else { throw CurlError(code: -1, message: "curl_easy_init failed") }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        installErrorBuffer()
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Clears every option (the error buffer is put back), ready for the next transfer.
    public func reset() {
        curl_easy_reset(handle)
        headerList = nil
        errorBuffer[0] = 0
        installErrorBuffer()
    }

    private func installErrorBuffer() {
        _ = imgwarm_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
    }

    /// The detailed message of the last failure, or nil.
    public var errorDetail: String? {
        errorBuffer[0] == 0 ? nil : String(cString: errorBuffer)
    }

    /// The error for `code`, with libcurl's detailed message when it wrote one.
    public func error(for code: Int32) -> CurlError {
        CurlError(CURLcode(UInt32(code)), detail: errorDetail)
    }

    // MARK: Options

    @discardableResult
    public func set(_ option: CURLoption, _ value: Int) -> Bool {
        imgwarm_easy_setopt_long(handle, option, value) == CURLE_OK
    }

    @discardableResult
    public func set(_ option: CURLoption, _ value: Bool) -> Bool {
        set(option, value ? 1 : 0)
    }

    @discardableResult
    public func set(_ option: CURLoption, offset value: Int64) -> Bool {
        imgwarm_easy_setopt_off(handle, option, curl_off_t(value)) == CURLE_OK
    }

    /// Sets a string option. libcurl copies string options (since 7.17), so the Swift string
    /// need not outlive the call.
    @discardableResult
    public func set(_ option: CURLoption, _ value: String) -> Bool {
        value.withCString { imgwarm_easy_setopt_string(handle, option, UnsafeMutablePointer(mutating: $0)) } == CURLE_OK
    }

    @discardableResult
    public func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) -> Bool {
        imgwarm_easy_setopt_pointer(handle, option, pointer) == CURLE_OK
    }

    /// Request headers (CURLOPT_HTTPHEADER); the list lives until the next `reset()`.
    public func setHeaders(_ headers: [String]) {
        setHeaders(CurlStringList(headers))
    }

    /// Request headers from a list that may be shared by several handles (kept alive here).
    public func setHeaders(_ list: CurlStringList) {
        headerList = list
        _ = imgwarm_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list.pointer)
    }

    public func setWriteFunction(_ function: imgwarm_data_callback, userData: UnsafeMutableRawPointer) {
        _ = imgwarm_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, function)
        _ = imgwarm_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, userData)
    }

    public func setHeaderFunction(_ function: imgwarm_data_callback, userData: UnsafeMutableRawPointer) {
        _ = imgwarm_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, function)
        _ = imgwarm_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, userData)
    }

    /// Calls `function` (CURLOPT_XFERINFOFUNCTION) with `userData` as libcurl makes progress,
    /// and at least about once a second while it waits; a non-zero return aborts the transfer
    /// with CURLE_ABORTED_BY_CALLBACK.
    public func setProgressFunction(_ function: imgwarm_progress_callback, userData: UnsafeMutableRawPointer) {
        _ = imgwarm_easy_setopt_progress_callback(handle, function)
        _ = imgwarm_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, userData)
        _ = imgwarm_easy_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
    }

    /// Calls `function` (CURLOPT_PREREQFUNCTION) with `userData` once a connection is ready and
    /// just before each request is sent (each hop of a redirect chain too).
    public func setRequestFunction(_ function: imgwarm_prereq_callback, userData: UnsafeMutableRawPointer) {
        _ = imgwarm_easy_setopt_prereq_callback(handle, function)
        _ = imgwarm_easy_setopt_pointer(handle, CURLOPT_PREREQDATA, userData)
    }

    // MARK: Information

    public func info(_ item: CURLINFO) -> Int {
        var value = 0
        _ = imgwarm_easy_getinfo_long(handle, item, &value)
        return value
    }

    public func info(offset item: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        _ = imgwarm_easy_getinfo_off(handle, item, &value)
        return Int64(value)
    }

    public func info(string item: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard imgwarm_easy_getinfo_string(handle, item, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// The HTTP status of the last response received (0 before one arrived).
    public var responseCode: Int { info(CURLINFO_RESPONSE_CODE) }
}

/// A `curl_slist`, owned by one Swift object.
public final class CurlStringList {
    public private(set) var pointer: UnsafeMutablePointer<curl_slist>?

    public init(_ strings: [String]) {
        for string in strings {
            pointer = curl_slist_append(pointer, string)
        }
    }

    deinit {
        curl_slist_free_all(pointer)
    }
}
