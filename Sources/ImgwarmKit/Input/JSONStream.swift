/// An incremental JSON tokenizer: the document arrives in chunks of any size (a HAR of 500 MB is
/// read 64 KiB at a time) and comes out as events, strings in pieces, so that no string (a
/// base64 body of megabytes) and no part of the tree is ever held whole by the tokenizer.
///
/// `JSONLine` parses one small record into a tree; this is its streaming sibling for documents
/// too big for memory. No package on the machine streams JSON for Swift (Foundation's
/// `JSONSerialization` and swift-foundation's decoder both want the whole document, and the
/// engine may not import Foundation), hence this one. Strict as `JSONLine` is: a syntax error
/// names its byte offset in the document; nesting is limited.
struct JSONStream {
    /// What the tokenizer saw. A string is `stringStart`, zero or more `stringBytes` (escapes
    /// decoded, UTF-8 as written: the consumer validates what it keeps) and `stringEnd`.
    enum Event {
        case objectStart, objectEnd, arrayStart, arrayEnd
        case stringStart(isKey: Bool)
        case stringBytes(ArraySlice<UInt8>)
        case stringEnd
        case number(Double)
        case bool(Bool)
        case null
    }

    struct SyntaxError: Error, Equatable {
        /// 0-based offset of the offending byte in the document (its length for a truncated one).
        var offset: Int
        var message: String
    }

    static let maxDepth = 64

    private enum Expect { case value, valueOrEnd, key, keyOrEnd, colon, commaOrEnd, done }
    private enum Lexeme {
        case none
        case string(isKey: Bool)
        case escape(isKey: Bool)
        case unicode(isKey: Bool, digits: Int, code: UInt32)
        case number
        case literal(text: [UInt8], matched: Int, event: Event)
    }

    private var expect = Expect.value
    private var lexeme = Lexeme.none
    /// True for each open object, false for each open array.
    private var containers: [Bool] = []
    private var numberText: [UInt8] = []
    private var highSurrogate: UInt32?
    /// Bytes consumed so far: the offset syntax errors name.
    private(set) var offset = 0

