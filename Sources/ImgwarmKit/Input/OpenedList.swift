import ImgwarmSystem

/// A list opened for reading, its format told. Under `auto`, a list whose first non-blank byte
/// is `{` and whose first object key is `"log"` is a HAR capture whatever its name, a file or
/// standard input alike (docs/usage.md, "HAR captures as lists"); any other list keeps the
/// rule of its name (`ListSource.effectiveFormat`). Standard input cannot be read twice, and a
/// HAR is streamed: the bytes read to tell are kept (`head`) and read first.
struct OpenedList {
    /// The source, its format `.har` when its content says so.
    var source: ListSource
    var descriptor: FileDescriptor
    /// Bytes already read from `descriptor`, to read before it.
    var head: [UInt8] = []

    /// The most bytes read to tell: a list that has not told by then (white space) keeps the
    /// rule of its name.
    static let sniffLimit = 1 << 16

    /// Whether `bytes`, the start of a list, begin a HAR capture: nil while they cannot tell
    /// (`ended`: there are no more). A first key written with an escape is not `"log"` here.
    static func isHAR(_ bytes: ArraySlice<UInt8>, ended: Bool) -> Bool? {
        var index = bytes.startIndex
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        if bytes.count < mark.count && !bytes.isEmpty && mark.starts(with: bytes) { return ended ? false : nil }
        if bytes.starts(with: mark) { index += 3 }
        func skipSpaces() {
            while index < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }
        skipSpaces()
        guard index < bytes.endIndex else { return ended ? false : nil }
        guard bytes[index] == UInt8(ascii: "{") else { return false }
        index += 1
        skipSpaces()
        guard index < bytes.endIndex else { return ended ? false : nil }
        guard bytes[index] == UInt8(ascii: "\"") else { return false }
        let key = Array("log\"".utf8)
        let rest = bytes[(index + 1)...]
        if rest.count < key.count { return ended || !key.starts(with: rest) ? false : nil }
        return rest.starts(with: key)
    }

    /// Tells the format of `source` open on `descriptor`: under `auto` (and a name that does
    /// not say HAR already), reads until the first key tells, at most `sniffLimit` bytes, or
    /// until `stop` is readable (then the name's rule holds, and the read that follows stops).
    static func tell(
        _ source: ListSource, _ descriptor: FileDescriptor, stop: FileDescriptor?
    ) throws(SystemError) -> OpenedList {
        var opened = OpenedList(source: source, descriptor: descriptor)
        guard source.format == .auto, source.effectiveFormat != .har else { return opened }
        while opened.head.count < sniffLimit {
            if let stop, !descriptor.waitReadable(unlessReadable: stop) { return opened }
            var chunk = [UInt8](repeating: 0, count: sniffLimit - opened.head.count)
            let count = try descriptor.read(into: &chunk)
            opened.head += chunk[0..<count]
            guard let isHAR = isHAR(opened.head[...], ended: count == 0) else { continue }
            if isHAR { opened.source.format = .har }
            return opened
        }
        return opened
    }
}
