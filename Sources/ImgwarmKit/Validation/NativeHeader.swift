/// Reads and checks the headers of JPEG, PNG and GIF files without ImageMagick, for
/// `--validate header`.
///
/// Why not ImageMagick's ping: it costs about 55 µs of CPU per image, most of it outside the
/// coder: each ping looks up the coder by name (`strcasecmp` over the coder list), stats the
/// file name `JPEG:` and `JPEG:[0]` thirteen times, reads its clock and allocates its image
/// structures (measured with `strace -c` and `perf`, see docs/performance.md). These readers do
/// the checks the header stage of libjpeg, libpng and ImageMagick's GIF coder does, in one
/// bounded pass over bytes already in memory, and return the same width and height. What they
/// accept, ImageMagick's ping accepts too (a property test damages real files and compares).
/// `--validate full` still decodes every pixel with ImageMagick.
///
/// `StructureCheck` has already run: the body is not cut short and every segment, chunk and
/// block fits inside it.
enum NativeHeader {
    struct Size: Equatable {
        var width: Int
        var height: Int
        /// The largest frame's size, which is what a decoder allocates: a GIF image may be larger
        /// than the logical screen. The image's size for the other formats.
        var frameWidth: Int
        var frameHeight: Int

        init(_ width: Int, _ height: Int, frame: (width: Int, height: Int)? = nil) {
            self.width = width
            self.height = height
            frameWidth = frame?.width ?? width
            frameHeight = frame?.height ?? height
        }
    }

    /// The image's size, or why its header is not one a decoder accepts; nil for a format without
    /// a reader here (ImageMagick reads those).
    static func read(_ format: ImageFormat, _ bytes: UnsafeRawBufferPointer) -> Result<Size, Failure>? {
        switch format {
        case .jpeg: return jpeg(bytes)
        case .png: return png(bytes)
        case .gif: return gif(bytes)
        case .webp: return WebPHeader.read(bytes).map { Size($0.width, $0.height) }
        case .tiff, .bmp, .heic, .heif, .avif, .ico, .svg: return nil
        }
    }

    private static func failure(_ format: String, _ message: String) -> Result<Size, Failure> {
        .failure(Failure(.decodeFailed, "\(format): \(message)"))
    }

    // MARK: JPEG

    /// The marker segments up to the first scan, checked as libjpeg's `jpeg_read_header` does
    /// (jdmarker.c, and jdinput.c's `initial_setup`): one start-of-frame of a process libjpeg
    /// decodes (baseline, extended, progressive; Huffman or arithmetic), 8-bit samples, a non-zero
    /// size, 1 to 10 components with sampling factors 1 to 4; tables with valid indexes and exact
    /// lengths; a scan of 1 to 4 of the frame's components. Markers libjpeg does not know are
    /// refused, like a second start-of-image.
    static func jpeg(_ bytes: UnsafeRawBufferPointer) -> Result<Size, Failure> {
        let name = "JPEG"
        var index = 2
        var frame: (width: Int, height: Int, components: [UInt8])?
        while index + 1 < bytes.count {
            guard bytes[index] == 0xFF else { return failure(name, "no marker at byte \(index)") }
            let marker = bytes[index + 1]
            switch marker {
            case 0xFF:
                index += 1
                continue
            case 0x01, 0xD0...0xD7:
                index += 2
                continue
            case 0xD8:
                return failure(name, "a second start-of-image marker at byte \(index)")
            case 0xD9:
                return failure(name, "the file ends before any image (no start-of-scan)")
            default:
                break
            }
            guard index + 4 <= bytes.count else { break }
            let length = bytes.be16(index + 2)
            let start = index + 4
            let end = index + 2 + length
            guard length >= 2, end <= bytes.count else { return failure(name, "a segment at byte \(index) is cut") }
            let segment = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            switch marker {
            case 0xC0, 0xC1, 0xC2, 0xC9, 0xCA:
                guard frame == nil else { return failure(name, "a second start-of-frame at byte \(index)") }
                switch jpegFrame(segment) {
                case .success(let found): frame = found
                case .failure(let message): return failure(name, message.text)
                }
            case 0xC3, 0xC5...0xC7, 0xCB, 0xCD...0xCF:
                return failure(name, "unsupported coding process (SOF\(marker - 0xC0), lossless or hierarchical)")
            case 0xC4:
                if let message = jpegHuffmanTables(segment) { return failure(name, message) }
            case 0xDB:
                if let message = jpegQuantizationTables(segment) { return failure(name, message) }
            case 0xDD:
                guard length == 4 else { return failure(name, "a restart interval segment of \(length) bytes") }
            case 0xDA:
                guard let frame else { return failure(name, "a scan before any start-of-frame") }
                if let message = jpegScan(segment, components: frame.components) { return failure(name, message) }
                return .success(Size(frame.width, frame.height))
            case 0xCC:
                if let message = jpegArithmeticConditioning(segment) { return failure(name, message) }
            case 0xDC, 0xE0...0xEF, 0xFE:
                break  // number of lines, APPn, comment: skipped as libjpeg does
            default:
                return failure(name, "an unknown marker 0xFF 0x\(String(marker, radix: 16, uppercase: true))")
            }
            index = end
        }
        return failure(name, "the file ends before its first scan")
    }

