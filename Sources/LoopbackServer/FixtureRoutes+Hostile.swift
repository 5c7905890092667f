import Foundation

/// Routes for bodies and answers that break the rules in ways the engine must classify:
///
/// * `/png?width=W&height=H` — a valid grayscale PNG of that size (`GeneratedImages.png`).
/// * `/frames/gif?count=N`, `/frames/tiff?count=N` — valid files of N 1×1 frames (GIF) or
///   directories (TIFF), built on request.
/// * `/burst-stall/NAME?after=BYTES&stall=S` — sends the first BYTES of the image, stays silent S
///   seconds, then sends the rest.
/// * `/cut/NAME[?fail=N]` — the first half of the image with a Content-Length that matches the
///   cut (the first N requests of that exact URL; every request without `fail`), then the image.
/// * `/jpeg-garbage` — JPEG magic bytes followed by no valid marker segment.
/// * `/http09` — an image with no status line or headers at all (an HTTP/0.9 answer).
/// * `/garbage-status` — a status line whose code is not a number.
/// * `/huge-header-line` — a response with one 1 MiB header line.
/// * `/headed-redirect/PATH` — a 302 to `/PATH` that carries an ETag, a Last-Modified, a
///   year's `Cache-Control`, `Content-Type: text/html` and a `Retry-After` of its own, none of
///   which belongs to the response it leads to.
/// * `/two-lengths/NAME` — the image with two different `Content-Length` headers: its own
///   length, then twice that (RFC 9112 §6.3: an unrecoverable error), and the connection closed.
extension FixtureRoutes {
    /// The ETag `/headed-redirect/PATH`'s 302 carries.
    public static let redirectETag = "\"from-the-redirect\""

    func hostileRoute(_ first: String, rest: String, image: [UInt8]?) -> LoopbackServer.Handler? {
        switch first {
        case "png":
            return { request, out in
                let width = Int(request.query["width"] ?? "") ?? 1
                let height = Int(request.query["height"] ?? "") ?? 1
                out.respond(
                    status: 200, headers: ["Content-Type": "image/png"],
                    body: GeneratedImages.png(width: width, height: height))
            }
        case "frames":
            return { request, out in
                let count = Int(request.query["count"] ?? "") ?? 1
                switch rest {
                case "gif":
                    out.respond(
                        status: 200, headers: ["Content-Type": "image/gif"], body: GeneratedImages.gif(frames: count))
                case "tiff":
                    out.respond(
                        status: 200, headers: ["Content-Type": "image/tiff"],
                        body: GeneratedImages.tiff(directories: count))
                default: out.respond(status: 404, body: Array("unknown format\n".utf8))
                }
            }
        case "burst-stall":
            guard let image else { return nil }
            return { request, out in
                let after = min(Int(request.query["after"] ?? "100") ?? 100, image.count)
                let stall = Double(request.query["stall"] ?? "4") ?? 4
                out.sendHead(
                    status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], contentLength: image.count)
                guard out.send(Array(image[0..<after])), out.pause(stall) else { return }
                out.send(Array(image[after...]))
            }
        case "cut":
            guard let image else { return nil }
            return { [self] request, out in
                let attempt = count(request.target)
                let failures = request.query["fail"].flatMap { Int($0) } ?? Int.max
                if attempt <= failures {
                    let half = Array(image[0..<(image.count / 2)])
                    out.respond(status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], body: half)
                } else {
                    out.respond(status: 200, headers: ["Content-Type": FixtureRoutes.contentType(rest)], body: image)
                }
            }
        case "jpeg-garbage":
            return { _, out in
                out.respond(
                    status: 200, headers: ["Content-Type": "image/jpeg"],
                    body: [0xFF, 0xD8, 0xFF] + Array(repeating: 0x5A, count: 600))
            }
        case "http09":
            guard let png = valid["gradient.png"] else { return nil }
            return { _, out in
                out.send(png)
                out.close()
            }
        case "garbage-status":
            return { _, out in
                out.send("HTTP/1.1 2OO OK\r\nContent-Type: image/png\r\nContent-Length: 3\r\n\r\nabc")
                out.close()
            }
        case "huge-header-line":
            return { _, out in
                out.send(
                    "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nX-Filler: " + String(repeating: "x", count: 1 << 20)
                        + "\r\nContent-Length: 0\r\n\r\n")
                out.close()
            }
        case "headed-redirect":
            return { _, out in
                out.respond(
                    status: 302,
                    headers: [
                        "Location": "/" + rest, "ETag": FixtureRoutes.redirectETag,
                        "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT", "Cache-Control": "public, max-age=31536000",
                        "Content-Type": "text/html", "Retry-After": "120",
                    ], body: [])
            }
        case "two-lengths":
            guard let image else { return nil }
            return { _, out in
                out.send(
                    "HTTP/1.1 200 OK\r\nContent-Type: \(FixtureRoutes.contentType(rest))\r\n"
                        + "Content-Length: \(image.count)\r\nContent-Length: \(image.count * 2)\r\n"
                        + "Connection: close\r\n\r\n")
                out.send(image)
                out.close()
            }
        default:
            return nil
        }
    }
}
