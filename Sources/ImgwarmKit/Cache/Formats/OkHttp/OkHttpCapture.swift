/// A response a capture recorded (`--offline` from a HAR), moved to the moment it is seeded
/// (docs/usage.md, "Seeding offline from a HAR's bodies"): the capture's age maps onto the seed,
/// so that an entry seeded today from a capture of last month is as fresh as the response was
/// when the app first received it. Every date OkHttp's `CacheStrategy` reads (`Date`, `Expires`,
/// `Last-Modified`) moves by the same amount as the sent and received times, so `max-age`,
/// `Expires − Date` and a tenth of `Date − Last-Modified` keep their lengths; `Age` is kept.
enum OkHttpCapture {
    /// The headers whose dates move.
    static let movedDates: Set<String> = ["date", "expires", "last-modified"]

    /// How far the capture moves: from when it received the response (`captured.receivedMillis`,
    /// else its recorded `Date`) to `receivedMillis`; 0 when neither is known.
    static func shift(_ captured: CapturedExchange, fields: [(String, String)], receivedMillis: Int64) -> Int64 {
        let recordedDate = fields.first { $0.0.lowercased() == "date" }.flatMap { date(millisOf: $0.1) }
        guard let then = captured.receivedMillis ?? recordedDate else { return 0 }
        return receivedMillis - then
    }

    /// `fields` with each date of `movedDates` that parses moved by `delta` milliseconds (a date
    /// that does not parse, `Expires: 0`, stays as recorded: OkHttp reads it as in the past either way).
    static func moved(_ fields: [(String, String)], by delta: Int64) -> [(String, String)] {
        guard delta != 0 else { return fields }
        return fields.map { name, value in
            guard movedDates.contains(name.lowercased()), let millis = date(millisOf: value) else {
                return (name, value)
            }
            return (name, httpDate(millis: millis + delta))
        }
    }

    static func date(millisOf text: String) -> Int64? {
        RetryPolicy.parseHTTPDate(text).map { Int64($0) * 1000 }
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), whole seconds rounded down.
    static func httpDate(millis: Int64) -> String {
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let clock = seconds - days * 86400
        // The civil date of a day count (Howard Hinnant's algorithm).
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(weekday), \(two(day)) \(months[Int(month) - 1]) \(year) \(two(clock / 3600)):\(two(clock / 60 % 60)):\(two(clock % 60)) GMT"
    }
}