    private struct Message: Error { var text: String }

    private static func jpegFrame(_ segment: UnsafeRawBufferPointer) -> Result<
        (width: Int, height: Int, components: [UInt8]), Message
    > {
        guard segment.count >= 6 else { return .failure(Message(text: "a start-of-frame segment is too short")) }
        let precision = segment[0]
        let height = segment.be16(1)
        let width = segment.be16(3)
        let count = Int(segment[5])
        guard segment.count == 6 + 3 * count else {
            return .failure(Message(text: "the start-of-frame segment's length does not match its \(count) components"))
        }
        guard precision == 8 else {
            return .failure(Message(text: "\(precision)-bit samples are not supported (only 8-bit)"))
        }
        guard width > 0, height > 0 else { return .failure(Message(text: "the frame is \(width)×\(height) pixels")) }
        guard (1...10).contains(count) else { return .failure(Message(text: "the frame has \(count) components")) }
        var components: [UInt8] = []
        components.reserveCapacity(count)
        for component in 0..<count {
            let at = 6 + 3 * component
            let sampling = segment[at + 1]
            guard (1...4).contains(sampling >> 4), (1...4).contains(sampling & 0x0F), segment[at + 2] < 4 else {
                return .failure(Message(text: "component \(component + 1) has invalid sampling factors or table"))
            }
            components.append(segment[at])
        }
        return .success((width, height, components))
    }

    /// DHT: each table is a class and index byte (class 0 or 1, index 0 to 3), 16 counts adding
    /// up to at most 256, then that many symbols; the tables fill the segment exactly.
    private static func jpegHuffmanTables(_ segment: UnsafeRawBufferPointer) -> String? {
        var at = 0
        while at < segment.count {
            guard at + 17 <= segment.count else { return "a Huffman table segment is cut" }
            let target = segment[at]
            guard target >> 4 <= 1, target & 0x0F < 4 else { return "a Huffman table with the invalid index \(target)" }
            var symbols = 0
            for offset in 1...16 { symbols += Int(segment[at + offset]) }
            guard symbols <= 256, at + 17 + symbols <= segment.count else { return "a Huffman table is invalid" }
            at += 17 + symbols
        }
        return nil
    }

    /// DQT: each table is a precision and index byte (index 0 to 3) and 64 values of 1 or 2
    /// bytes; the tables fill the segment exactly.
    private static func jpegQuantizationTables(_ segment: UnsafeRawBufferPointer) -> String? {
        var at = 0
        while at < segment.count {
            let target = segment[at]
            guard target & 0x0F < 4, target >> 4 <= 1 else {
                return "a quantization table with the invalid index \(target)"
            }
            at += 1 + 64 * (target >> 4 == 0 ? 1 : 2)
        }
        return at == segment.count ? nil : "a quantization table segment of the wrong length"
    }

    /// DAC: pairs of a table (0 to 15 DC, 16 to 31 AC) and a value: an AC value is 1 to 63, a DC
    /// value's lower bound (low nibble) is at most its upper bound (high nibble).
    private static func jpegArithmeticConditioning(_ segment: UnsafeRawBufferPointer) -> String? {
        guard segment.count % 2 == 0 else { return "an arithmetic conditioning segment of odd length" }
        for at in stride(from: 0, to: segment.count, by: 2) {
            let table = segment[at]
            let value = segment[at + 1]
            let valid = table < 16 ? value & 0x0F <= value >> 4 : table < 32 && (1...63).contains(value)
            guard valid else { return "an invalid arithmetic conditioning value for table \(table)" }
        }
        return nil
    }

    /// SOS: 1 to 4 components, each one of the frame's, none twice.
    private static func jpegScan(_ segment: UnsafeRawBufferPointer, components: [UInt8]) -> String? {
        guard let count = segment.first.map(Int.init), (1...4).contains(count), segment.count == 4 + 2 * count else {
            return "the start-of-scan segment is invalid"
        }
        var seen: [UInt8] = []
        for component in 0..<count {
            let id = segment[1 + 2 * component]
            guard components.contains(id), !seen.contains(id) else {
                return "the scan names component \(id), which the frame does not have"
            }
            seen.append(id)
        }
        return nil
    }

    // MARK: PNG

