/// Image bodies built on demand, for fixtures too large (or too many) to commit: deterministic,
/// made in memory, no ImageMagick needed.
public enum GeneratedImages {
    /// A valid 8-bit grayscale PNG of `width` × `height` mid-gray pixels, its pixel data in
    /// stored (uncompressed) deflate blocks: a 16000×1 image is 16 KB.
    public static func png(width: Int, height: Int) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((width + 1) * height)
        for _ in 0..<height {
            raw.append(0)  // filter type None
            raw.append(contentsOf: repeatElement(0x80, count: width))
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, raw.count - offset)
            let last: UInt8 = offset + count == raw.count ? 1 : 0
            zlib.append(last)
            zlib += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<(offset + count)]
            offset += count
        } while offset < raw.count
        zlib += be32(adler32(raw))
        var header = be32(UInt32(width)) + be32(UInt32(height))
        header += [8, 0, 0, 0, 0]  // depth 8, grayscale, deflate, no filter method, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    /// A valid GIF89a of `frames` 1×1 images (15 bytes each): 70,000 frames are about 1 MiB.
    public static func gif(frames: Int) -> [UInt8] {
        // Logical screen 1×1 with a 2-colour global table.
        var body = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 0xFF, 0xFF, 0xFF]
        // Image descriptor at 0,0 of 1×1, LZW minimum code size 2, one sub-block holding the
        // codes clear (4), pixel 0, end (5) at 3 bits each, then the block terminator.
        let frame: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00]
        body.reserveCapacity(body.count + frames * frame.count + 1)
        for _ in 0..<frames { body += frame }
        body.append(0x3B)
        return body
    }

    /// A valid little-endian TIFF of `directories` 1×1 grayscale images (102 bytes each, all
    /// sharing one pixel): 60,000 directories are about 6 MB.
    public static func tiff(directories: Int) -> [UInt8] {
        let entries = 8
        let directorySize = 2 + entries * 12 + 4
        let pixelOffset = 8 + directories * directorySize
        var body: [UInt8] = [0x49, 0x49, 42, 0] + le32(8)
        body.reserveCapacity(pixelOffset + 1)
        for index in 0..<directories {
            let next = index + 1 < directories ? 8 + (index + 1) * directorySize : 0
            body += le16(entries)
            // (tag, type: 3 SHORT or 4 LONG, value)
            let tags: [(Int, Int, Int)] = [
                (256, 3, 1), (257, 3, 1), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, pixelOffset), (278, 3, 1),
                (279, 4, 1),
            ]
            for (tag, type, value) in tags {
                body += le16(tag) + le16(type) + le32(1)
                body += type == 3 ? le16(value) + [0, 0] : le32(value)
            }
            body += le32(next)
        }
        body.append(0x80)
        return body
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(UInt32(data.count)) + typed + be32(crc32(typed))
    }

    private static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
    private static func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16((value >> 16) & 0xFFFF) }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
