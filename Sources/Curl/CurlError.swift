import CCurl

/// A libcurl failure: the `CURLcode` (or `CURLMcode`) and a message for people.
public struct CurlError: Error, Sendable, CustomStringConvertible {
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    init(_ code: CURLcode, detail: String? = nil) {
        self.code = Int32(code.rawValue)
        let generic = String(cString: curl_easy_strerror(code))
        if let detail, !detail.isEmpty { message = detail } else { message = generic }
    }

    init(multi code: CURLMcode) {
        self.code = Int32(code.rawValue)
        message = String(cString: curl_multi_strerror(code))
    }

    public var description: String { "libcurl error \(code): \(message)" }
}
