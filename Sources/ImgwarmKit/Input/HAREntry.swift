/// One entry of a HAR capture (HAR 1.2, `log.entries[]`) as the list reader keeps it: what was
/// asked, what came back, and where its recorded body lies — never the body itself.
public struct HAREntry: Sendable, Equatable {
    /// A header as recorded (`{"name", "value"}`).
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    /// A recorded body, decoded (base64 or plain text), in the reader's scratch file.
    public struct Body: Sendable, Equatable {
        public var offset: Int64
        public var length: Int64
    }

    /// 1-based place in `log.entries`.
    public var number: Int
    public var url = ""
    public var method = "GET"
    public var requestHeaders: [Header] = []
    public var status = 0
    public var responseHeaders: [Header] = []
    /// `response.redirectURL` (empty when none).
    public var redirectURL = ""
    /// `response.content.mimeType`, as recorded.
    public var mimeType = ""
    /// `response.content.size`: the decoded body's length as the exporter counted it.
    public var size: Int?
    public var body: Body?
    /// Why a recorded body could not be kept (bad base64); nil otherwise.
    public var bodyProblem: String?
    public var startedDateTime = ""
    /// `time`: the entry's total time in milliseconds (nil when not recorded).
    public var time: Double?
    /// `response.httpVersion` and `response.statusText`, as recorded (`HTTP/1.1`, `h2`; `OK`).
    public var httpVersion = ""
    public var statusText = ""
    /// The image is an SVG document (`isSVG`), as `HARList` judged it with the body's first bytes.
    public var svg = false

    /// The value of the first response header named `name` (any case).
    public func responseHeader(_ name: String) -> String? {
        responseHeaders.first { $0.name.lowercased() == name }?.value
    }

    /// The recorded request headers that choose the variant a server sends (`Accept`,
    /// `Accept-Language`, `User-Agent`: a CDN serves WebP or AVIF by `Accept`), as `Name: value`
    /// lines to send with the fetch. Never a credential (`Cookie`, `Authorization`, …): only
    /// these three names are taken, and no value holding a line break.
    public var variantHeaders: [String] { recorded(["Accept", "Accept-Language", "User-Agent"]) }

    /// The headers sent with the entry's requests: `variantHeaders`, and with `credentials`
    /// (`--replay-credentials`) the recorded `Cookie` and `Authorization` too.
    public func headersToSend(credentials: Bool) -> [String] {
        guard credentials else { return variantHeaders }
        return variantHeaders + recorded(["Cookie", "Authorization"])
    }

