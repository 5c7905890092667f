import Foundation

/// The routes the tests and the demo use, over the image fixtures (`Tests/Fixtures/images`).
///
/// Well-behaved: `/img/NAME` (an image of `valid/` or `vector/`, with ETag / Last-Modified and
/// 304 answers), `/revalidate/SECONDS/NAME` (a 304 that brings new headers), `/octet/NAME`
/// (served as application/octet-stream), `/chunked/NAME`, `/gzip/NAME` (gzip-encoded copy from
/// `hostile/NAME.gz`), `/vary/NAME` (`Vary: Accept-Encoding`, gzip when asked and a `.gz` copy exists), `/redirect/N/NAME` (a chain of N redirects), `/auth/NAME` (basic auth
/// `imgwarm:s3cret`), `/gated/NAME` (needs `X-Token: letmein`), `/variant/NAME` (needs an
/// `Accept` naming `image/webp` and a `User-Agent` starting `MyApp/`; 400 to any `Cookie` or
/// `Authorization`), `/dynamic/KEY` (content the test
/// sets with `setDynamic`).
///
/// Misbehaving: `/status/CODE[?retry-after=V]`, `/flaky/NAME?fail=N&status=S[&retry-after=V]`
/// (the first N requests of that exact URL fail), `/slow-headers/NAME?delay=S`,
/// `/trickle/NAME?interval=S`, `/stall/NAME?after=BYTES`, `/reset`, `/reset-mid/NAME`,
/// `/truncated/NAME`, `/html`, `/empty`, `/hostile/NAME` (a file of `hostile/`),
/// `/large?bytes=N[&chunked=1]`, `/bomb`, `/loop`, `/to-file`, `/to-ftp`, `/huge-headers`,
/// `/short-length/NAME` (Content-Length smaller than the file), and those of
/// `FixtureRoutes+Hostile.swift`.
public final class FixtureRoutes: @unchecked Sendable {
    public static let username = "imgwarm"
    public static let password = "s3cret"
    public static let token = "letmein"

    public let valid: [String: [UInt8]]
    public let hostile: [String: [UInt8]]
    /// `vector/`: SVG documents, served by `/img/NAME` too (kept apart: they are stored only
    /// with `--accept-svg`).
    public let vector: [String: [UInt8]]
    private let lock = NSLock()
    private var counters: [String: Int] = [:]
    private var dynamic: [String: DynamicFile] = [:]

    /// Content for `/dynamic/KEY`.
    public struct DynamicFile: Sendable {
        public var body: [UInt8]
        public var etag: String?
        public var lastModified: String?
        public var contentType: String
        public init(body: [UInt8], etag: String? = nil, lastModified: String? = nil, contentType: String = "image/png")
        {
            self.body = body
            self.etag = etag
            self.lastModified = lastModified
            self.contentType = contentType
        }
    }

