import ImgwarmSystem

/// A 304 under `--refresh` rewrites `<key>.0` as OkHttp's `CacheInterceptor` and `Cache.update`
/// do (docs/cache-formats-android.md, "OkHttp"): the stored response's headers combined with the
/// 304's (`CacheInterceptor.combine`), the request headers its `Vary` names as the client sent
/// them, the stored status line and handshake, and the 304's times.
extension OkHttpEntry {
    /// Headers a 304 never brings for the stored body (`isContentSpecificHeader`).
    static let contentSpecific: Set<String> = ["content-length", "content-encoding", "content-type"]
    /// Headers of one connection (`isEndToEnd` is false for them).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailers",
        "transfer-encoding", "upgrade",
    ]

    func updated(companion: String, stored: [UInt8], response: CacheIndexResponse) -> [UInt8]? {
        guard companion.hasSuffix(".0"), let metadata = try? OkHttpMetadata(stored) else { return nil }
        let network = (response.headers.head?.fields ?? []).compactMap(OkHttpEntry.field)
        var fields = OkHttpEntry.combine(cached: metadata.fields, network: network)
        if let freshness {
            // The app's network interceptor rewrites the 304's caching headers as it does a 200's.
            fields.removeAll { ["cache-control", "expires", "pragma"].contains($0.0.lowercased()) }
            fields.append(("Cache-Control", "max-age=\(freshness)"))
        }
        let varied = Set(
            fields.filter { $0.0.lowercased() == "vary" }.flatMap { $0.1.split(separator: ",") }.map {
                $0.trimmingCharacters(in: " \t").lowercased()
            })
        let vary = requestHeaders(url: metadata.url).filter { varied.contains($0.0.lowercased()) }
        var text = metadata.url + "\n" + metadata.method + "\n\(vary.count)\n"
        for (name, value) in vary { text += "\(name): \(value)\n" }
        text += metadata.statusLine + "\n\(fields.count + 2)\n"
        for (name, value) in fields { text += "\(name): \(value)\n" }
        let millis = response.receivedAt.seconds * 1000 + response.receivedAt.nanoseconds / 1_000_000
        text += "OkHttp-Sent-Millis: \(millis)\nOkHttp-Received-Millis: \(millis)\n"
        if let handshake = metadata.handshake {
            text += "\n\(handshake.cipherSuite)\n\(handshake.peerCertificates.count)\n"
            for line in handshake.peerCertificates { text += line + "\n" }
            text += "\(handshake.localCertificates.count)\n"
            for line in handshake.localCertificates { text += line + "\n" }
            if let version = handshake.tlsVersion { text += version + "\n" }
        }
        return Array(text.utf8)
    }

    /// `CacheInterceptor.combine`: the stored fields but a `Warning` of the 1xx kind, each kept
    /// when it is content-specific, hop-by-hop or not in the 304; then the 304's end-to-end fields
    /// that are not content-specific.
    static func combine(cached: [(String, String)], network: [(String, String)]) -> [(String, String)] {
        let networkNames = Set(network.map { $0.0.lowercased() })
        var result: [(String, String)] = []
        for (name, value) in cached {
            let lower = name.lowercased()
            if lower == "warning" && value.hasPrefix("1") { continue }
            if contentSpecific.contains(lower) || hopByHop.contains(lower) || !networkNames.contains(lower) {
                result.append((name, value))
            }
        }
        for (name, value) in network {
            let lower = name.lowercased()
            if !contentSpecific.contains(lower) && !hopByHop.contains(lower) { result.append((name, value)) }
        }
        return result
    }
}
