/// What flutter_cache_manager 3.4.1 takes from a download's response headers for its database
/// row and file name (`HttpGetResponse` in `lib/src/web/file_service.dart`, `ContentTypeConverter`
/// in `lib/src/web/mime_converter.dart`; docs/cache-formats-android.md, "flutter_cache_manager").
public enum FlutterResponse {
    /// How long a response without a usable `max-age` stays valid: 7 days, in milliseconds.
    public static let defaultValidity: Int64 = 7 * 86_400 * 1000

    /// The latest instant Dart's `DateTime` holds (8.64e15 ms since the epoch); a `validTill`
    /// beyond it is written as it.
    public static let latestInstant: Int64 = 8_640_000_000_000_000

    /// The row's `validTill` (epoch milliseconds) for a response received at `receivedAt`
    /// (epoch milliseconds) whose `Cache-Control` header (several joined with `,`) is
    /// `cacheControl`: each comma-separated setting, trimmed and lower-cased, `no-cache` makes it
    /// `receivedAt`, `max-age=N` with a decimal N > 0 makes it `receivedAt + N` seconds; later
    /// settings win; none of them, 7 days.
    public static func validTill(receivedAt: Int64, cacheControl: String?) -> Int64 {
        var validity = defaultValidity
        for setting in (cacheControl ?? "").split(separator: ",", omittingEmptySubsequences: false) {
            let sanitized = trimmed(setting).lowercased()
            if sanitized == "no-cache" { validity = 0 }
            guard sanitized.hasPrefix("max-age=") else { continue }
            // Dart's `split('=')[1]`: the text up to a second `=`, if any.
            let value = sanitized.dropFirst("max-age=".count).split(separator: "=", omittingEmptySubsequences: false)[0]
            if let seconds = dartIntTryParse(value), seconds > 0 {
                let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
                validity = overflow ? latestInstant : milliseconds
            }
        }
        let (sum, overflow) = receivedAt.addingReportingOverflow(validity)
        return overflow ? latestInstant : min(sum, latestInstant)
    }

    /// The file name extension (with its dot) the library gives a download whose `Content-Type`
    /// is `contentType`: its table's extension for the media type, else `.` + the subtype; the
    /// empty string without the header.
    public static func fileExtension(contentType: String?) -> String {
        guard let contentType else { return "" }
        // dart:io's `ContentType.parse`: the value ends at a space, a tab or `;`; types lower-cased.
        let value = contentType.drop { $0 == " " || $0 == "\t" }.prefix { $0 != " " && $0 != "\t" && $0 != ";" }
        let primary: String
        let subtype: String
        if let slash = value.firstIndex(of: "/"), value.index(after: slash) != value.endIndex {
            primary = trimmed(value[..<slash]).lowercased()
            subtype = trimmed(value[value.index(after: slash)...]).lowercased()
        } else {
            primary = trimmed(value).lowercased()
            subtype = ""
        }
        return knownExtensions["\(primary)/\(subtype)"] ?? ".\(subtype)"
    }

    /// The entries of the library's media type table that an image download can meet (its table
    /// also names audio, video, font and office types, which imgwarm never stores).
    static let knownExtensions: [String: String] = [
        "image/bmp": ".bmp", "image/gif": ".gif", "image/jpeg": ".jpg", "image/png": ".png",
        "image/svg+xml": ".svg", "image/tiff": ".tiff", "image/vnd.microsoft.icon": ".ico", "image/webp": ".webp",
        "application/octet-stream": ".bin", "text/plain": ".txt",
    ]

    /// Dart's `String.trim()` for the characters a header holds.
    static func trimmed<S: StringProtocol>(_ text: S) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        let start = text.firstIndex { !isSpace($0) } ?? text.endIndex
        let end = text[start...].lastIndex { !isSpace($0) }.map { text.index(after: $0) } ?? start
        return Substring(text[start..<end])
    }

    /// Dart's `int.tryParse` without a radix: surrounding whitespace, an optional sign, decimal
    /// digits or `0x` and hex digits, within 64 bits; else nil.
    static func dartIntTryParse<S: StringProtocol>(_ text: S) -> Int64? {
        var rest = trimmed(text)
        var negative = false
        if let sign = rest.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            rest = rest.dropFirst()
        }
        var radix: Int64 = 10
        if rest.count > 2, rest.hasPrefix("0x") || rest.hasPrefix("0X") {
            radix = 16
            rest = rest.dropFirst(2)
        }
        guard !rest.isEmpty else { return nil }
        var value: Int64 = 0
        for character in rest {
            guard let digit = character.hexDigitValue, Int64(digit) < radix, character.isASCII else { return nil }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: radix)
            let (next, overflowB) =
                negative
                ? shifted.subtractingReportingOverflow(Int64(digit)) : shifted.addingReportingOverflow(Int64(digit))
            guard !overflowA, !overflowB else { return nil }
            value = next
        }
        return value
    }
}
