/// The well-formedness walk `SVGCheck` runs over an SVG document's bytes: no tree is built, only
/// the stack of open elements' names (byte ranges) and the root's size attributes are kept.
struct SVGParser {
    enum Problem: Error {
        /// Not well-formed XML: why.
        case malformed(String)
        /// Well-formed so far, but its root element is not `svg` (an HTML page, an RSS feed).
        case notSVG(String)
        /// The bytes stop inside the document: inside what.
        case cutShort(String)
    }

    private let bytes: UnsafeRawBufferPointer
    /// Where the walk is.
    private(set) var index = 0
    /// The open elements' names.
    private var open: [Range<Int>] = []
    /// The root's declared size (0 when it declares none).
    private(set) var size = (width: 0, height: 0)

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private var count: Int { bytes.count }

    /// Walks the whole document.
    mutating func parse() throws(Problem) {
        if count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
        if starts("<?xml") && index + 5 < count && SVGCheck.isSpace(bytes[index + 5]) {
            try skip(past: "?>", inside: "the XML declaration")
        }
        var sawDoctype = false
        // The prolog, up to the root's start tag.
        while true {
            skipSpaces()
            guard index < count else {
                throw .malformed("there is no root element")
            }
            if starts("<!--") {
                try skip(past: "-->", inside: "a comment")
            } else if starts("<?") {
                try skip(past: "?>", inside: "a processing instruction")
            } else if starts("<!DOCTYPE") && !sawDoctype {
                try doctype()
                sawDoctype = true
            } else if starts("<") {
                index += 1
                let root = try startTag(isRoot: true)
                if root.selfClosing { break }
                open.append(root.name)
                break
            } else {
                throw .malformed("text before the root element")
            }
        }
        try content()
        // After the root: comments, processing instructions and white space only.
        while true {
            skipSpaces()
            guard index < count else { return }
            if starts("<!--") {
                try skip(past: "-->", inside: "a comment")
            } else if starts("<?") {
                try skip(past: "?>", inside: "a processing instruction")
            } else {
                throw .malformed("content after the root element")
            }
        }
    }

    /// The root's content, up to the end tag that closes it.
    private mutating func content() throws(Problem) {
        while !open.isEmpty {
            guard let next = nextMarkup() else {
                throw .cutShort("the element <\(text(open[open.count - 1]))>")
            }
            index = next
            if bytes[index] == UInt8(ascii: "&") {
                try reference()
                continue
            }
            if starts("</") {
                index += 2
                let name = try self.name()
                skipSpaces()
                try expect(">", inside: "an end tag")
                let expected = open.removeLast()
                guard same(name, expected) else {
                    throw .malformed("</\(text(name))> closes <\(text(expected))>")
                }
            } else if starts("<!--") {
                try skip(past: "-->", inside: "a comment")
            } else if starts("<![CDATA[") {
                try skip(past: "]]>", inside: "a CDATA section")
            } else if starts("<?") {
                try skip(past: "?>", inside: "a processing instruction")
            } else if starts("<!") {
                throw .malformed("a declaration inside the document")
            } else {
                index += 1
                let element = try startTag(isRoot: false)
                if !element.selfClosing {
                    guard open.count < SVGCheck.maxDepth else {
                        throw .malformed("elements nested deeper than \(SVGCheck.maxDepth)")
                    }
                    open.append(element.name)
                }
            }
        }
    }

