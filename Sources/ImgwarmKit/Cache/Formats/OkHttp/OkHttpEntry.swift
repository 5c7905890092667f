import ImgwarmSystem

/// OkHttp's `<key>.0`, as `Cache.Entry.writeTo` writes it (3.x Java and 4.x Kotlin alike;
/// docs/cache-formats-android.md, "OkHttp"): the URL as `HttpUrl` prints it, `GET`, the request
/// headers the response's `Vary` names (as the client sent them: `requestProfile`), the status
/// line as `StatusLine.toString` prints it, every response field plus `OkHttp-Sent-Millis` and
/// `OkHttp-Received-Millis`; for https a blank line, the cipher suite, the peer and local
/// certificate lists (a count, then one base64 DER per line) and the TLS version.
struct OkHttpEntry: JournalCompanionWriter {
    var profile: RequestProfile
    /// `--freshness`: the response's `Cache-Control`, `Expires` and `Pragma` replaced by
    /// `Cache-Control: max-age=<freshness>`; nil keeps them as received.
    var freshness: Int64?

    var kind: String { "okhttp-entry:\(profile.userAgent):\(freshness.map(String.init) ?? "")" }

    func contents(ofCompanion companion: String, response: CacheIndexResponse?) -> [UInt8] {
        guard companion.hasSuffix(".0") else { return [] }
        let url = response.map { OkHttpURL.canonical($0.key) ?? $0.key } ?? ""
        return Array(metadata(url: url, response: response).utf8)
    }

    var companionLimit: Int { OkHttpMetadata.Limits().fileBytes }

    /// `<key>.0` as OkHttp reads it (`OkHttpMetadata`, bounded), then `CacheStrategy`'s verdict.
    func judge(hitWith companion: [UInt8], now: Timestamp) -> HitJudgement {
        do {
            return OkHttpFreshness(try OkHttpMetadata(companion)).judge(now: now)
        } catch {
            return .miss(.badMetadata, "OkHttp cannot read its metadata (<key>.0): \(error.reason)")
        }
    }

    /// `OkHttp-Received-Millis` of `<key>.0` as OkHttp reads it; nil when it cannot read it or
    /// the field is missing (0).
    func receivedAt(companion: [UInt8]) -> Timestamp? {
        guard let metadata = try? OkHttpMetadata(companion), metadata.receivedMillis > 0 else { return nil }
        let millis = metadata.receivedMillis
        return Timestamp(seconds: millis / 1000, nanoseconds: (millis % 1000) * 1_000_000)
    }

    /// The request headers OkHttp's `BridgeInterceptor` sends, in its order.
    func requestHeaders(url: String) -> [(String, String)] {
        // The canonical URL's authority, without user info: `scheme://[user@]host[:port]/…`.
        let afterScheme = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        var host = afterScheme.count > 2 ? String(afterScheme[2]) : ""
        if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
        return [
            ("Host", host), ("Connection", "Keep-Alive"), ("Accept-Encoding", profile.acceptEncoding),
            ("User-Agent", profile.userAgent),
        ]
    }

    /// A captured response (`ResponseHead.captured`, `--offline`) keeps the request headers
    /// the capture recorded for its `Vary` (the client's own for a name it did not record) and is
    /// moved to the moment it is stored (`OkHttpCapture`).
    func metadata(url: String, response: CacheIndexResponse?) -> String {
        let head = response?.headers.head ?? ResponseHead(statusLine: "HTTP/1.1 200 OK")
        let varied = Set(
            head.values(of: "Vary").flatMap { $0.split(separator: ",") }.map {
                $0.trimmingCharacters(in: " \t").lowercased()
            })
        var vary: [(String, String)] = []
        if let captured = head.captured {
            vary = captured.requestFields.compactMap(OkHttpEntry.field).filter { varied.contains($0.0.lowercased()) }
        }
        let recorded = Set(vary.map { $0.0.lowercased() })
        vary += requestHeaders(url: url).filter {
            varied.contains($0.0.lowercased()) && !recorded.contains($0.0.lowercased())
        }
        var text = url + "\nGET\n\(vary.count)\n"
        for (name, value) in vary { text += "\(name): \(value)\n" }
        text += OkHttpEntry.statusLine(head.statusLine) + "\n"
        var fields = head.fields.compactMap(OkHttpEntry.field)
        let receivedMillis =
            response.map { $0.receivedAt.seconds * 1000 + $0.receivedAt.nanoseconds / 1_000_000 } ?? 0
        var sentMillis = receivedMillis
        if let captured = head.captured {
            let delta = OkHttpCapture.shift(captured, fields: fields, receivedMillis: receivedMillis)
            fields = OkHttpCapture.moved(fields, by: delta)
            if let sent = captured.sentMillis, let received = captured.receivedMillis, sent <= received {
                sentMillis = sent + delta
            }
        }
        if let freshness {
            fields.removeAll { ["cache-control", "expires", "pragma"].contains($0.0.lowercased()) }
            fields.append(("Cache-Control", "max-age=\(freshness)"))
        }
        text += "\(fields.count + 2)\n"
        for (name, value) in fields { text += "\(name): \(value)\n" }
        text += "OkHttp-Sent-Millis: \(sentMillis)\nOkHttp-Received-Millis: \(receivedMillis)\n"
        if url.hasPrefix("https://") {
            let tls = response?.headers.head?.tls
            text += "\n\(tls?.cipherSuite ?? "TLS_AES_128_GCM_SHA256")\n"
            let certificates = tls?.peerCertificates ?? []
            text += "\(certificates.count)\n"
            for certificate in certificates { text += certificate + "\n" }
            text += "0\n\(tls?.version ?? "TLSv1.3")\n"
        }
        return text
    }

    /// `StatusLine.toString`: `HTTP/1.0` stays, anything else (HTTP/2 too) is `HTTP/1.1`; the
    /// code, then the message after a space (empty for HTTP/2, which has none).
    static func statusLine(_ line: String) -> String {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        let version = parts.first == "HTTP/1.0" ? "HTTP/1.0" : "HTTP/1.1"
        let code = parts.count > 1 ? String(parts[1]) : "200"
        let message = parts.count > 2 ? String(parts[2]) : ""
        return "\(version) \(code) \(message)"
    }

    /// A field as OkHttp's `Headers` keeps it: the name before the first `:` and the trimmed
    /// value; nil for a line that is no field.
    static func field(_ line: String) -> (String, String)? {
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { return nil }
        let name = String(line[..<colon])
        return (name, line[line.index(after: colon)...].trimmingCharacters(in: " \t"))
    }
}