    /// The recorded request headers of `names` (the first of each), as `Name: value` lines; none
    /// empty or holding a line break.
    private func recorded(_ names: [String]) -> [String] {
        var result: [String] = []
        for name in names {
            let lower = name.lowercased()
            guard let header = requestHeaders.first(where: { $0.name.lowercased() == lower }),
                !header.value.isEmpty, !header.value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 })
            else { continue }
            result.append("\(name): \(header.value)")
        }
        return result
    }

    /// A 3xx that names where it leads: the absolute URL of `redirectURL`, else of `Location`.
    var redirectTarget: String? {
        guard (300...399).contains(status), status != 304 else { return nil }
        let target = redirectURL.isEmpty ? (responseHeader("location") ?? "") : redirectURL
        guard !target.isEmpty else { return nil }
        if target.contains("://") { return target }
        guard target.hasPrefix("/"), let scheme = url.firstRange(of: "://") else { return nil }
        let authorityEnd = url[scheme.upperBound...].firstIndex(of: "/") ?? url.endIndex
        return target.hasPrefix("//") ? url[..<scheme.lowerBound] + ":" + target : url[..<authorityEnd] + target
    }

    /// Extensions of image files, for entries whose MIME type does not say.
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "png", "apng", "gif", "webp", "avif", "heic", "heif", "bmp", "ico", "tif", "tiff", "jxl",
        "svg",
    ]

    /// Whether the entry is an image: `content.mimeType` `image/*`, else the URL path's
    /// extension, else the body's first bytes (`head`, decoded).
    func isImage(head: [UInt8]) -> Bool {
        if mimeType.lowercased().hasPrefix("image/") { return true }
        if HAREntry.imageExtensions.contains(pathExtension.lowercased()) { return true }
        return HAREntry.looksLikeImage(head)
    }

    /// Whether the image is an SVG document (its `content.mimeType` `image/svg+xml`, else its URL
    /// path's extension `.svg`, else a body that starts as one): a kind of image the cache
    /// libraries decode only with a plugin.
    func isSVG(head: [UInt8]) -> Bool {
        let mime = mimeType.lowercased()
        if mime.hasPrefix("image/svg") { return true }
        if mime.hasPrefix("image/") { return false }
        if pathExtension.lowercased() == "svg" { return true }
        let text = head.drop(while: {
            $0 == 0xEF || $0 == 0xBB || $0 == 0xBF || $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09
        })
        return text.starts(with: Array("<svg".utf8))
    }

    /// The extension of the URL path's last segment ("" when none).
    var pathExtension: Substring {
        var path = Substring(url)
        if let scheme = path.firstRange(of: "://") {
            path = path[scheme.upperBound...]
            path = path[(path.firstIndex(of: "/") ?? path.endIndex)...]
        }
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "" }
        return path[path.index(after: dot)...]
    }

    /// A few magic numbers (JPEG, PNG, GIF, WebP, ISO BMFF images, icons): Input may not ask
    /// Validation, which sniffs for real once the bytes are downloaded.
    static func looksLikeImage(_ b: [UInt8]) -> Bool {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + magic.count && Array(b[offset..<(offset + magic.count)]) == magic
        }
        return starts([0xFF, 0xD8, 0xFF]) || starts([0x89, 0x50, 0x4E, 0x47]) || starts(Array("GIF8".utf8))
            || (starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8))
            || starts(Array("ftypavif".utf8), at: 4)
            || starts(Array("ftypheic".utf8), at: 4) || starts(Array("ftypmif1".utf8), at: 4)
            || starts([0x00, 0x00, 0x01, 0x00])
    }
}

extension HAREntry {
    /// The response headers an offline run stores with a recorded body (validators,
    /// `Cache-Control`, `Content-Type`): what an index keeps of a download's. Never
    /// `Content-Length` or `Content-Encoding`, which describe the bytes on the wire.
    static let storedResponseHeaders = ["ETag", "Last-Modified", "Cache-Control", "Content-Type"]

    /// `--offline`: the body the entry recorded, with its status and the response headers an
    /// index keeps (the content's `mimeType` when no `Content-Type` was recorded); `.missing`,
    /// with why, when it recorded none that can be stored.
    func recordedBody() -> BodySource {
        guard (200...299).contains(status), status != 204, status != 206 else {
            if status == 304 { return .missing("the recorded response is a 304 Not Modified, which has no body") }
            return .missing("the recorded response is HTTP \(status), not a whole image's body")
        }
        if let bodyProblem { return .missing(bodyProblem) }
        guard let body, body.length > 0 else {
            return .missing("the capture did not save the response's body (response.content.text is missing or empty)")
        }
        if let size, size >= 0, Int64(size) != body.length {
            return .missing("response.content.size says \(size) bytes but the recorded body has \(body.length)")
        }
        var headers: [String] = []
        for name in HAREntry.storedResponseHeaders {
            let lower = name.lowercased()
            for header in responseHeaders where header.name.lowercased() == lower {
                guard !header.value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) else { continue }
                headers.append("\(name): \(header.value)")
            }
        }
        if !headers.contains(where: { $0.hasPrefix("Content-Type:") }), !mimeType.isEmpty,
            !mimeType.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 })
        {
            headers.append("Content-Type: \(mimeType)")
        }
        var recorded = RecordedResponse(offset: body.offset, length: body.length, status: status, headers: headers)
        recordExchange(into: &recorded)
        return .recorded(recorded)
    }
}
