/// Parsers for the quantities users type: sizes (`500M`), ages (`7d`) and durations (`1.5`).
///
/// Each failure carries a message that shows a valid example; the CLI turns it into a usage
/// error (exit code 2).
public enum Quantities {
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// A byte size. Plain bytes; `K M G T` and `KiB MiB GiB TiB` are powers of 1024, `KB MB GB TB`
    /// powers of 1000 (SPEC §3); a trailing `B` alone means bytes. Decimals are allowed (`1.5G`)
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

    /// An age in seconds, or nil for "never expire". Units `s m h d w`; a plain number is seconds;
    /// `never` or any negative value disables expiry; `0` expires everything.
    public static func parseAge(_ text: String) throws(ParseError) -> Double? {
        let example = "use a number with a unit s, m, h, d or w (e.g. 7d, 12h, 30m), 0, or never"
        let trimmed = text.trimmingSpaces
        if trimmed.lowercased() == "never" { return nil }
        let (number, unit) = splitNumber(trimmed)
        guard !number.isEmpty, let value = Double(number), value.isFinite, number.first != "+" else {
            throw ParseError(description: "invalid age '\(text)': \(example)")
        }
        let multiplier: Double
        switch unit.lowercased() {
        case "", "s": multiplier = 1
        case "m": multiplier = 60
        case "h": multiplier = 3600
        case "d": multiplier = 86400
        case "w": multiplier = 7 * 86400
        default:
            throw ParseError(description: "invalid age '\(text)': unknown unit '\(unit)'; \(example)")
        }
        if value < 0 { return nil }
        return value * multiplier
    }

    /// A non-negative number of seconds (`15`, `0.5`, `2m`): timeouts and delays.
    public static func parseSeconds(_ text: String, option: String) throws(ParseError) -> Double {
        guard let value = try? parseAge(text), value >= 0 else {
            throw ParseError(description: "invalid \(option) '\(text)': use seconds such as 15 or 0.5, or a unit: 2m")
        }
        return value
    }

    /// Splits `"12.5GiB"` into `("12.5", "GiB")`.
    private static func splitNumber(_ text: String) -> (String, String) {
        let scalars = text.unicodeScalars
        let end = scalars.firstIndex { !("0"..."9").contains($0) && $0 != "." && $0 != "-" && $0 != "+" } ?? scalars.endIndex
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
