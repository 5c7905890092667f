/// The whole exchange a HAR entry recorded, for a cache that keeps responses whole (OkHttp's
/// `<key>.0`; docs/usage.md, "Seeding offline from a HAR's bodies"): the status line, every
/// response header that still describes the stored body, the request headers the response's
/// `Vary` names, and when it was sent and received.
extension HAREntry {
    /// Headers of one connection, not of the response (RFC 9110 §7.6.1), and `Proxy-Connection`.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "trailers", "transfer-encoding", "upgrade",
    ]
    /// Headers imgwarm never writes from a capture: cookies set for the user who captured it, and
    /// the request's credentials (even when `Vary` names them).
    static let neverWritten: Set<String> = [
        "set-cookie", "set-cookie2", "cookie", "authorization", "proxy-authorization",
    ]

    /// Fills `recorded`'s status line, fields, request fields and times from the entry.
    func recordExchange(into recorded: inout RecordedResponse) {
        recorded.statusLine = statusLineAsOkHttpWritesIt
        let connection = Set(
            responseHeaders.filter { $0.name.lowercased() == "connection" }.flatMap {
                $0.value.split(separator: ",").map { $0.trimmingCharacters(in: " \t").lowercased() }
            })
        var fields: [String] = []
        var lengthWritten = false
        for header in responseHeaders {
            let name = header.name[...].trimmingCharacters(in: " \t")
            let lower = name.lowercased()
            guard !name.isEmpty, !name.hasPrefix(":"), !HAREntry.hopByHop.contains(lower),
                !connection.contains(lower), !HAREntry.neverWritten.contains(lower), lower != "content-encoding",
                HAREntry.isSafeLine(name), HAREntry.isSafeLine(header.value), !name.contains(":")
            else { continue }
            if lower == "content-length" {
                // The capture's length is the wire's (maybe gzip): the stored body is the decoded one.
                if !lengthWritten { fields.append("Content-Length: \(recorded.length)") }
                lengthWritten = true
                continue
            }
            fields.append("\(name): \(header.value)")
        }
        if !fields.contains(where: { $0.lowercased().hasPrefix("content-type:") }), !mimeType.isEmpty,
            HAREntry.isSafeLine(mimeType)
        {
            fields.append("Content-Type: \(mimeType)")
        }
        recorded.fields = fields
        let varied = Set(
            responseHeaders.filter { $0.name.lowercased() == "vary" }.flatMap {
                $0.value.split(separator: ",").map { $0.trimmingCharacters(in: " \t").lowercased() }
            })
        recorded.requestFields = requestHeaders.compactMap { header in
            let lower = header.name.lowercased()
            guard varied.contains(lower), !HAREntry.neverWritten.contains(lower), !header.name.hasPrefix(":"),
                HAREntry.isSafeLine(header.name), HAREntry.isSafeLine(header.value)
            else { return nil }
            return "\(header.name): \(header.value)"
        }
        if let started = HAREntry.millis(iso8601: startedDateTime) {
            recorded.sentMillis = started
            recorded.receivedMillis = started + Int64(min(time ?? 0, 86_400_000))
        }
    }

    /// `HTTP/1.0` for an HTTP/1.0 capture, else `HTTP/1.1` (HTTP/2 and 3 too: OkHttp's
    /// `StatusLine` writes no other), the status, and the recorded `statusText`, else the
    /// status's reason phrase (an HTTP/2 capture records none).
    var statusLineAsOkHttpWritesIt: String {
        let version = httpVersion.uppercased() == "HTTP/1.0" ? "HTTP/1.0" : "HTTP/1.1"
        let text = statusText.isEmpty || !HAREntry.isSafeLine(statusText) ? HAREntry.reasonPhrase(status) : statusText
        return "\(version) \(status) \(text)"
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 203: return "Non-Authoritative Information"
        case 205: return "Reset Content"
        case 207: return "Multi-Status"
        case 208: return "Already Reported"
        case 226: return "IM Used"
        default: return ""
        }
    }

    /// No line break, NUL or other control character but a tab: it stays one line of `<key>.0`.
    static func isSafeLine(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }
    }

    /// An ISO 8601 date and time as HAR writes it (`2024-05-01T10:00:00.123Z`, `…+02:00`,
    /// seconds' fraction optional) in milliseconds since the epoch; nil for anything else.
    static func millis(iso8601 text: String) -> Int64? {
        let b = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for byte in b[start..<(start + count)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), b[13] == UInt8(ascii: ":"),
            b[16] == UInt8(ascii: ":"), let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var position = 19
        var millis = 0
        if position < b.count && b[position] == UInt8(ascii: ".") {
            position += 1
            var digits = 0
            while position < b.count, (0x30...0x39).contains(b[position]) {
                if digits < 3 { millis = millis * 10 + Int(b[position] - 0x30) }
                digits += 1
                position += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        var offset = 0
        guard position < b.count else { return nil }
        if b[position] == UInt8(ascii: "Z") {
            position += 1
        } else if b[position] == UInt8(ascii: "+") || b[position] == UInt8(ascii: "-") {
            let sign = b[position] == UInt8(ascii: "+") ? 1 : -1
            guard let hours = number(position + 1, 2) else { return nil }
            var minutes = 0
            position += 3
            if position < b.count && b[position] == UInt8(ascii: ":") { position += 1 }
            if position < b.count {
                guard let value = number(position, 2) else { return nil }
                minutes = value
                position += 2
            }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard position == b.count else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
        return Int64(seconds) * 1000 + Int64(millis)
    }
}
