/// The string literals of a Swift source file, for the tests that read the project's sources
/// (`EngineWordsTests`, `FormatListTests`): single-line, multi-line (`"""`) and raw (`#"…"#`)
/// literals, never the text of a comment. An interpolation's code is not part of its literal
/// (it reads `\(…)` there); a literal inside an interpolation is a literal of its own.
public enum SwiftSource {
    public struct Literal: Sendable, Equatable {
        /// The line the literal opens on, from 1.
        public var line: Int
        /// Its text between the quotes, escapes as written (`\"`, `\n`), indentation included.
        public var text: String
    }

    public static func stringLiterals(in source: String) -> [Literal] {
        var scanner = LiteralScanner(scalars: Array(source.unicodeScalars))
        scanner.code(insideInterpolation: false)
        return scanner.literals.sorted { $0.line < $1.line }
    }
}

private struct LiteralScanner {
    let scalars: [Unicode.Scalar]
    var index = 0
    var line = 1
    var literals: [SwiftSource.Literal] = []

    init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    func starts(with text: String) -> Bool {
        for (offset, scalar) in text.unicodeScalars.enumerated() where peek(offset) != scalar { return false }
        return true
    }

    mutating func advance(_ count: Int = 1) {
        for _ in 0..<count where index < scalars.count {
            if scalars[index] == "\n" { line += 1 }
            index += 1
        }
    }

    /// Code, up to the `)` that closes an interpolation (`insideInterpolation`) or the end.
    mutating func code(insideInterpolation: Bool) {
        var depth = 0
        while let scalar = peek() {
            if starts(with: "//") {
                while let next = peek(), next != "\n" { advance() }
                continue
            }
            if starts(with: "/*") {
                skipBlockComment()
                continue
            }
            if scalar == "#" || scalar == "\"" {
                var hashes = 0
                while peek(hashes) == "#" { hashes += 1 }
                if peek(hashes) == "\"" {
                    advance(hashes)
                    string(hashes: hashes)
                } else {
                    advance(max(hashes, 1))
                }
                continue
            }
            if scalar == "(" {
                depth += 1
            } else if scalar == ")" {
                if depth == 0 && insideInterpolation {
                    advance()
                    return
                }
                depth -= 1
            }
            advance()
        }
    }

    /// A block comment, nested ones included.
    mutating func skipBlockComment() {
        var depth = 0
        while peek() != nil {
            if starts(with: "/*") {
                depth += 1
                advance(2)
            } else if starts(with: "*/") {
                depth -= 1
                advance(2)
                if depth == 0 { return }
            } else {
                advance()
            }
        }
    }

    /// A literal, from its opening quote (after its `#`s).
    mutating func string(hashes: Int) {
        let opening = line
        let multiLine = starts(with: "\"\"\"")
        advance(multiLine ? 3 : 1)
        let closing = (multiLine ? "\"\"\"" : "\"") + String(repeating: "#", count: hashes)
        let escape = "\\" + String(repeating: "#", count: hashes)
        var text = String.UnicodeScalarView()
        while let scalar = peek() {
            if starts(with: closing) {
                advance(closing.unicodeScalars.count)
                break
            }
            if !multiLine && scalar == "\n" { break }
            if starts(with: escape) {
                advance(escape.unicodeScalars.count)
                if peek() == "(" {
                    advance()
                    text.append(contentsOf: "\\(…)".unicodeScalars)
                    code(insideInterpolation: true)
                } else if let next = peek() {
                    text.append("\\")
                    text.append(next)
                    advance()
                }
                continue
            }
            text.append(scalar)
            advance()
        }
        literals.append(SwiftSource.Literal(line: opening, text: String(text)))
    }
}