    /// Tokenizes `chunk`, handing every event to `sink`.
    mutating func feed(_ chunk: ArraySlice<UInt8>, _ sink: (Event) -> Void) throws(SyntaxError) {
        var i = chunk.startIndex
        let end = chunk.endIndex
        while i < end {
            let c = chunk[i]
            switch lexeme {
            case .string(let isKey):
                // The run up to the next quote, backslash or control character in one piece.
                var j = i
                while j < end {
                    let b = chunk[j]
                    if b == 0x22 || b == 0x5C || b < 0x20 { break }
                    j += 1
                }
                if j > i {
                    try flushSurrogate(at: i)
                    sink(.stringBytes(chunk[i..<j]))
                }
                offset += j - i
                i = j
                guard i < end else { return }
                let b = chunk[i]
                if b < 0x20 { throw SyntaxError(offset: offset, message: "control character in a string (escape it)") }
                i += 1
                offset += 1
                if b == 0x5C {
                    lexeme = .escape(isKey: isKey)
                } else {
                    try flushSurrogate(at: offset - 1)
                    lexeme = .none
                    sink(.stringEnd)
                    expect = isKey ? .colon : .commaOrEnd
                    if !isKey { valueDone() }
                }
                continue
            case .escape(let isKey):
                let decoded: UInt8
                switch c {
                case 0x22, 0x5C, 0x2F: decoded = c
                case UInt8(ascii: "b"): decoded = 0x08
                case UInt8(ascii: "f"): decoded = 0x0C
                case UInt8(ascii: "n"): decoded = 0x0A
                case UInt8(ascii: "r"): decoded = 0x0D
                case UInt8(ascii: "t"): decoded = 0x09
                case UInt8(ascii: "u"):
                    lexeme = .unicode(isKey: isKey, digits: 0, code: 0)
                    i += 1
                    offset += 1
                    continue
                default: throw SyntaxError(offset: offset, message: "invalid escape '\\\(Unicode.Scalar(c))'")
                }
                try flushSurrogate(at: offset)
                sink(.stringBytes([decoded][...]))
                lexeme = .string(isKey: isKey)
                i += 1
                offset += 1
                continue
            case .unicode(let isKey, let digits, let code):
                guard URIReference.isHex(c) else { throw SyntaxError(offset: offset, message: "invalid \\u escape") }
                let digit = c <= UInt8(ascii: "9") ? c - UInt8(ascii: "0") : (c | 0x20) - UInt8(ascii: "a") + 10
                let value = code << 4 | UInt32(digit)
                i += 1
                offset += 1
                if digits < 3 {
                    lexeme = .unicode(isKey: isKey, digits: digits + 1, code: value)
                    continue
                }
                lexeme = .string(isKey: isKey)
                try unicodeEscape(value, sink)
                continue
            case .number:
                if (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2B || c == 0x2E || c == 0x65 || c == 0x45 {
                    guard numberText.count < 64 else { throw SyntaxError(offset: offset, message: "number too long") }
                    numberText.append(c)
                    i += 1
                    offset += 1
                    continue
                }
                try endNumber(sink)  // and look at `c` again below
            case .literal(let text, let matched, let event):
                guard c == text[matched] else {
                    throw SyntaxError(
                        offset: offset, message: "invalid literal (expected \(String(decoding: text, as: UTF8.self)))")
                }
                i += 1
                offset += 1
                if matched + 1 == text.count {
                    lexeme = .none
                    sink(event)
                    valueDone()
                } else {
                    lexeme = .literal(text: text, matched: matched + 1, event: event)
                }
                continue
            case .none:
                break
            }
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D {
                i += 1
                offset += 1
                continue
            }
            try structural(c, sink)
            i += 1
            offset += 1
        }
    }

    /// Ends the document: an error unless exactly one complete value was read.
    mutating func finish(_ sink: (Event) -> Void) throws(SyntaxError) {
        if case .number = lexeme { try endNumber(sink) }
        guard expect == .done, case .none = lexeme else {
            throw SyntaxError(offset: offset, message: "the JSON ends early (truncated?)")
        }
    }

    /// One byte outside strings, numbers and literals.
    private mutating func structural(_ c: UInt8, _ sink: (Event) -> Void) throws(SyntaxError) {
        func unexpected(_ what: String) -> SyntaxError {
            let shown = c >= 0x20 && c < 0x7F ? "'\(Unicode.Scalar(c))'" : "byte 0x" + URLRules.hex2(c)
            return SyntaxError(offset: offset, message: "unexpected \(shown): \(what)")
        }
        switch expect {
        case .done:
            throw unexpected("text after the JSON value")
        case .colon:
            guard c == 0x3A else { throw unexpected("expected ':' after a member name") }
            expect = .value
        case .key, .keyOrEnd:
            if c == 0x7D && expect == .keyOrEnd {
                containers.removeLast()
                sink(.objectEnd)
                valueDone()
                return
            }
            guard c == 0x22 else { throw unexpected("expected a quoted member name") }
            lexeme = .string(isKey: true)
            sink(.stringStart(isKey: true))
        case .commaOrEnd:
            let inObject = containers.last == true
            if c == 0x2C {
                expect = inObject ? .key : .value
            } else if c == (inObject ? 0x7D : 0x5D) {
                containers.removeLast()
                sink(inObject ? .objectEnd : .arrayEnd)
                valueDone()
            } else {
                throw unexpected(inObject ? "expected ',' or '}'" : "expected ',' or ']'")
            }
        case .value, .valueOrEnd:
            if c == 0x5D && expect == .valueOrEnd {
                containers.removeLast()
                sink(.arrayEnd)
                valueDone()
                return
            }
            switch c {
            case 0x7B, 0x5B:
                guard containers.count < JSONStream.maxDepth else {
                    throw SyntaxError(offset: offset, message: "nested deeper than \(JSONStream.maxDepth) levels")
                }
                containers.append(c == 0x7B)
                expect = c == 0x7B ? .keyOrEnd : .valueOrEnd
                sink(c == 0x7B ? .objectStart : .arrayStart)
            case 0x22:
                lexeme = .string(isKey: false)
                sink(.stringStart(isKey: false))
            case UInt8(ascii: "t"): lexeme = .literal(text: Array("true".utf8), matched: 1, event: .bool(true))
            case UInt8(ascii: "f"): lexeme = .literal(text: Array("false".utf8), matched: 1, event: .bool(false))
            case UInt8(ascii: "n"): lexeme = .literal(text: Array("null".utf8), matched: 1, event: .null)
            case 0x2D, 0x30...0x39:
                lexeme = .number
                numberText = [c]
            default:
                throw unexpected("expected a value")
            }
        }
    }

    private mutating func valueDone() {
        expect = containers.isEmpty ? .done : .commaOrEnd
    }

    private mutating func endNumber(_ sink: (Event) -> Void) throws(SyntaxError) {
        lexeme = .none
        let text = String(decoding: numberText, as: UTF8.self)
        // JSON's grammar: no '+' sign, no leading zeros, digits around the point.
        let body = numberText.first == 0x2D ? numberText.dropFirst() : numberText[...]
        let leadingZero = body.count > 1 && body.first == 0x30 && URIReference.isDigit(body[body.startIndex + 1])
        guard let value = Double(text), body.first.map(URIReference.isDigit) == true, !leadingZero,
            !text.contains("+") || text.contains("e+") || text.contains("E+"), !text.hasSuffix(".")
        else {
            throw SyntaxError(offset: offset - numberText.count, message: "invalid number")
        }
        sink(.number(value))
        valueDone()
    }

    private mutating func unicodeEscape(_ code: UInt32, _ sink: (Event) -> Void) throws(SyntaxError) {
        var scalarValue = code
        if (0xD800...0xDBFF).contains(code) {
            try flushSurrogate(at: offset)
            highSurrogate = code
            return
        }
        if (0xDC00...0xDFFF).contains(code) {
            guard let high = highSurrogate else {
                throw SyntaxError(offset: offset - 6, message: "unpaired surrogate in \\u escape")
            }
            highSurrogate = nil
            scalarValue = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)
        } else {
            try flushSurrogate(at: offset)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
            throw SyntaxError(offset: offset - 6, message: "invalid \\u escape")
        }
        sink(.stringBytes(ArraySlice(String(Character(scalar)).utf8)))
    }

    /// A high surrogate must be followed at once by its low one.
    private mutating func flushSurrogate(at offset: Int) throws(SyntaxError) {
        if highSurrogate != nil { throw SyntaxError(offset: offset, message: "unpaired surrogate in \\u escape") }
    }
}
