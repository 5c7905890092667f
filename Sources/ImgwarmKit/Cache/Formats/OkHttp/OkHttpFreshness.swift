import ImgwarmSystem

/// Whether OkHttp serves a stored entry without the network, and until when, by the rules of
/// `internal/cache/CacheStrategy.java` (docs/cache-formats-android.md, "OkHttp"): `verify` says
/// it of each hit. The entry's age is the response's (`Age`, or `Date` to the time it arrived)
/// plus the time since; it is fresh while younger than `max-age`, else `Expires` minus `Date`,
/// else (a URL without a query) a tenth of `Date` minus `Last-Modified`. `no-cache` (or `Pragma:
/// no-cache`) and `no-store` make OkHttp ask the server every time, which fails offline.
struct OkHttpFreshness {
    var url: String
    var status: Int
    var fields: [(String, String)]
    var sentMillis: Int64
    var receivedMillis: Int64

    /// Reads `<key>.0` as `Cache.Entry(Source)` does; nil when it is not such a file.
    init?(metadata bytes: [UInt8]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var index = 0
        func next() -> String? {
            guard index < lines.count else { return nil }
            defer { index += 1 }
            return String(lines[index])
        }
        guard let url = next(), next() != nil, let varyCount = next().flatMap({ Int($0) }), varyCount >= 0 else {
            return nil
        }
        for _ in 0..<varyCount { _ = next() }
        guard let statusLine = next(), let count = next().flatMap({ Int($0) }), count >= 0 else { return nil }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var fields: [(String, String)] = []
        for _ in 0..<count {
            guard let line = next(), let field = OkHttpEntry.field(line) else { return nil }
            fields.append(field)
        }
        self.url = url
        self.status = status
        func millis(_ name: String) -> Int64 {
            fields.first { $0.0.lowercased() == name }.flatMap { Int64($0.1) } ?? 0
        }
        sentMillis = millis("okhttp-sent-millis")
        receivedMillis = millis("okhttp-received-millis")
        self.fields = fields.filter { !$0.0.lowercased().hasPrefix("okhttp-") }
    }

    func values(_ name: String) -> [String] { fields.filter { $0.0.lowercased() == name }.map(\.1) }

    /// The directives of `Cache-Control` and `Pragma`, lower-cased, with their values.
    var directives: [String: String] {
        var result: [String: String] = [:]
        for value in values("cache-control") + values("pragma") {
            for item in value.split(separator: ",") {
                let pair = item.split(separator: "=", maxSplits: 1)
                let name = pair[0].trimmingCharacters(in: " \t").lowercased()
                result[name] = pair.count > 1 ? pair[1].trimmingCharacters(in: " \t\"") : ""
            }
        }
        return result
    }

    func date(_ name: String) -> Int64? {
        values(name).first.flatMap(RetryPolicy.parseHTTPDate).map { Int64($0 * 1000) }
    }

    /// `CacheStrategy.isCacheable`: the status codes it keeps (302 and 307 only with an explicit
    /// lifetime) and no `no-store`.
    var isCacheable: Bool {
        let d = directives
        if d["no-store"] != nil { return false }
        switch status {
        case 200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501: return true
        case 302, 307:
            return !values("expires").isEmpty || d["max-age"] != nil || d["public"] != nil || d["private"] != nil
        default: return false
        }
    }

    /// `computeFreshnessLifetime`, in milliseconds.
    var lifetime: Int64 {
        let d = directives
        if let maxAge = d["max-age"].flatMap({ Int64($0) }) { return maxAge * 1000 }
        let served = date("date")
        if let expires = date("expires") {
            return max(0, expires - (served ?? receivedMillis))
        }
        if let modified = date("last-modified"), !url.contains("?") {
            let delta = (served ?? sentMillis) - modified
            return delta > 0 ? delta / 10 : 0
        }
        return 0
    }

    /// `cacheResponseAge` at the moment the response arrived, in milliseconds.
    var ageOnArrival: Int64 {
        let apparent = date("date").map { max(0, receivedMillis - $0) } ?? 0
        let header = values("age").first.flatMap { Int64($0) }.map { $0 * 1000 }
        return max(apparent, header ?? 0) + (receivedMillis - sentMillis)
    }

    /// What OkHttp does with the entry without the network, at `now`, in words.
    func note(now: Timestamp) -> String {
        guard isCacheable else {
            return "OkHttp does not serve it from the cache (status \(status) or no-store)"
        }
        if directives["no-cache"] != nil {
            return "OkHttp asks the server every time (no-cache): offline it does not serve it"
        }
        let until = receivedMillis + lifetime - ageOnArrival
        let nowMillis = now.seconds * 1000 + now.nanoseconds / 1_000_000
        let when = Timestamp(seconds: until / 1000, nanoseconds: (until % 1000) * 1_000_000).iso8601
        if until > nowMillis { return "OkHttp serves it offline until \(when)" }
        let forced = directives["must-revalidate"] == nil ? "only to a FORCE_CACHE request" : "not even to FORCE_CACHE"
        return
            "stale since \(when): offline OkHttp serves it \(forced) (prefetch \(Setting.freshness) stores a max-age)"
    }
}
