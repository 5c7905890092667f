/// Text made safe for line-oriented output: one record, one line, and no byte a terminal acts on.
///
/// The scheme of GNU `ls --quoting-style=escape`, with hexadecimal for the rest: a backslash is
/// `\\`; newline, tab, carriage return, bell, backspace, form feed and vertical tab are `\n`,
/// `\t`, `\r`, `\a`, `\b`, `\f`, `\v`; every other control character — the rest of U+0000–U+001F,
/// DEL, and U+0080–U+009F — is `\xHH` for each of its UTF-8 bytes (U+009B is `\xc2\x9b`).
/// Everything else is printed as it is. `imgwarm path -0` prints paths unescaped instead.
enum EscapedText {
    /// `text` with the characters above escaped; `text` itself when it holds none.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\u{07}": result += "\\a"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case "\u{0B}": result += "\\v"
            default:
                for byte in String(scalar).utf8 {
                    let hex = String(byte, radix: 16)
                    result += "\\x" + (hex.count == 1 ? "0" + hex : hex)
                }
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\\"
    }
}
