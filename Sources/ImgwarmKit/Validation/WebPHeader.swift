/// Reads a WebP file's headers without decoding it.
///
/// ImageMagick 6's WEBP coder has no header-only read: its "ping" decodes every pixel
/// (ReadWEBPImage never looks at `ping`; 850 µs for a 400×300 image, against 26 µs to ping a
/// JPEG). So in `--validate header` imgwarm checks WebP itself: the RIFF chunks must fit the body,
/// and the VP8 (lossy), VP8L (lossless) or VP8X (extended) headers must be well-formed with a
/// non-zero size. `--validate full` still decodes WebP with ImageMagick's WEBP coder.
enum WebPHeader {
    static func read(_ bytes: UnsafeRawBufferPointer) -> Result<(width: Int, height: Int, frames: Int), Failure> {
        func fourCC(_ at: Int) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<(at + 4)]), as: UTF8.self)
        }
        func bad(_ message: String) -> Result<(width: Int, height: Int, frames: Int), Failure> {
            .failure(Failure(.decodeFailed, "WebP: " + message))
        }
        guard bytes.count >= 30 else { return bad("the file is too short for its headers") }
        let end = min(bytes.count, bytes.le32(4) + 8)
        var offset = 12
        var canvas: (Int, Int)?
        var image: (Int, Int)?
        var frames = 0
        // Walk the chunks: each must fit in the RIFF container.
        while offset + 8 <= end {
            let type = fourCC(offset)
            let size = bytes.le32(offset + 4)
            let data = offset + 8
            guard size <= end - data else {
                return bad("the chunk '\(type)' declares \(size) bytes but only \(end - data) follow")
            }
            switch type {
            case "VP8 ":
                // Frame tag (3 bytes), then the key frame start code 9D 01 2A and 14-bit sizes.
                guard size >= 10, bytes[data] & 1 == 0 else {
                    return bad("the VP8 data does not start with a key frame")
                }
                guard bytes[data + 3] == 0x9D, bytes[data + 4] == 0x01, bytes[data + 5] == 0x2A else {
                    return bad("the VP8 start code is missing")
                }
                image = (bytes.le16(data + 6) & 0x3FFF, bytes.le16(data + 8) & 0x3FFF)
                frames += 1
            case "VP8L":
                guard size >= 5, bytes[data] == 0x2F else { return bad("the VP8L signature is missing") }
                let bits = UInt32(bytes.le32(data + 1))
                guard bits >> 29 == 0 else { return bad("unknown VP8L version \(bits >> 29)") }
                image = (Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
                frames += 1
            case "VP8X":
                guard size >= 10 else { return bad("the VP8X chunk is too short") }
                canvas = (bytes.le24(data + 4) + 1, bytes.le24(data + 7) + 1)
            case "ANMF":
                frames += 1
            default:
                break
            }
            offset = data + size + (size & 1)
        }
        guard frames > 0 else { return bad("no image data (VP8, VP8L or ANMF chunk)") }
        guard let (width, height) = canvas ?? image, width > 0, height > 0 else {
            return bad("the image has no width or height")
        }
        return .success((width, height, frames))
    }
}
