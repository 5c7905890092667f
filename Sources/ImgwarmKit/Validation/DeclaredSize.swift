/// The pixel size an image's header declares, read without ImageMagick for the formats where
/// that is a few bytes away. It lets imgwarm refuse a 60000×60000 PNG with a precise reason
/// before any decoder sees it (ImageMagick's own policy limits refuse such files silently).
enum DeclaredSize {
    static func read(_ format: ImageFormat, _ bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        func be16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        func le16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func be32(_ at: Int) -> Int { be16(at) << 16 | be16(at + 2) }
        func le24(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 }
        func le32(_ at: Int) -> Int32 { Int32(bitPattern: UInt32(le16(at)) | UInt32(le16(at + 2)) << 16) }
        switch format {
        case .png:
            guard bytes.count >= 24 else { return nil }
            return (be32(16), be32(20))
        case .gif:
            guard bytes.count >= 10 else { return nil }
            return (le16(6), le16(8))
        case .bmp:
            guard bytes.count >= 26 else { return nil }
            if le32(14) == 12 { return (le16(18), le16(20)) }
            return (Int(abs(le32(18))), Int(abs(le32(22))))
        case .webp:
            guard bytes.count >= 30 else { return nil }
            let chunk = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[12..<16]), as: UTF8.self)
            switch chunk {
            case "VP8X": return (le24(24) + 1, le24(27) + 1)
            case "VP8L":
                let bits = UInt32(le16(21)) | UInt32(le16(23)) << 16
                return (Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
            case "VP8 ": return (le16(26) & 0x3FFF, le16(28) & 0x3FFF)
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
                let length = be16(index + 2)
                let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
                if isFrame { return (be16(index + 7), be16(index + 5)) }
                if marker == 0xDA || length < 2 { return nil }
                index += 2 + length
            }
            return nil
        case .tiff, .heic, .heif, .avif:
            return nil
        }
    }
}