    /// Loads the fixtures from `imagesFolder` (with `valid/` and `hostile/` inside).
    public init(imagesFolder: URL) throws {
        func load(_ sub: String) throws -> [String: [UInt8]] {
            let folder = imagesFolder.appendingPathComponent(sub)
            var files: [String: [UInt8]] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                files[name] = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            }
            return files
        }
        valid = try load("valid")
        hostile = (try? load("hostile")) ?? [:]
        vector = (try? load("vector")) ?? [:]
    }

    public func setDynamic(_ key: String, _ file: DynamicFile?) {
        lock.lock()
        dynamic[key] = file
        lock.unlock()
    }

    /// Counts requests per exact target, for `/flaky` and `/cut`.
    func count(_ target: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        counters[target, default: 0] += 1
        return counters[target]!
    }

    public static func contentType(_ name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "tif", "tiff": return "image/tiff"
        case "webp": return "image/webp"
        case "heic": return "image/heic"
        case "avif": return "image/avif"
        case "bmp": return "image/bmp"
        case "ico": return "image/x-icon"
        case "svg": return "image/svg+xml"
        default: return "application/octet-stream"
        }
    }

    /// A weak but stable validator for a body.
    public static func etag(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "\"\(String(hash, radix: 16))\""
    }

    public static let lastModified = "Tue, 03 Nov 2026 10:00:00 GMT"

    /// The router to give `LoopbackServer`.
    public var router: @Sendable (Request) -> LoopbackServer.Handler? {
        { [self] request in route(request) }
    }

    private func route(_ request: Request) -> LoopbackServer.Handler? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let first = parts.first else { return nil }
        let rest = parts.dropFirst().joined(separator: "/")
        let image = valid[rest] ?? vector[rest]
        switch first {
        case "img":
            guard let image else { return nil }
            return { request, out in
                FixtureRoutes.serveConditional(request, out, body: image, type: FixtureRoutes.contentType(rest))
            }
        case "max-age":
            // `/max-age/<seconds>/<name>`: the image with `Cache-Control: public, max-age=<seconds>`.
            let pieces = rest.split(separator: "/", maxSplits: 1).map(String.init)
            guard pieces.count == 2, let body = valid[pieces[1]] else { return nil }
            let (seconds, name) = (pieces[0], pieces[1])
            return { _, out in
                out.respond(
                    status: 200,
                    headers: [
                        "Content-Type": FixtureRoutes.contentType(name), "ETag": FixtureRoutes.etag(body),
                        "Cache-Control": "public, max-age=\(seconds)",
                    ], body: body)
            }
        case "revalidate":
            // `/revalidate/<seconds>/<name>`: the image with an ETag, `Cache-Control: max-age=0` and
            // `X-Served: 200`; a conditional request with that ETag gets a 304 that brings
            // `Cache-Control: max-age=<seconds>` and `X-Served: 304` (what a cache's update merges).
            let pieces = rest.split(separator: "/", maxSplits: 1).map(String.init)
            guard pieces.count == 2, let body = valid[pieces[1]] else { return nil }
            let (seconds, name) = (pieces[0], pieces[1])
            let tag = FixtureRoutes.etag(body)
            return { request, out in
                if request.header("if-none-match") == tag {
                    out.sendHead(
                        status: 304,
                        headers: ["ETag": tag, "Cache-Control": "max-age=\(seconds)", "X-Served": "304"],
                        contentLength: nil)
                    return
                }
                out.respond(
                    status: 200,
                    headers: [
                        "Content-Type": FixtureRoutes.contentType(name), "ETag": tag, "Cache-Control": "max-age=0",
                        "X-Served": "200",
                    ], body: body)
            }
        case "vary":
            // `/vary/<name>`: the image with `Vary: Accept-Encoding` and `max-age=3600`, gzip-encoded
            // when the request accepts gzip and a `.gz` copy exists (`gradient.png`), else as is.
            guard let image else { return nil }
            let encoded = hostile[rest + ".gz"]
            return { request, out in
                let gzip = encoded != nil && (request.header("accept-encoding") ?? "").contains("gzip")
                var headers = [
                    "Content-Type": FixtureRoutes.contentType(rest), "Vary": "Accept-Encoding",
                    "Cache-Control": "public, max-age=3600",
                ]
                if gzip { headers["Content-Encoding"] = "gzip" }
                out.respond(status: 200, headers: headers, body: gzip ? encoded! : image)
            }
        case "octet":
            guard let image else { return nil }
            return { _, out in
                out.respond(status: 200, headers: ["Content-Type": "application/octet-stream"], body: image)
            }
        case "chunked":
            guard let image else { return nil }
            return { _, out in
                out.sendHead(
                    status: 200,
                    headers: ["Content-Type": FixtureRoutes.contentType(rest), "Transfer-Encoding": "chunked"],
                    contentLength: nil)
                var offset = 0
                while offset < image.count {
                    let piece = Array(image[offset..<min(offset + 1000, image.count)])
                    out.send(String(piece.count, radix: 16) + "\r\n")
                    out.send(piece)
                    out.send("\r\n")
                    offset += piece.count
                }
                out.send("0\r\n\r\n")
            }
        case "gzip":
            guard let encoded = hostile[rest + ".gz"] else { return nil }
            return { _, out in
                out.respond(
                    status: 200,
                    headers: ["Content-Type": FixtureRoutes.contentType(rest), "Content-Encoding": "gzip"],
                    body: encoded)
            }
        case "bomb":
            guard let bomb = hostile["bomb.gz"] else { return nil }
            return { _, out in
                out.respond(
                    status: 200, headers: ["Content-Type": "image/png", "Content-Encoding": "gzip"], body: bomb)
            }
        case "hostile":
            guard let body = hostile[rest] else { return nil }
            return { _, out in
                out.respond(status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], body: body)
            }
        case "html":
            return { _, out in
                out.respond(
                    status: 200, headers: ["Content-Type": "image/jpeg"],
                    body: Array("<!doctype html><html><body>Sorry, the image moved.</body></html>\n".utf8))
            }
        case "empty":
            return { _, out in out.respond(status: 200, headers: ["Content-Type": "image/png"], body: []) }
        case "status":
            let code = Int(rest) ?? 500
            return { request, out in
                var headers = ["Content-Type": "text/plain"]
                if let retryAfter = request.query["retry-after"] {
                    headers["Retry-After"] = retryAfter.removingPercentEncoding ?? retryAfter
                }
                out.respond(status: code, headers: headers, body: Array("status \(code)\n".utf8))
            }
        case "flaky":
            guard let image else { return nil }
            return { [self] request, out in
                let attempt = count(request.target)
                let failures = Int(request.query["fail"] ?? "1") ?? 1
                if attempt <= failures {
                    let status = Int(request.query["status"] ?? "503") ?? 503
                    var headers = ["Content-Type": "text/plain"]
                    if let retryAfter = request.query["retry-after"] { headers["Retry-After"] = retryAfter }
                    out.respond(status: status, headers: headers, body: Array("try again\n".utf8))
                } else {
                    out.respond(status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], body: image)
                }
            }
        case "slow-headers":
            guard let image else { return nil }
            return { request, out in
                guard out.pause(Double(request.query["delay"] ?? "5") ?? 5) else { return }
                out.respond(status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], body: image)
            }
        case "trickle":
            guard let image else { return nil }
            return { request, out in
                let interval = Double(request.query["interval"] ?? "0.2") ?? 0.2
                out.sendHead(
                    status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], contentLength: image.count)
                var offset = 0
                while offset < image.count {
                    guard out.send(Array(image[offset..<min(offset + 64, image.count)])), out.pause(interval) else {
                        return
                    }
                    offset += 64
                }
            }
        case "stall":
            guard let image else { return nil }
            return { request, out in
                let after = min(Int(request.query["after"] ?? "100") ?? 100, image.count)
                out.sendHead(
                    status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], contentLength: image.count)
                out.send(Array(image[0..<after]))
                while out.pause(0.2) {
                    // Stay silent until the client gives up (its socket closes) or the server stops.
                    var probe: UInt8 = 0
                    if recv(out.fd, &probe, 1, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK)) == 0 { break }
                }
                out.close()
            }
        case "reset":
            return { _, out in out.reset() }
        case "reset-mid":
            guard let image else { return nil }
            return { _, out in
                out.sendHead(
                    status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], contentLength: image.count)
                out.send(Array(image[0..<(image.count / 2)]))
                out.pause(0.05)
                out.reset()
            }
        case "truncated":
            guard let image else { return nil }
            return { _, out in
                out.keepAlive = false
                out.sendHead(
                    status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], contentLength: image.count)
                out.send(Array(image[0..<(image.count / 2)]))
                out.close()
            }
        case "short-length":
            guard let image else { return nil }
            return { _, out in
                out.keepAlive = false
                out.sendHead(
                    status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)],
                    contentLength: image.count / 2)
                out.send(image)
                out.close()
            }
        case "large":
            return { request, out in
                let total = Int(request.query["bytes"] ?? "") ?? (60 << 20)
                let chunked = request.query["chunked"] == "1"
                let head: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
                if chunked {
                    out.sendHead(
                        status: 200, headers: ["Content-Type": "image/jpeg", "Transfer-Encoding": "chunked"],
                        contentLength: nil)
                } else {
                    out.sendHead(status: 200, headers: ["Content-Type": "image/jpeg"], contentLength: total)
                }
                var sent = 0
                let block = [UInt8](repeating: 0x41, count: 1 << 16)
                while sent < total {
                    var piece = Array(block[0..<min(block.count, total - sent)])
                    if sent == 0 { piece.replaceSubrange(0..<min(4, piece.count), with: head.prefix(piece.count)) }
                    let ok =
                        chunked
                        ? out.send(String(piece.count, radix: 16) + "\r\n") && out.send(piece) && out.send("\r\n")
                        : out.send(piece)
                    if !ok { return }
                    sent += piece.count
                }
                if chunked { out.send("0\r\n\r\n") }
            }
        case "redirect":
            guard parts.count >= 3, let hops = Int(parts[1]) else { return nil }
            let name = parts.dropFirst(2).joined(separator: "/")
            return { _, out in
                let location = hops <= 1 ? "/img/\(name)" : "/redirect/\(hops - 1)/\(name)"
                out.respond(status: 302, headers: ["Location": location], body: [])
            }
        case "bigbmp":
            // A valid 24-bit BMP of about `mb` MiB, sent in `chunk`-byte pieces `interval` apart.
            return { request, out in
                let body = FixtureRoutes.bitmap(
                    megabytes: Int(request.query["mb"] ?? "5") ?? 5, seed: request.query["n"] ?? "")
                let chunk = max(1024, Int(request.query["chunk"] ?? "65536") ?? 65536)
                let interval = Double(request.query["interval"] ?? "0") ?? 0
                out.sendHead(status: 200, headers: ["Content-Type": "image/bmp"], contentLength: body.count)
                var offset = 0
                while offset < body.count {
                    guard out.send(Array(body[offset..<min(offset + chunk, body.count)])) else { return }
                    offset += chunk
                    if interval > 0 && !out.pause(interval) { return }
                }
            }
        case "loop":
            return { _, out in out.respond(status: 302, headers: ["Location": "/loop"], body: []) }
        case "to-file":
            return { _, out in out.respond(status: 302, headers: ["Location": "file:///etc/passwd"], body: []) }
        case "to-ftp":
            return { _, out in out.respond(status: 301, headers: ["Location": "ftp://127.0.0.1/pub/a.png"], body: []) }
        case "huge-headers":
            return { _, out in
                var head = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n"
                let filler = String(repeating: "x", count: 8000)
                for index in 0..<200 { head += "X-Filler-\(index): \(filler)\r\n" }
                out.send(head)
                out.send("Content-Length: 0\r\n\r\n")
                out.close()
            }
        case "auth":
            guard let image else { return nil }
            return { request, out in
                let expected =
                    "Basic " + Data("\(FixtureRoutes.username):\(FixtureRoutes.password)".utf8).base64EncodedString()
                if request.header("authorization") == expected {
                    out.respond(status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], body: image)
                } else {
                    out.respond(
                        status: 401, headers: ["WWW-Authenticate": "Basic realm=\"images\""],
                        body: Array("who are you?\n".utf8))
                }
            }
        case "variant":
            // The image only for the app's variant (an Accept naming WebP, a User-Agent of
            // MyApp), and never to a request carrying credentials.
            guard let image else { return nil }
            return { request, out in
                let accept = request.header("accept") ?? ""
                let agent = request.header("user-agent") ?? ""
                if request.header("cookie") != nil || request.header("authorization") != nil {
                    out.respond(status: 400, headers: ["Content-Type": "text/plain"], body: Array("credentials\n".utf8))
                } else if accept.contains("image/webp") && agent.hasPrefix("MyApp/") {
                    out.respond(status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], body: image)
                } else {
                    out.respond(status: 406, headers: ["Content-Type": "text/plain"], body: Array("variant\n".utf8))
                }
            }
        case "gated":
            guard let image else { return nil }
            return { request, out in
                if request.header("x-token") == FixtureRoutes.token {
                    out.respond(status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], body: image)
                } else {
                    out.respond(status: 403, headers: ["Content-Type": "text/plain"], body: Array("forbidden\n".utf8))
                }
            }
        case "dynamic":
            lock.lock()
            let file = dynamic[rest]
            lock.unlock()
            guard let file else { return nil }
            return { request, out in
                FixtureRoutes.serveConditional(
                    request, out, body: file.body, type: file.contentType, etag: file.etag,
                    lastModified: file.lastModified)
            }
        default:
            return hostileRoute(first, rest: rest, image: image)
        }
    }

    /// A deterministic 24-bit BMP, 1024 pixels wide, about `megabytes` MiB; `seed` varies it.
    public static func bitmap(megabytes: Int, seed: String) -> [UInt8] {
        let width = 1024
        let rowBytes = width * 3
        let height = max(1, megabytes * (1 << 20) / rowBytes)
        let pixelBytes = rowBytes * height
        var body = [UInt8](repeating: 0, count: 54 + pixelBytes)
        func put32(_ value: Int, _ at: Int) {
            for index in 0..<4 { body[at + index] = UInt8((value >> (8 * index)) & 0xFF) }
        }
        body[0] = 0x42
        body[1] = 0x4D
        put32(body.count, 2)
        put32(54, 10)
        put32(40, 14)
        put32(width, 18)
        put32(height, 22)
        body[26] = 1
        body[28] = 24
        put32(pixelBytes, 34)
        let salt = seed.utf8.reduce(0) { $0 &+ Int($1) }
        for index in 0..<pixelBytes {
            body[54 + index] = UInt8(truncatingIfNeeded: index / rowBytes &+ index &* 7 &+ salt)
        }
        return body
    }

    /// Serves `body` with validators, answering 304 to a matching conditional request.
    static func serveConditional(
        _ request: Request, _ out: Responder, body: [UInt8], type: String,
        etag: String? = nil, lastModified: String? = FixtureRoutes.lastModified
    ) {
        let tag = etag ?? FixtureRoutes.etag(body)
        var headers = ["Content-Type": type, "ETag": tag]
        if let lastModified { headers["Last-Modified"] = lastModified }
        if let match = request.header("if-none-match") {
            if match.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).contains(tag)
                || match == "*"
            {
                out.sendHead(status: 304, headers: headers, contentLength: nil)
                return
            }
        } else if let since = request.header("if-modified-since"), let lastModified, since == lastModified {
            out.sendHead(status: 304, headers: headers, contentLength: nil)
            return
        }
        out.respond(status: 200, headers: headers, body: body)
    }
}

/// Serves the files of one folder at `/<name>` (for the demo).
public enum DirectoryRoutes {
    public static func router(root: URL) -> @Sendable (Request) -> LoopbackServer.Handler? {
        let folder = root.standardizedFileURL
        return { request in
            let name = request.path.split(separator: "/").last.map(String.init) ?? ""
            guard !name.isEmpty, !name.hasPrefix("."),
                let body = try? Data(contentsOf: folder.appendingPathComponent(name))
            else { return nil }
            return { request, out in
                FixtureRoutes.serveConditional(request, out, body: [UInt8](body), type: FixtureRoutes.contentType(name))
            }
        }
    }
}
