/// Cheap checks that a body is a whole image file, before any decoder sees it.
///
/// ImageMagick's header read cannot tell a complete file from one cut short (a server that lies
/// about Content-Length), and some coders trust sizes the file declares: libpng allocates and
/// clears a chunk's declared length before reading it, so a 100-byte PNG claiming a 2 GiB chunk
/// costs 2 GiB. These walks look only at structure (chunk and block boundaries, end markers),
/// in one pass over bytes already in memory.
///
/// `truncated` (transient: retried, never blacklisted) means everything present is a consistent
/// beginning of a file that simply stops; bytes that no complete file could start with are
/// `decode-failed` (permanent).
///
/// They also count frames where that is cheap (GIF images, TIFF directories): ImageMagick keeps
/// about 25 KB per frame it has read (measured with ImageMagick 6.9.11: 1.76 GB for a 1 MiB GIF
/// of 70,000 1×1 frames, 1.4 GB for a TIFF of 60,000 directories), and libtiff about 130 bytes
/// per directory just to count them, so a file with more than `maxFrames` is refused before
/// ImageMagick sees it.
enum StructureCheck {
    /// nil when the structure is complete, else the failure to report.
    static func check(
        _ format: ImageFormat, _ bytes: UnsafeRawBufferPointer, maxFrames: Int = ValidationConfiguration().maxFrames
    ) -> Failure? {
        switch format {
        case .png: return png(bytes)
        case .jpeg: return jpeg(bytes)
        case .gif: return gif(bytes, maxFrames: maxFrames)
        case .webp: return riff(bytes)
        case .bmp: return bmp(bytes)
        case .tiff: return tiff(bytes, maxFrames: maxFrames)
        case .heic, .heif, .avif: return nil
        case .ico: return ico(bytes, maxFrames: maxFrames)
        case .svg:
            if case .failure(let failure) = SVGCheck.check(bytes) { return failure }
            return nil
        }
    }

    /// An icon directory (ICONDIR, then one 16-byte ICONDIRENTRY per image) whose every image
    /// lies after the directory and inside the body, at most `maxFrames` of them.
    static func ico(_ bytes: UnsafeRawBufferPointer, maxFrames: Int) -> Failure? {
        guard bytes.count >= 6 else { return Failure(.truncated, "the ICO data ends inside its header") }
        let images = bytes.le16(4)
        guard images > 0 else { return Failure(.decodeFailed, "the ICO directory lists no image") }
        if images > maxFrames { return tooManyFrames("ICO", maxFrames, unit: "images") }
        let directoryEnd = 6 + 16 * images
        guard directoryEnd <= bytes.count else {
            return Failure(.truncated, "the ICO data ends inside its directory of \(images) images")
        }
        for image in 0..<images {
            let entry = 6 + 16 * image
            let length = bytes.le32(entry + 8)
            let offset = bytes.le32(entry + 12)
            guard length > 0, offset >= directoryEnd else {
                return Failure(
                    .decodeFailed,
                    "ICO image \(image + 1) of \(length) bytes at offset \(offset) is not after the directory")
            }
            if offset + length > bytes.count {
                // A length no download could hold is a lie; a plausible one means the body was cut.
                if offset + length >= 1 << 28 {
                    return Failure(
                        .decodeFailed,
                        "ICO image \(image + 1) declares \(length) bytes at offset \(offset), past any body")
                }
                return Failure(.truncated, "the ICO data ends inside image \(image + 1) (the body is cut short)")
            }
        }
        return nil
    }

    static func tooManyFrames(_ what: String, _ maxFrames: Int, unit: String = "frames") -> Failure {
        Failure(.imageTooLarge, "the \(what) holds more than \(maxFrames) \(unit); at most \(maxFrames) are accepted")
    }

