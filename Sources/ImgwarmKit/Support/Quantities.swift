/// Parsers for the quantities users type: sizes (`500M`), ages (`7d`) and durations (`1.5`).
///
/// Each failure carries a message that shows a valid example; the CLI turns it into a usage
/// error.
public enum Quantities {
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// A byte size. Plain bytes; `K M G T` and `KiB MiB GiB TiB` are powers of 1024, `KB MB GB TB`
    /// powers of 1000 (docs/cache-contract.md §3); a trailing `B` alone means bytes. Decimals are allowed (`1.5G`)
    /// and rounded down to whole bytes. Unit letters are case-insensitive.
    public static func parseSize(_ text: String) throws(ParseError) -> UInt64 {
        let example = "use bytes or a number with a unit, e.g. 500M, 2GiB, 750MB or 1048576"
        let trimmed = text.trimmingSpaces
        let (number, unit) = splitNumber(trimmed)
        guard !number.isEmpty, let value = Double(number), value >= 0, value.isFinite,
            number.first != "+", !number.hasPrefix(".") || number.count > 1
        else {
            throw ParseError(description: "invalid size '\(text)': \(example)")
        }
        let multiplier: Double
        switch unit.lowercased() {
        case "", "b": multiplier = 1
        case "k", "kib": multiplier = 1024
        case "m", "mib": multiplier = 1024 * 1024
        case "g", "gib": multiplier = 1024 * 1024 * 1024
        case "t", "tib": multiplier = 1024 * 1024 * 1024 * 1024
        case "kb": multiplier = 1e3
        case "mb": multiplier = 1e6
        case "gb": multiplier = 1e9
        case "tb": multiplier = 1e12
        default:
            throw ParseError(description: "invalid size '\(text)': unknown unit '\(unit)'; \(example)")
        }
        let bytes = (value * multiplier).rounded(.down)
        guard bytes < 1.8e19 else { throw ParseError(description: "invalid size '\(text)': too large") }
        return UInt64(bytes)
    }

    /// An age. Units `s m h d w`, lower-case only (`M` could mean months or minutes: it is refused
    /// with a hint); a plain number is seconds; `never` or any negative value is `.never`; `0`
    /// expires everything.
    public static func parseAge(_ text: String) throws(ParseError) -> Expiry {
        let example = "use a number with a unit s, m, h, d or w (e.g. 7d, 12h, 30m), 0, or never"
        let trimmed = text.trimmingSpaces
        if trimmed.lowercased() == "never" { return .never }
        let (number, unit) = splitNumber(trimmed)
        guard !number.isEmpty, let value = Double(number), value.isFinite, number.first != "+" else {
            throw ParseError(description: "invalid age '\(text)': \(example)")
        }
        let multiplier: Double
        switch unit {
        case "", "s": multiplier = 1
        case "m": multiplier = 60
        case "h": multiplier = 3600
        case "d": multiplier = 86400
        case "w": multiplier = 7 * 86400
        default:
            throw ParseError(description: "invalid age '\(text)': \(ageUnitHint(unit, example: example))")
        }
        if value < 0 { return .never }
        return .after(seconds: value * multiplier)
    }

    /// Why `unit` is not an age unit, with the nearest one that is.
    private static func ageUnitHint(_ unit: String, example: String) -> String {
        switch unit {
        case "M", "mo", "mon", "month", "months", "MO":
            return
                "unknown unit '\(unit)': months are not a unit (their length varies); use days, e.g. 30d (minutes are a lower-case m)"
        case "y", "Y", "yr", "year", "years":
            return "unknown unit '\(unit)': years are not a unit; use days, e.g. 365d"
        case "S", "H", "D", "W":
            return "unknown unit '\(unit)': units are lower-case, e.g. \(unit.lowercased())"
        default:
            return "unknown unit '\(unit)'; \(example)"
        }
    }

    /// A non-negative number of seconds (`15`, `0.5`, `2m`): timeouts and delays.
    public static func parseSeconds(_ text: String, option: String) throws(ParseError) -> Double {
        guard let age = try? parseAge(text), case .after(let value) = age else {
            throw ParseError(description: "invalid \(option) '\(text)': use seconds such as 15 or 0.5, or a unit: 2m")
        }
        return value
    }

    /// Seconds as the shortest age a user would write: `604800` → `7d`, `90` → `90s`, `5400` → `90m`.
    public static func formatAge(_ seconds: Double) -> String {
        for (unit, size) in [("d", 86400.0), ("h", 3600), ("m", 60)]
        where seconds >= size && (seconds / size).rounded() == seconds / size {
            return formatNumber(seconds / size) + unit
        }
        return formatNumber(seconds) + (seconds == 0 ? "" : "s")
    }

    /// Bytes as the shortest size a user would write: `52428800` → `50MiB`, `1000` → `1000`.
    public static func formatSize(_ bytes: UInt64) -> String {
        for (unit, shift) in [("TiB", UInt64(40)), ("GiB", 30), ("MiB", 20), ("KiB", 10)]
        where bytes >= 1 << shift && bytes & ((1 << shift) - 1) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return "\(bytes)"
    }

    /// `15` for 15.0, `0.5` for 0.5: numbers in help texts and messages.
    public static func formatNumber(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Splits `"12.5GiB"` into `("12.5", "GiB")`.
    private static func splitNumber(_ text: String) -> (String, String) {
        let scalars = text.unicodeScalars
        let end =
            scalars.firstIndex { !("0"..."9").contains($0) && $0 != "." && $0 != "-" && $0 != "+" } ?? scalars.endIndex
        return (String(scalars[..<end]), String(scalars[end...]).trimmingSpaces)
    }

    /// `1536` → `1.5 KiB`: sizes for people.
    public static func formatBytes(_ bytes: UInt64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return formatDecimal(value, digits: value < 10 ? 2 : 1) + " " + units[unit]
    }

    /// A number with a fixed count of fraction digits, without Foundation.
    public static func formatDecimal(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return String(value) }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = UInt64(scaled / scale)
        let fraction = UInt64(scaled - Double(whole) * scale)
        var text = (value < 0 && scaled > 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let fractionText = String(fraction)
            text += "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
        }
        return text
    }
}

extension String {
    /// The string without leading and trailing ASCII white space (space, tab, CR, LF, VT, FF).
    var trimmingSpaces: String {
        let bytes = utf8
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (c >= 0x09 && c <= 0x0d) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = bytes.lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }
}
