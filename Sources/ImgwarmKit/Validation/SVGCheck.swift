/// SVG, the one vector format imgwarm knows: a text document that the app's plugin
/// (SDWebImageSVGCoder, coil-svg, flutter_svg) parses as XML. No image library here decodes it
/// by default, so it is stored only with `--accept-svg`, and then only when it is a well-formed
/// XML document whose root element is `svg`. imgwarm reads it with this parser alone: ImageMagick's
/// SVG coder, which may run delegates and fetch what the document names, is never asked.
///
/// The check is XML's well-formedness, in one pass over bytes already in memory: one root element
/// (local name `svg`), tags that nest and match, quoted attributes named once per element,
/// references to the five predefined entities or to characters only, comments, processing
/// instructions and CDATA sections that end, nothing but comments and processing instructions
/// around the root. A DOCTYPE may name an external DTD, never carry an internal subset: that is
/// where entities are declared, which a parser may expand without bound ("billion laughs").
enum SVGCheck {
    /// The most elements open at once; a deeper document is refused (no drawing needs it, and a
    /// parser that recurses per element is what such a file is made for).
    static let maxDepth = 1024

    /// True when `head` starts as an SVG document may (after an optional UTF-8 byte order mark
    /// and white space): an XML declaration, a comment, a DOCTYPE of `svg`, or an `svg` start tag.
    /// Only a candidate: `check` decides (an HTML page may start with a comment too).
    static func mayStartSVG(_ head: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        if head.count >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF { index = 3 }
        while index < head.count, isSpace(head[index]) { index += 1 }
        func at(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            guard index + bytes.count <= head.count else { return false }
            for (offset, byte) in bytes.enumerated() where head[index + offset] != byte { return false }
            return true
        }
        if at("<?xml") || at("<!--") || at("<!DOCTYPE svg") { return true }
        guard at("<svg"), index + 4 < head.count else { return false }
        let next = head[index + 4]
        return isSpace(next) || next == UInt8(ascii: ">") || next == UInt8(ascii: "/") || next == UInt8(ascii: ":")
    }

    /// The size an SVG declares, or why the bytes are not a well-formed SVG document. The size is
    /// that of the root's `width` and `height` when they are plain numbers (or pixels), else of its
    /// `viewBox`; 0 when it declares none (an SVG scales to what shows it).
    static func check(_ bytes: UnsafeRawBufferPointer) -> Result<(width: Int, height: Int), Failure> {
        var parser = SVGParser(bytes)
        do throws(SVGParser.Problem) {
            try parser.parse()
        } catch {
            switch error {
            case .malformed(let message):
                return .failure(
                    Failure(
                        .notAnImage,
                        "the body is not a well-formed SVG document: \(message) (at byte \(parser.index))"))
            case .notSVG(let root):
                return .failure(
                    Failure(
                        .notAnImage, "the body is an XML document whose root element is <\(root)>, not an SVG image"))
            case .cutShort(let what):
                return .failure(Failure(.truncated, "the SVG document ends inside \(what) (the body is cut short)"))
            }
        }
        return .success(parser.size)
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
}
