/// Fixed-width unsigned integers in image headers, read at an offset the caller has checked
/// against `count`: big-endian in JPEG and PNG, little-endian in GIF, BMP and WebP's RIFF.
extension UnsafeRawBufferPointer {
    func be16(_ at: Int) -> Int { Int(self[at]) << 8 | Int(self[at + 1]) }
    func be32(_ at: Int) -> Int { be16(at) << 16 | be16(at + 2) }
    func le16(_ at: Int) -> Int { Int(self[at]) | Int(self[at + 1]) << 8 }
    func le24(_ at: Int) -> Int { le16(at) | Int(self[at + 2]) << 16 }
    func le32(_ at: Int) -> Int { le16(at) | le16(at + 2) << 16 }
}
