/// What a full decode (`--validate full`) of an image costs in memory, estimated from its header
/// before any decoder runs, so an image that would need more than one validation may use fails
/// with its reason instead of taking the memory.
///
/// ImageMagick's pixel cache is not in `working`: decodes stream their rows
/// (`ImageInspector.decode`), so the cache is reserved against ImageMagick's memory limit
/// (`pixelCache`) but never written. What the coders' libraries hold themselves is, measured with
/// ImageMagick 6.9.11 (peak RSS of one streamed decode, docs/hardening.md):
/// - JPEG: a progressive file (or one whose first scan lacks a component) keeps every DCT
///   coefficient, 2 bytes per sample of each component at its sampling (a 6000×5000 4:4:4
///   progressive JPEG: 180 MB); a baseline one decodes a row of blocks at a time.
/// - PNG: an interlaced image is read whole by ImageMagick's coder (height × bytes a row); a
///   non-interlaced one a row at a time.
/// - WebP: libwebp decodes the whole image to RGBA first, about 4.5 bytes a pixel (a 10000×10000
///   lossless WebP of 3.9 KB: 439 MB).
/// - BMP: ImageMagick's coder reads all the pixel rows at once.
/// - TIFF, HEIC, AVIF: a strip or the whole image; counted as the whole image, 4 (TIFF) or 5.5
///   (HEIC, AVIF: RGBA and the YUV planes) bytes a pixel.
/// - ICO: its images whole (a favicon's are 256×256 at most, unless one holds a larger PNG),
///   4 bytes a pixel.
/// - GIF: a row at a time.
enum DecodeCost {
    struct Estimate: Equatable {
        /// Bytes the coder's library needs at once.
        var working: Int
        /// What the working memory is for, for the message (`"the DCT coefficients of a
        /// progressive JPEG"`).
        var what: String
        /// Bytes of ImageMagick's pixel cache the decode reserves: 8 a pixel (16-bit RGBA).
        var pixelCache: Int
    }

    /// The estimate for an image of `width` × `height` pixels (from its header) in `format`;
    /// `bytes` is the whole body.
    static func estimate(_ format: ImageFormat, _ bytes: UnsafeRawBufferPointer, width: Int, height: Int) -> Estimate {
        let pixels = width.multipliedReportingOverflow(by: height)
        let area = pixels.overflow ? Int.max / 16 : min(pixels.partialValue, Int.max / 16)
        var estimate = Estimate(working: 0, what: "the decoder's buffers", pixelCache: area * 8)
        switch format {
        case .jpeg:
            if let coefficients = jpegCoefficients(bytes) {
                estimate.working = coefficients
                estimate.what = "the DCT coefficients of a progressive JPEG"
            }
        case .png:
            if bytes.count > 28, bytes[28] == 1 {
                let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(bytes[25])] ?? 4
                let sample = bytes[24] == 16 ? 2 : 1
                estimate.working = min(area, Int.max / 16) * channels * sample
                estimate.what = "the rows of an interlaced PNG"
            }
        case .webp:
            estimate.working = area * 9 / 2
            estimate.what = "libwebp's decoded image"
        case .bmp:
            let bits = bytes.count > 29 ? (bytes.le32(14) == 12 ? bytes.le16(24) : bytes.le16(28)) : 32
            let side = { (value: Int) in min(max(value, 0), 1 << 31) }
            let row = max((side(width) * max(bits, 1) + 31) / 32 * 4, side(width) + 256)
            estimate.working = row * side(height)
            estimate.what = "the pixel rows of a BMP"
        case .tiff:
            estimate.working = area * 4
            estimate.what = "the decoded TIFF"
        case .heic, .heif, .avif:
            estimate.working = area * 11 / 2
            estimate.what = "the decoded \(format.rawValue.uppercased()) image"
        case .ico:
            estimate.working = area * 4
            estimate.what = "the decoded icon"
        case .gif, .svg:
            break
        }
        return estimate
    }

    /// The bytes libjpeg keeps for DCT coefficients when the image is coded in several scans
    /// (progressive, or a first scan without every component); nil for a single-scan image. Every
    /// component is counted at its sampling, in whole 8×8 blocks of 64 two-byte coefficients.
    static func jpegCoefficients(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 2
        var frame: (width: Int, height: Int, progressive: Bool, sampling: [(Int, Int)])?
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF || marker == 0x01 || (0xD0...0xD8).contains(marker) {
                index += marker == 0xFF ? 1 : 2
                continue
            }
            let length = bytes.be16(index + 2)
            let segment = index + 4
            guard length >= 2, index + 2 + length <= bytes.count else { return nil }
            let isFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isFrame, length >= 8 {
                let count = Int(bytes[segment + 5])
                guard count > 0, length >= 8 + 3 * count else { return nil }
                let sampling = (0..<count).map { component -> (Int, Int) in
                    let factors = bytes[segment + 6 + 3 * component + 1]
                    return (max(1, Int(factors >> 4)), max(1, Int(factors & 0x0F)))
                }
                frame = (
                    bytes.be16(segment + 3), bytes.be16(segment + 1), [0xC2, 0xC6, 0xCA, 0xCE].contains(marker),
                    sampling
                )
            } else if marker == 0xDA {
                guard let frame else { return nil }
                let scanComponents = Int(bytes[segment])
                guard frame.progressive || scanComponents < frame.sampling.count else { return nil }
                let horizontal = frame.sampling.map(\.0).max() ?? 1
                let vertical = frame.sampling.map(\.1).max() ?? 1
                var total = 0
                for (h, v) in frame.sampling {
                    let columns = ((frame.width * h + horizontal - 1) / horizontal + 7) / 8
                    let rows = ((frame.height * v + vertical - 1) / vertical + 7) / 8
                    total += columns * rows * 128
                }
                return total
            }
            index += 2 + length
        }
        return nil
    }

    /// `bytes` without the PNG chunks that hold only compressed or free text and the ICC profile
    /// (zTXt, iTXt, tEXt, iCCP), or nil when it has none. libpng inflates each of them whole
    /// before ImageMagick copies them again (a 204 KB PNG whose zTXt inflates to 200 MB took
    /// 609 MB to decode); they say nothing about the pixels, which are what a full decode checks.
    /// Every other chunk, with its CRC, is kept as it is.
    static func pngWithoutMetadata(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        let dropped: Set<UInt32> = [0x7A54_5874, 0x6954_5874, 0x7445_5874, 0x6943_4350]  // zTXt iTXt tEXt iCCP
        var offset = 8
        var ranges: [Range<Int>] = []
        var keepFrom = 0
        while offset + 12 <= bytes.count {
            let length = bytes.be32(offset)
            guard length <= bytes.count - offset - 12 else { break }
            let type = UInt32(truncatingIfNeeded: bytes.be32(offset + 4))
            let end = offset + 12 + length
            if dropped.contains(type) {
                ranges.append(keepFrom..<offset)
                keepFrom = end
            }
            if type == 0x4945_4E44 { break }  // IEND
            offset = end
        }
        guard !ranges.isEmpty else { return nil }
        ranges.append(keepFrom..<bytes.count)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        for range in ranges { result.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[range])) }
        return result
    }
}
