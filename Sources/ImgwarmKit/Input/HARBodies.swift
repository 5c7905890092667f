import ImgwarmSystem

/// The recorded bodies of a HAR's entries, decoded into one unlinked scratch file as they stream
/// by: memory holds one 64 KiB buffer and a body's first bytes, never a body, whatever the size of
/// the capture (issue 33, item 5).
///
/// A body's text is written as it arrives; its `encoding` may come after it in the object
/// (Chrome writes `text` then `encoding`), so a base64 body is decoded once the `content` object
/// ends, in place: the decoded bytes are never longer than the text they come from. A body of an
/// entry not kept (not an image) is written over by the next.
final class HARBodies {
    /// Why the scratch file failed.
    struct ScratchError: Error, Equatable {
        var code: Int32
    }

    /// Bytes of a body kept in memory for the magic-byte check (decoded).
    static let headLength = 64

    private let file: FileDescriptor?
    /// Where the next body starts: the end of the bodies kept.
    private var end: Int64 = 0
    private var written: Int64 = 0
    private var buffer: [UInt8] = []
    /// The first bytes of the body being read, as written (not yet decoded).
    private(set) var rawHead: [UInt8] = []

    /// Bodies go to a scratch file in `folder`; with no folder they are only looked at (their
    /// first bytes), not kept.
    init(folder: String?) throws(ScratchError) {
        if let folder {
            do {
                file = try FileDescriptor.scratchFile(in: folder)
            } catch {
                throw ScratchError(code: error.code)
            }
        } else {
            file = nil
        }
    }

    deinit { file?.close() }

    /// True when bodies are kept (a scratch file), so a body that is missing is missing.
    var keepsBodies: Bool { file != nil }

    /// Up to `count` bytes of a kept body from `position` (empty at its end): a reader of a
    /// large body takes it in pieces.
    func read(_ body: HAREntry.Body, at position: Int64, count: Int) throws(ScratchError) -> [UInt8] {
        guard let file, position < body.length else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(min(Int64(count), body.length - position)))
        var done = 0
        while done < bytes.count {
            let read: Int
            do {
                read = try file.read(into: &bytes, from: done, at: body.offset + position + Int64(done))
            } catch {
                throw ScratchError(code: error.code)
            }
            if read == 0 { break }
            done += read
        }
        return Array(bytes[..<done])
    }

    /// Starts a body (dropping one begun and not finished).
    func begin() {
        written = 0
        buffer.removeAll(keepingCapacity: true)
        rawHead.removeAll(keepingCapacity: true)
    }

    func append(_ bytes: ArraySlice<UInt8>) throws(ScratchError) {
        if rawHead.count < 4 * HARBodies.headLength {
            rawHead.append(contentsOf: bytes.prefix(4 * HARBodies.headLength - rawHead.count))
        }
        guard file != nil else { return }
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Ends the body: decodes it when `base64`; returns its place in the scratch file (nil
    /// without one, or for bad base64) and its first decoded bytes.
    func finish(base64: Bool) throws(ScratchError) -> (body: HAREntry.Body?, head: [UInt8]) {
        let head: [UInt8]
        if base64 {
            var decoder = Base64Decoder()
            var out: [UInt8] = []
            _ = decoder.decode(rawHead[...], into: &out)
            head = Array(out.prefix(HARBodies.headLength))
        } else {
            head = Array(rawHead.prefix(HARBodies.headLength))
        }
        guard let file else { return (nil, head) }
        try flush()
        guard base64 else { return (HAREntry.Body(offset: end, length: written), head) }
        var decoder = Base64Decoder()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var read: Int64 = 0
        var decoded: Int64 = 0
        var out: [UInt8] = []
        while read < written {
            let count: Int
            do {
                count = try file.read(into: &chunk, at: end + read)
            } catch {
                throw ScratchError(code: error.code)
            }
            if count == 0 { break }
            let take = min(count, Int(written - read))
            read += Int64(take)
            out.removeAll(keepingCapacity: true)
            guard decoder.decode(chunk[0..<take], into: &out) else { return (nil, head) }
            try write(out, at: end + decoded)
            decoded += Int64(out.count)
        }
        out.removeAll(keepingCapacity: true)
        guard decoder.finish(into: &out) else { return (nil, head) }
        try write(out, at: end + decoded)
        decoded += Int64(out.count)
        return (HAREntry.Body(offset: end, length: decoded), head)
    }

    /// Keeps `body`: the next one is written after it.
    func keep(_ body: HAREntry.Body) {
        end = max(end, body.offset + body.length)
    }

    /// The bytes of a kept body (for tests).
    func bytes(of body: HAREntry.Body) throws(ScratchError) -> [UInt8] {
        try read(body, at: 0, count: Int(body.length))
    }

    private func flush() throws(ScratchError) {
        guard !buffer.isEmpty else { return }
        try write(buffer, at: end + written)
        written += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    private func write(_ bytes: [UInt8], at offset: Int64) throws(ScratchError) {
        guard let file, !bytes.isEmpty else { return }
        do {
            try file.writeAll(bytes, at: offset)
        } catch {
            throw ScratchError(code: error.code)
        }
    }
}

/// Base64 (RFC 4648, the standard alphabet, padding optional, line breaks skipped) decoded in
/// pieces of any length.
struct Base64Decoder {
    private var bits: UInt32 = 0
    private var count = 0
    private var padded = false

    /// Decodes `text` into `out`; false on a character outside the alphabet.
    mutating func decode(_ text: ArraySlice<UInt8>, into out: inout [UInt8]) -> Bool {
        for c in text {
            let value: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(c - UInt8(ascii: "a") + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(c - UInt8(ascii: "0") + 52)
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "="):
                padded = true
                continue
            case 0x0A, 0x0D, 0x20, 0x09: continue
            default: return false
            }
            if padded { return false }
            bits = bits << 6 | value
            count += 1
            if count == 4 {
                out.append(UInt8(truncatingIfNeeded: bits >> 16))
                out.append(UInt8(truncatingIfNeeded: bits >> 8))
                out.append(UInt8(truncatingIfNeeded: bits))
                bits = 0
                count = 0
            }
        }
        return true
    }

    /// Ends the text: the bytes of a last group of 2 or 3 characters; false when 1 was left
    /// (not base64).
    mutating func finish(into out: inout [UInt8]) -> Bool {
        switch count {
        case 2: out.append(UInt8(truncatingIfNeeded: bits >> 4))
        case 3:
            out.append(UInt8(truncatingIfNeeded: bits >> 10))
            out.append(UInt8(truncatingIfNeeded: bits >> 2))
        case 1: return false
        default: break
        }
        count = 0
        return true
    }
}
