/// A strict, small JSON parser for one JSON Lines record.
///
/// Lists can hold millions of lines, so this avoids Foundation's JSONSerialization (and its
/// per-line object graph); errors name the column. Nesting is limited so a hostile line cannot
/// exhaust the stack.
public enum JSONLine {
    public indirect enum Value: Equatable, Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([Value])
        case object([(String, Value)])

        public static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.null, .null): return true
            case (.bool(let a), .bool(let b)): return a == b
            case (.number(let a), .number(let b)): return a == b
            case (.string(let a), .string(let b)): return a == b
            case (.array(let a), .array(let b)): return a == b
            case (.object(let a), .object(let b)):
                return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
            default: return false
            }
        }

        /// How messages name this value's type.
        public var typeName: String {
            switch self {
            case .null: return "null"
            case .bool: return "a boolean"
            case .number: return "a number"
            case .string: return "a string"
            case .array: return "an array"
            case .object: return "an object"
            }
        }
    }

    public struct ParseError: Error, Equatable, Sendable {
        public var message: String
        public var column: Int
    }

    public static let maxDepth = 32

    /// Parses `bytes` as exactly one JSON value (white space around it allowed).
    public static func parse(_ bytes: ArraySlice<UInt8>) -> Result<Value, ParseError> {
        var parser = Parser(bytes: bytes)
        do throws(ParseError) {
            parser.skipSpace()
            let value = try parser.value(depth: 0)
            parser.skipSpace()
            if parser.index != bytes.endIndex { throw parser.error("unexpected text after the JSON value") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    struct Parser {
        let bytes: ArraySlice<UInt8>
        var index: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        func error(_ message: String) -> ParseError {
            ParseError(message: message, column: index - bytes.startIndex + 1)
        }

        var current: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

        mutating func skipSpace() {
            while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { index += 1 }
        }

        mutating func expect(_ literal: String, _ value: Value) throws(ParseError) -> Value {
            for byte in literal.utf8 {
                guard current == byte else { throw error("invalid literal (expected \(literal))") }
                index += 1
            }
            return value
        }

        mutating func value(depth: Int) throws(ParseError) -> Value {
            guard depth < JSONLine.maxDepth else { throw error("nested deeper than \(JSONLine.maxDepth) levels") }
            guard let c = current else { throw error("unexpected end of line") }
            switch c {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected character '\(Unicode.Scalar(c))'")
            }
        }

        mutating func object(depth: Int) throws(ParseError) -> Value {
            index += 1
            var members: [(String, Value)] = []
            skipSpace()
            if current == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else { throw error("expected a quoted member name") }
                let name = try string()
                skipSpace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
                index += 1
                skipSpace()
                members.append((name, try value(depth: depth + 1)))
                skipSpace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard current == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
                index += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> Value {
            index += 1
            var items: [Value] = []
            skipSpace()
            if current == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard current == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
                index += 1
                return .array(items)
            }
        }

        mutating func number() throws(ParseError) -> Value {
            let start = index
            if current == UInt8(ascii: "-") { index += 1 }
            func digits(_ parser: inout Parser) -> Int {
                var count = 0
                while let c = parser.current, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") {
                    parser.index += 1
                    count += 1
                }
                return count
            }
            if current == UInt8(ascii: "0") { index += 1 } else if digits(&self) == 0 { throw error("invalid number") }
            if current == UInt8(ascii: ".") {
                index += 1
                if digits(&self) == 0 { throw error("invalid number") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                if digits(&self) == 0 { throw error("invalid number") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let number = Double(text) else { throw error("invalid number") }
            return .number(number)
        }

        mutating func string() throws(ParseError) -> String {
            index += 1
            var out: [UInt8] = []
            while true {
                guard let c = current else { throw error("unterminated string") }
                index += 1
                switch c {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: out, as: UTF8.self) else {
                        throw error("string is not valid UTF-8")
                    }
                    return text
                case UInt8(ascii: "\\"):
                    guard let escape = current else { throw error("unterminated escape") }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800...0xDBFF).contains(code) {
                            guard current == UInt8(ascii: "\\"), index + 1 < bytes.endIndex,
                                bytes[index + 1] == UInt8(ascii: "u")
                            else {
                                throw error("unpaired surrogate in \\u escape")
                            }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else {
                                throw error("unpaired surrogate in \\u escape")
                            }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(code) {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default:
                        throw error("invalid escape '\\\(Unicode.Scalar(escape))'")
                    }
                case 0..<0x20:
                    index -= 1
                    throw error("control character in a string (escape it)")
                default:
                    out.append(c)
                }
            }
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let c = current, URIReference.isHex(c) else { throw error("invalid \\u escape") }
                index += 1
                let digit = c <= UInt8(ascii: "9") ? c - UInt8(ascii: "0") : (c | 0x20) - UInt8(ascii: "a") + 10
                value = value << 4 | UInt32(digit)
            }
            return value
        }
    }
}