    /// Every chunk fits in the body, and the chunk list ends with IEND.
    static func png(_ bytes: UnsafeRawBufferPointer) -> Failure? {
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = bytes.be32(offset)
            let type = String(
                decoding: UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 8)]), as: UTF8.self)
            let remaining = bytes.count - offset - 12
            if length > remaining {
                // A length no download could hold is a lie; a plausible one means the body was cut.
                if length >= 1 << 28 {
                    return Failure(
                        .decodeFailed,
                        "the PNG chunk '\(type)' declares \(length) bytes but only \(max(0, remaining)) follow")
                }
                break
            }
            if type == "IEND" { return nil }
            offset += 12 + length
        }
        return Failure(.truncated, "the PNG data ends before its IEND chunk (the body is cut short)")
    }

    /// Marker segments follow SOI up to the first start-of-scan, and an end-of-image marker
    /// follows that scan. Inside entropy-coded data a 0xFF is always followed by 0x00 or a restart
    /// marker, so FF D9 cannot appear there by chance.
    ///
    /// A body that ends inside this structure is `truncated`. A byte where a marker must be that
    /// is not one, or a segment length under 2, is `decode-failed`: no complete file has it. So
    /// is a first segment that runs past the end of the body when it is an APPn segment without
    /// the NUL-terminated identifier every APPn segment starts with (`JFIF`, `Exif`, …): magic
    /// bytes followed by garbage, not a file cut inside its first segment.
    static func jpeg(_ bytes: UnsafeRawBufferPointer) -> Failure? {
        var firstScan: Int?
        var index = 2
        var complete = 0  // marker segments wholly inside the body
        // Walk the marker segments to the first SOS.
        walk: while index < bytes.count {
            guard bytes[index] == 0xFF else {
                return Failure(.decodeFailed, "the JPEG data has no marker at byte \(index), where one must be")
            }
            guard index + 1 < bytes.count else { break }
            let marker = bytes[index + 1]
            switch marker {
            case 0xFF:
                index += 1  // fill byte
                continue walk
            case 0xD8, 0xD0...0xD7, 0x01:
                index += 2  // markers without a segment
                continue walk
            case 0xD9:
                return nil
            case 0x02...0xBF, 0x00:
                return Failure(
                    .decodeFailed,
                    "the JPEG data has no valid marker segment at byte \(index) (0xFF 0x\(String(marker, radix: 16)))")
            default:
                break
            }
            guard index + 4 <= bytes.count else { break }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2 else {
                return Failure(
                    .decodeFailed,
                    "the JPEG marker segment at byte \(index) declares \(length) bytes, less than its own length field")
            }
            if marker == 0xDA {
                firstScan = index
                break
            }
            let end = index + 2 + length
            if end > bytes.count {
                if complete == 0 && (0xE0...0xEF).contains(marker)
                    && !hasApplicationIdentifier(UnsafeRawBufferPointer(rebasing: bytes[(index + 4)...]))
                {
                    return Failure(
                        .decodeFailed, "the JPEG data has no valid marker segment after its start-of-image marker")
                }
                break
            }
            complete += 1
            index = end
        }
        guard let scan = firstScan else {
            return Failure(.truncated, "the JPEG data ends before its first scan (the body is cut short)")
        }
        var end = bytes.count - 1
        while end > scan {
            if bytes[end] == 0xD9 && bytes[end - 1] == 0xFF { return nil }
            end -= 1
        }
        return Failure(.truncated, "the JPEG data ends without its end-of-image marker (the body is cut short)")
    }

    /// An APPn payload starts with a printable ASCII identifier ended by NUL within 32 bytes
    /// (`JFIF\0`, `Exif\0`, `ICC_PROFILE\0`, `http://ns.adobe.com/xap/1.0/\0`, `Adobe\0`…);
    /// true also when the bytes present are a possible beginning of one.
    private static func hasApplicationIdentifier(_ payload: UnsafeRawBufferPointer) -> Bool {
        for (offset, byte) in payload.prefix(32).enumerated() {
            if byte == 0 { return offset > 0 }
            if byte < 0x20 || byte > 0x7E { return false }
        }
        return payload.count < 32
    }

    /// Blocks (extensions, images) follow one another up to the trailer byte 0x3B.
    /// More than `maxFrames` images is `image-too-large`.
    static func gif(_ bytes: UnsafeRawBufferPointer, maxFrames: Int) -> Failure? {
        let cut = Failure(.truncated, "the GIF data ends before its trailer (the body is cut short)")
        var frames = 0
        guard bytes.count >= 13 else { return cut }
        var offset = 13
        let flags = bytes[10]
        if flags & 0x80 != 0 { offset += 3 << (Int(flags & 0x07) + 1) }
        func skipSubBlocks(_ offset: inout Int) -> Bool {
            while offset < bytes.count {
                let size = Int(bytes[offset])
                offset += 1
                if size == 0 { return true }
                offset += size
            }
            return false
        }
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x3B:
                return nil
            case 0x21:
                offset += 2
                guard skipSubBlocks(&offset) else { return cut }
            case 0x2C:
                frames += 1
                if frames > maxFrames { return tooManyFrames("GIF", maxFrames) }
                guard offset + 10 <= bytes.count else { return cut }
                let local = bytes[offset + 9]
                offset += 10
                if local & 0x80 != 0 { offset += 3 << (Int(local & 0x07) + 1) }
                offset += 1  // LZW minimum code size
                guard skipSubBlocks(&offset) else { return cut }
            default:
                return Failure(
                    .decodeFailed,
                    "the GIF data has an unknown block 0x\(String(bytes[offset], radix: 16)) at byte \(offset)")
            }
        }
        return cut
    }

    /// Counts the directories (images) of a TIFF by following the chain of their offsets: more
    /// than `maxFrames` is `image-too-large`. Offsets outside the body or a chain that loops are
    /// left to libtiff to report.
    static func tiff(_ bytes: UnsafeRawBufferPointer, maxFrames: Int) -> Failure? {
        guard bytes.count >= 8 else { return nil }
        let little = bytes[0] == 0x49
        func u16(_ at: Int) -> Int {
            little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) -> Int { little ? u16(at) | u16(at + 2) << 16 : u16(at) << 16 | u16(at + 2) }
        var offset = u32(4)
        var frames = 0
        var seen = Set<Int>()
        while offset >= 8 && offset + 2 <= bytes.count && seen.insert(offset).inserted {
            frames += 1
            if frames > maxFrames { return tooManyFrames("TIFF", maxFrames, unit: "frames (directories)") }
            let next = offset + 2 + u16(offset) * 12
            guard next + 4 <= bytes.count else { return nil }
            offset = u32(next)
        }
        return nil
    }

    /// The RIFF container holds as many bytes as it declares. `size`: the whole body's, when
    /// `bytes` is only its beginning (`HitCheck`); `bytes.count` by default.
    static func riff(_ bytes: UnsafeRawBufferPointer, size: Int? = nil) -> Failure? {
        let size = size ?? bytes.count
        guard bytes.count >= 12 else { return Failure(.truncated, "the WebP data is cut short") }
        let declared = bytes.le32(4) + 8
        if declared > size {
            return Failure(
                .truncated, "the WebP container declares \(declared) bytes but the body has \(size) (cut short)")
        }
        return nil
    }

    /// The pixel data starts inside the body, and the declared file size is there. `size` as
    /// for `riff`.
    static func bmp(_ bytes: UnsafeRawBufferPointer, size: Int? = nil) -> Failure? {
        let size = size ?? bytes.count
        guard bytes.count >= 14 else { return Failure(.truncated, "the BMP data is cut short") }
        let fileSize = bytes.le32(2)
        let pixelOffset = bytes.le32(10)
        if fileSize > 0 && fileSize > size {
            return Failure(
                .truncated, "the BMP header declares \(fileSize) bytes but the body has \(size) (cut short)")
        }
        if pixelOffset >= size {
            return Failure(
                .truncated,
                "the BMP pixel data starts at byte \(pixelOffset) but the body has \(size) (cut short)")
        }
        return nil
    }
}
