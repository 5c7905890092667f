/// The pixel size an image's header declares, read without ImageMagick for the formats where
/// that is a few bytes away. It lets imgwarm refuse a 60000×60000 PNG with a precise reason
/// before any decoder sees it (ImageMagick's own policy limits refuse such files silently).
enum DeclaredSize {
    static func read(_ format: ImageFormat, _ bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        // BMP stores its width and height signed (a negative height: rows top-down). Widened to Int
        // before taking the magnitude: abs(Int32.min) does not fit an Int32 and traps.
        func magnitude32(_ at: Int) -> Int { abs(Int(Int32(truncatingIfNeeded: bytes.le32(at)))) }
        switch format {
        case .png:
            guard bytes.count >= 24 else { return nil }
            return (bytes.be32(16), bytes.be32(20))
        case .gif:
            guard bytes.count >= 10 else { return nil }
            return (bytes.le16(6), bytes.le16(8))
        case .bmp:
            guard bytes.count >= 26 else { return nil }
            if bytes.le32(14) == 12 { return (bytes.le16(18), bytes.le16(20)) }
            return (magnitude32(18), magnitude32(22))
        case .webp:
            guard bytes.count >= 30 else { return nil }
            let chunk = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[12..<16]), as: UTF8.self)
            switch chunk {
            case "VP8X": return (bytes.le24(24) + 1, bytes.le24(27) + 1)
            case "VP8L":
                let bits = UInt32(bytes.le16(21)) | UInt32(bytes.le16(23)) << 16
                return (Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
            case "VP8 ": return (bytes.le16(26) & 0x3FFF, bytes.le16(28) & 0x3FFF)
            default: return nil
            }
        case .jpeg:
            // Walk the marker segments up to the first start-of-frame.
            var index = 2
            while index + 9 < bytes.count {
                guard bytes[index] == 0xFF else { return nil }
                let marker = bytes[index + 1]
                if marker == 0xFF {
                    index += 1
                    continue
                }
                if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 {
                    index += 2
                    continue
                }
                let length = bytes.be16(index + 2)
                let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
                if isFrame { return (bytes.be16(index + 7), bytes.be16(index + 5)) }
                if marker == 0xDA || length < 2 { return nil }
                index += 2 + length
            }
            return nil
        case .tiff, .heic, .heif, .avif, .ico, .svg:
            return nil
        }
    }
}
