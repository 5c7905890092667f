/// What imgwarm keeps of one response's head: the header fields that matter (validators,
/// `Cache-Control`, `Content-Type`, `Retry-After`, `Location`'s scheme, `Content-Length`) and
/// the status line's protocol. A `Transfer` fills one as libcurl hands it header lines and starts
/// a new one at each status line, so a finished transfer carries its final response's only: not
/// a redirect's, a `100 Continue`'s, or a proxy's answer to `CONNECT`. The value then travels
/// whole, through `Downloader.Finished` and `ValidationPool.Job`, to the `CacheIndexResponse` an
/// index keeps (flutter_cache_manager's row).
public struct ResponseHeaders: Sendable, Equatable {
    /// `ETag` and `Last-Modified`, only when safe to echo back (`isSafeValidator`).
    public var etag: String?
    public var lastModified: String?
    /// `Cache-Control`, several joined with `, `.
    public var cacheControl: String?
    public var contentType: String?
    public var retryAfter: String?
    /// The scheme of `Location` (lower-case; nil when it had none or a relative one): tells a
    /// refused redirect from an answer libcurl could not parse.
    var locationScheme: String?
    /// The first `Content-Length`, and another value it also gave (a second header or a list):
    /// RFC 9112 §6.3 makes differing lengths an unrecoverable error, while libcurl 7.88 silently
    /// takes the last one (a cut body, then, that looks like `truncated`).
    var contentLength: Int64?
    var conflictingLength: Int64?
    /// The response came over HTTP/2 or later (its status line says `HTTP/2`).
    var multiplexed = false
    /// The whole head, kept only when the transfer asks for it (a `RequestProfile`: OkHttp's
    /// cache stores every field); nil otherwise.
    public var head: ResponseHead?

    public init(
        etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil, contentType: String? = nil,
        retryAfter: String? = nil
    ) {
        (self.etag, self.lastModified, self.cacheControl) = (etag, lastModified, cacheControl)
        (self.contentType, self.retryAfter) = (contentType, retryAfter)
    }

    /// The headers of `Name: value` lines a HAR capture recorded (`BodySource.recorded`), read
    /// as libcurl's lines are.
    init(recorded lines: [String]) {
        self.init()
        for line in lines {
            let text = Array((line + "\r\n").utf8)
            text.withUnsafeBytes { take($0) }
        }
    }

    /// Takes one header line as libcurl hands it (CRLF included). A status line (`HTTP/…`) starts
    /// a new response, forgetting everything of the previous one. Only a few headers matter, so
    /// the line is matched as bytes and a String is made only for their values (this runs ~10
    /// times per URL).
    mutating func take(_ line: UnsafeRawBufferPointer) {
        guard let first = line.first else { return }
        if first == UInt8(ascii: "H") && line.starts(with: "HTTP/".utf8) {
            let keepsHead = head != nil
            self = ResponseHeaders()
            multiplexed = line.count > 5 && line[5] >= UInt8(ascii: "2") && line[5] <= UInt8(ascii: "9")
            if keepsHead { head = ResponseHead(statusLine: Self.text(of: line)) }
            return
        }
        if head != nil {
            let text = Self.text(of: line)
            if !text.isEmpty { head?.fields.append(text) }
        }
        switch first | 0x20 {
        case UInt8(ascii: "c"):
            if let value = Self.value(of: "content-length", in: line) {
                noteContentLength(value)
            } else if let value = Self.value(of: "cache-control", in: line) {
                cacheControl = cacheControl.map { $0 + ", " + value } ?? value
            } else if let value = Self.value(of: "content-type", in: line) {
                contentType = value
            }
        case UInt8(ascii: "e"):
            if let value = Self.value(of: "etag", in: line) { etag = Self.isSafeValidator(value) ? value : nil }
        case UInt8(ascii: "l"):
            if let value = Self.value(of: "last-modified", in: line) {
                lastModified = Self.isSafeValidator(value) ? value : nil
            } else if let value = Self.value(of: "location", in: line) {
                locationScheme = Self.scheme(of: value)
            }
        case UInt8(ascii: "r"): if let value = Self.value(of: "retry-after", in: line) { retryAfter = value }
        default: break
        }
    }

    /// Remembers a `Content-Length` value (`15082`, or a list `15082, 15082`), and the first
    /// number that differs from the response's first. Values that are not numbers are libcurl's
    /// to judge.
    private mutating func noteContentLength(_ value: String) {
        for item in value.split(separator: ",") {
            guard let length = Int64(item.trimmingCharacters(in: " \t")) else { continue }
            if let contentLength {
                if length != contentLength && conflictingLength == nil { conflictingLength = length }
            } else {
                contentLength = length
            }
        }
    }

    /// The longest `ETag` or `Last-Modified` value kept, in bytes.
    static let validatorLimit = 1024

    /// Whether an `ETag` or `Last-Modified` value may be stored and echoed back in
    /// `If-None-Match` / `If-Modified-Since`: 1 to `validatorLimit` bytes, each visible ASCII or
    /// a space. Anything else (control characters, bytes over 0x7E, a kilobyte of padding) is
    /// dropped, as if the server had sent no validator.
    static func isSafeValidator(_ value: String) -> Bool {
        let bytes = value.utf8
        return !bytes.isEmpty && bytes.count <= validatorLimit && bytes.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
    }

    /// The scheme of an absolute URL reference (`ftp` of `FTP://x/y`), lower-cased; nil for a
    /// relative reference.
    static func scheme(of reference: String) -> String? {
        var scheme = ""
        for byte in reference.utf8 {
            switch byte {
            case UInt8(ascii: ":"):
                return scheme.isEmpty ? nil : scheme
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                scheme.append(Character(Unicode.Scalar(byte | 0x20)))
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                guard !scheme.isEmpty else { return nil }
                scheme.append(Character(Unicode.Scalar(byte)))
            default:
                return nil
            }
            if scheme.utf8.count > 32 { return nil }
        }
        return nil
    }

    /// A line without its CR LF (bytes that are not UTF-8 repaired).
    static func text(of line: UnsafeRawBufferPointer) -> String {
        var end = line.count
        while end > 0 && (line[end - 1] == 0x0D || line[end - 1] == 0x0A) { end -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: line[..<end]), as: UTF8.self)
    }

    /// The value of header `name` (lower-case) when `line` is that header, trimmed.
    static func value(of name: StaticString, in line: UnsafeRawBufferPointer) -> String? {
        let count = name.utf8CodeUnitCount
        guard line.count > count, line[count] == UInt8(ascii: ":") else { return nil }
        let matches = name.withUTF8Buffer { expected in
            (0..<count).allSatisfy { line[$0] | 0x20 == expected[$0] || line[$0] == expected[$0] }
        }
        guard matches else { return nil }
        var start = count + 1
        var end = line.count
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }
        while start < end && isSpace(line[start]) { start += 1 }
        while end > start && isSpace(line[end - 1]) { end -= 1 }
        return String(validating: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
    }
}