    /// IHDR first, with its CRC right (libpng refuses a critical chunk whose CRC is wrong), a size
    /// of 1 to 2³¹−1 each way, a bit depth allowed for its colour type, compression and filter
    /// method 0, interlace 0 or 1; a palette (before the image data) for a palette image; the CRC of
    /// each critical chunk before the first IDAT; and image data.
    static func png(_ bytes: UnsafeRawBufferPointer) -> Result<Size, Failure> {
        let name = "PNG"
        guard bytes.count >= 33, bytes.be32(8) == 13, fourCC(bytes, 12) == fourCC("IHDR") else {
            return failure(name, "the file does not start with an IHDR chunk")
        }
        guard crcMatches(bytes, chunk: 8, length: 13) else { return failure(name, "the IHDR chunk's CRC is wrong") }
        let width = bytes.be32(16)
        let height = bytes.be32(20)
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else {
            return failure(name, "the image is \(width)×\(height) pixels")
        }
        let depth = bytes[24]
        let colorType = bytes[25]
        let allowed: [UInt8]
        switch colorType {
        case 0: allowed = [1, 2, 4, 8, 16]
        case 3: allowed = [1, 2, 4, 8]
        case 2, 4, 6: allowed = [8, 16]
        default: return failure(name, "the colour type \(colorType) does not exist")
        }
        guard allowed.contains(depth) else {
            return failure(name, "a bit depth of \(depth) for colour type \(colorType)")
        }
        guard bytes[26] == 0, bytes[27] == 0, bytes[28] <= 1 else {
            return failure(name, "an unknown compression, filter or interlace method")
        }
        var offset = 33
        var palette = false
        while offset + 12 <= bytes.count {
            let length = bytes.be32(offset)
            let type = fourCC(bytes, offset + 4)
            guard length <= bytes.count - offset - 12 else { break }
            switch type {
            case fourCC("IDAT"):
                guard colorType != 3 || palette else { return failure(name, "a palette image without a palette") }
                return .success(Size(width, height))
            case fourCC("IEND"):
                return failure(name, "no image data (IDAT) before IEND")
            case fourCC("IHDR"):
                return failure(name, "a second IHDR chunk")
            case fourCC("PLTE"):
                guard !palette, length % 3 == 0, (3...768).contains(length) else {
                    return failure(name, "an invalid palette of \(length) bytes")
                }
                guard crcMatches(bytes, chunk: offset, length: length) else {
                    return failure(name, "the PLTE chunk's CRC is wrong")
                }
                palette = true
            default:
                break
            }
            offset += 12 + length
        }
        return failure(name, "no image data (IDAT)")
    }

    private static func fourCC(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: bytes.be32(at))
    }

    private static func fourCC(_ text: StaticString) -> UInt32 {
        text.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    /// Whether the CRC after the chunk at `chunk` (its length field) covers its type and data.
    private static func crcMatches(_ bytes: UnsafeRawBufferPointer, chunk: Int, length: Int) -> Bool {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes[(chunk + 4)..<(chunk + 8 + length)] {
            crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF == UInt32(truncatingIfNeeded: bytes.be32(chunk + 8 + length))
    }

    /// The CRC-32 table of PNG (ISO 3309; polynomial 0xEDB88320). Only the few short critical
    /// chunks before the image data are checked, so a byte-wise table is enough.
    private static let crcTable: [UInt32] = (0..<256).map { value in
        var crc = UInt32(value)
        for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    // MARK: GIF

    /// The logical screen, then blocks up to the trailer: extensions (label and sub-blocks) and
    /// images, each with a non-zero size, its colour table inside the body and an LZW code size
    /// of 1 to 8; at least one image. ImageMagick's GIF coder reads every image descriptor even
    /// in a ping, so they are all checked. The size is the logical screen's (what an app's
    /// decoder shows), or the first image's when the screen says 0; the largest image's width and
    /// height are given too, for the limits.
    static func gif(_ bytes: UnsafeRawBufferPointer) -> Result<Size, Failure> {
        let name = "GIF"
        func skipSubBlocks(_ offset: inout Int) {
            while offset < bytes.count, bytes[offset] != 0 { offset += 1 + Int(bytes[offset]) }
            offset += 1
        }
        guard bytes.count >= 13 else { return failure(name, "the file is too short for its header") }
        var offset = 13
        if bytes[10] & 0x80 != 0 { offset += 3 << (Int(bytes[10] & 0x07) + 1) }
        var first: (width: Int, height: Int)?
        var largest = (width: 0, height: 0)
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x21:
                offset += 2
                skipSubBlocks(&offset)
            case 0x2C:
                guard offset + 11 <= bytes.count else {
                    return failure(name, "the file ends inside an image descriptor")
                }
                let frame = (width: bytes.le16(offset + 5), height: bytes.le16(offset + 7))
                guard frame.width > 0, frame.height > 0 else {
                    return failure(name, "an image of \(frame.width)×\(frame.height) pixels at byte \(offset)")
                }
                offset += 10
                if bytes[offset - 1] & 0x80 != 0 { offset += 3 << (Int(bytes[offset - 1] & 0x07) + 1) }
                guard offset < bytes.count, (1...8).contains(bytes[offset]) else {
                    return failure(name, "an image with an invalid LZW code size")
                }
                offset += 1
                skipSubBlocks(&offset)
                first = first ?? frame
                largest = (max(largest.width, frame.width), max(largest.height, frame.height))
            case 0x3B:
                guard let first else { return failure(name, "no image before the trailer") }
                let screen = (width: bytes.le16(6), height: bytes.le16(8))
                let size = screen.width > 0 && screen.height > 0 ? screen : first
                return .success(Size(size.width, size.height, frame: largest))
            default:
                return failure(name, "an unknown block 0x\(String(bytes[offset], radix: 16)) at byte \(offset)")
            }
        }
        return failure(name, "the file ends before its trailer")
    }
}