    /// The next `<` or `&` after character data; nil at the end.
    private mutating func nextMarkup() -> Int? {
        var at = index
        while at < count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") { return at }
            at += 1
        }
        index = at
        return nil
    }

    /// A start tag after its `<`: its name and attributes, up to `>` or `/>`.
    private mutating func startTag(isRoot: Bool) throws(Problem) -> (name: Range<Int>, selfClosing: Bool) {
        let name = try self.name()
        if isRoot {
            let local = text(name).split(separator: ":").last.map(String.init) ?? ""
            guard local == "svg" else { throw .notSVG(text(name)) }
        }
        var attributes: [Range<Int>] = []
        var hashes = Set<UInt64>()
        var rootSize: (width: Double?, height: Double?, viewBox: (Double, Double)?) = (nil, nil, nil)
        while true {
            let spaced = skipSpaces()
            guard index < count else { throw .cutShort("the start tag <\(text(name))>") }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                break
            }
            if starts("/>") {
                index += 2
                if isRoot { applySize(rootSize) }
                return (name, true)
            }
            guard spaced else { throw .malformed("no space before an attribute of <\(text(name))>") }
            let attribute = try self.name()
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for offset in attribute { hash = (hash ^ UInt64(bytes[offset])) &* 0x100_0000_01b3 }
            if !hashes.insert(hash).inserted, attributes.contains(where: { same($0, attribute) }) {
                throw .malformed("the attribute \(text(attribute)) appears twice in <\(text(name))>")
            }
            attributes.append(attribute)
            skipSpaces()
            try expect("=", inside: "the attribute \(text(attribute))")
            skipSpaces()
            let value = try attributeValue(of: attribute)
            if isRoot {
                switch text(attribute) {
                case "width": rootSize.width = SVGParser.length(text(value))
                case "height": rootSize.height = SVGParser.length(text(value))
                case "viewBox": rootSize.viewBox = SVGParser.viewBox(text(value))
                default: break
                }
            }
        }
        if isRoot { applySize(rootSize) }
        return (name, false)
    }

    private mutating func applySize(_ declared: (width: Double?, height: Double?, viewBox: (Double, Double)?)) {
        let width = declared.width ?? declared.viewBox?.0
        let height = declared.height ?? declared.viewBox?.1
        func pixels(_ value: Double?) -> Int {
            guard let value, value.isFinite, value > 0 else { return 0 }
            return value >= Double(Int32.max) ? Int(Int32.max) : Int(value.rounded(.up))
        }
        size = (pixels(width), pixels(height))
    }

    /// A quoted attribute value (its content's range): no `<`, references well-formed.
    private mutating func attributeValue(of attribute: Range<Int>) throws(Problem) -> Range<Int> {
        guard index < count else { throw .cutShort("the attribute \(text(attribute))") }
        let quote = bytes[index]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw .malformed("the value of \(text(attribute)) is not quoted")
        }
        index += 1
        let start = index
        while true {
            guard index < count else { throw .cutShort("the attribute \(text(attribute))") }
            let byte = bytes[index]
            if byte == quote { break }
            if byte == UInt8(ascii: "<") || byte == 0 {
                throw .malformed("the value of \(text(attribute)) holds a '<' or a NUL byte")
            }
            if byte == UInt8(ascii: "&") {
                try reference()
            } else {
                index += 1
            }
        }
        let value = start..<index
        index += 1
        return value
    }

    /// `&name;` of a predefined entity, or `&#N;` / `&#xH;`.
    private mutating func reference() throws(Problem) {
        index += 1
        if index < count && bytes[index] == UInt8(ascii: "#") {
            index += 1
            var hex = false
            if index < count && bytes[index] == UInt8(ascii: "x") {
                hex = true
                index += 1
            }
            let start = index
            while index < count, index - start < 8,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
                    || (hex && (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(bytes[index] | 0x20))
            {
                index += 1
            }
            guard index > start else { throw .malformed("a character reference without digits") }
        } else {
            let name = try self.name()
            guard ["lt", "gt", "amp", "apos", "quot"].contains(text(name)) else {
                throw .malformed("the entity &\(text(name)); is not defined")
            }
        }
        guard index < count else { throw .cutShort("a reference") }
        guard bytes[index] == UInt8(ascii: ";") else { throw .malformed("a reference that does not end with ';'") }
        index += 1
    }

    /// `<!DOCTYPE name (PUBLIC|SYSTEM "…" "…")? >`, refused with an internal subset.
    private mutating func doctype() throws(Problem) {
        index += 9
        var quote: UInt8?
        while index < count {
            let byte = bytes[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                throw .malformed(
                    "the DOCTYPE has an internal subset (entity declarations, which a parser may expand without bound)")
            } else if byte == UInt8(ascii: ">") {
                return
            }
        }
        throw .cutShort("the DOCTYPE")
    }

    /// An XML name (bytes: a letter, `_`, `:` or any non-ASCII byte, then also digits, `-`, `.`).
    private mutating func name() throws(Problem) -> Range<Int> {
        let start = index
        while index < count {
            let byte = bytes[index]
            let letter =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ":") || byte >= 0x80
            let more =
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
            guard letter || (index > start && more) else { break }
            index += 1
        }
        guard index > start else {
            if index >= count { throw .cutShort("a tag") }
            throw .malformed("a name was expected")
        }
        return start..<index
    }

    private mutating func skip(past end: String, inside what: String) throws(Problem) {
        let marker = Array(end.utf8)
        var at = index
        while at + marker.count <= count {
            if bytes[at] == marker[0] && zip(marker.indices, marker).allSatisfy({ bytes[at + $0] == $1 }) {
                index = at + marker.count
                return
            }
            at += 1
        }
        index = count
        throw .cutShort(what)
    }

    private mutating func expect(_ character: Character, inside what: String) throws(Problem) {
        guard index < count else { throw .cutShort(what) }
        guard bytes[index] == character.asciiValue else { throw .malformed("'\(character)' was expected in \(what)") }
        index += 1
    }

    @discardableResult
    private mutating func skipSpaces() -> Bool {
        let start = index
        while index < count, SVGCheck.isSpace(bytes[index]) { index += 1 }
        return index > start
    }

    private func starts(_ text: String) -> Bool {
        var at = index
        for byte in text.utf8 {
            guard at < count, bytes[at] == byte else { return false }
            at += 1
        }
        return true
    }

    private func same(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { bytes[$0] == bytes[$1] }
    }

    /// A range's bytes as text, cut at 64 bytes (for messages and attribute values).
    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range.prefix(64)]), as: UTF8.self)
    }

    /// A length in user units (`48`, `48px`, `12.5`); nil for a relative one (`100%`, `2em`).
    static func length(_ value: String) -> Double? {
        var text = Substring(value).trimmingSpaces
        if text.hasSuffix("px") { text = text.dropLast(2) }
        return Double(text)
    }

    /// The width and height of a `viewBox` (`min-x min-y width height`).
    static func viewBox(_ value: String) -> (Double, Double)? {
        let parts = value.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        guard parts.count == 4, let width = Double(parts[2]), let height = Double(parts[3]) else { return nil }
        return (width, height)
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" || first == "\n" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\n" { text = text.dropLast() }
        return text
    }
}
