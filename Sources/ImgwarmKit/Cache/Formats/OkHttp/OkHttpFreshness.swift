import ImgwarmSystem

/// Whether OkHttp serves a stored entry without the network, and until when, by the rules of
/// `internal/cache/CacheStrategy.java` (docs/cache-formats-android.md, "OkHttp"): `verify` says
/// it of each hit, and a hit OkHttp would not serve offline is `stale`. The entry's age is the
/// response's (`Age`, or `Date` to the time it arrived) plus the time since; it is fresh while
/// younger than `max-age`, else `Expires` minus `Date`, else (a URL without a query) a tenth of
/// `Date` minus `Last-Modified`. `no-cache` (or `Pragma: no-cache`) and `no-store` make OkHttp ask
/// the server every time, which fails offline.
struct OkHttpFreshness {
    var url: String
    var status: Int
    var fields: [(String, String)]
    var sentMillis: Int64
    var receivedMillis: Int64

    init(_ metadata: OkHttpMetadata) {
        url = metadata.url
        status = metadata.status
        fields = metadata.fields
        sentMillis = metadata.sentMillis
        receivedMillis = metadata.receivedMillis
    }

    func values(_ name: String) -> [String] { fields.filter { $0.0.lowercased() == name }.map(\.1) }

    /// The directives of `Cache-Control` and `Pragma`, lower-cased, with their values.
    var directives: [String: String] {
        var result: [String: String] = [:]
        for value in values("cache-control") + values("pragma") {
            for item in value.split(separator: ",") {
                let pair = item.split(separator: "=", maxSplits: 1)
                guard let first = pair.first else { continue }
                let name = first.trimmingCharacters(in: " \t").lowercased()
                result[name] = pair.count > 1 ? pair[1].trimmingCharacters(in: " \t\"") : ""
            }
        }
        return result
    }

    /// `HttpHeaders.parseSeconds`: a number of seconds, clamped to 2^31−1; nil when not one.
    static func seconds(_ text: String?) -> Int64? {
        guard let text, !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text).map { min($0, Int64(Int32.max)) } ?? Int64(Int32.max)
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
        if let maxAge = Self.seconds(d["max-age"]) { return maxAge * 1000 }
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
        let header = Self.seconds(values("age").first).map { $0 * 1000 }
        return max(apparent, header ?? 0) + (receivedMillis - sentMillis)
    }

    /// The instant the entry stops being fresh for OkHttp (`receivedMillis` for one it never
    /// serves without asking), in milliseconds.
    var freshUntil: Int64 {
        guard isCacheable, directives["no-cache"] == nil else { return receivedMillis }
        return receivedMillis + lifetime - ageOnArrival
    }

    /// Whether OkHttp serves the entry without the network at `now` (milliseconds).
    func isFresh(atMillis now: Int64) -> Bool {
        isCacheable && directives["no-cache"] == nil && freshUntil > now
    }

    /// How the app revalidates a stale entry (`CacheStrategy.getCandidate`'s conditions).
    var validatorNote: String {
        if !values("etag").isEmpty {
            return "its ETag lets the app revalidate it cheaply (If-None-Match: a 304 sends no body)"
        }
        if !values("last-modified").isEmpty {
            return "its Last-Modified lets the app revalidate it cheaply (If-Modified-Since: a 304 sends no body)"
        }
        return "no validator (ETag or Last-Modified): the app downloads it again"
    }

    /// What OkHttp does with the entry without the network at `now`.
    func judge(now: Timestamp) -> HitJudgement {
        let nowMillis = now.seconds * 1000 + now.nanoseconds / 1_000_000
        let since = Self.timestamp(millis: freshUntil)
        let advice = "prefetch \(Setting.freshness) stores a max-age"
        guard isCacheable else {
            return .stale(
                since: since,
                "OkHttp does not serve it from the cache at all (status \(status) or no-store); \(validatorNote)")
        }
        if directives["no-cache"] != nil {
            return .stale(
                since: since,
                "OkHttp asks the server every time (no-cache): offline it does not serve it; \(validatorNote) (\(advice))"
            )
        }
        if freshUntil > nowMillis { return .serves("OkHttp serves it offline until \(since.iso8601)") }
        let forced = directives["must-revalidate"] == nil ? "only to a FORCE_CACHE request" : "not even to FORCE_CACHE"
        return .stale(
            since: since,
            "stale since \(since.iso8601): offline OkHttp serves it \(forced); \(validatorNote) (\(advice))")
    }

    static func timestamp(millis: Int64) -> Timestamp {
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        return Timestamp(seconds: seconds, nanoseconds: (millis - seconds * 1000) * 1_000_000)
    }
}
