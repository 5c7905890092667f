/// The image formats imgwarm recognises from their magic bytes.
///
/// Sniffing never trusts a `Content-Type` header or a file extension: a server that sends a
/// valid PNG as `application/octet-stream` is fine, an HTML page sent as `image/jpeg` is not.
///
/// `svg` is a candidate only: text that starts as an SVG document may start (`SVGCheck` decides,
/// and only its own parser ever reads it, never ImageMagick's).
public enum ImageFormat: String, CaseIterable, Codable, Sendable {
    case jpeg, png, gif, tiff, webp, heic, heif, avif, bmp, ico, svg

    /// How many leading bytes `sniff` needs at most.
    public static let sniffLength = 64

    /// True for the formats whose pixels ImageMagick reads (every one but SVG, a text document
    /// that imgwarm's own `SVGCheck` reads: ImageMagick's SVG coder is never used).
    public var isRaster: Bool { self != .svg }

    /// The ImageMagick coder that is allowed to read this format, and only this one (none for SVG,
    /// which ImageMagick is never asked to read).
    public var magickCoder: String {
        switch self {
        case .jpeg: return "JPEG"
        case .png: return "PNG"
        case .gif: return "GIF"
        case .tiff: return "TIFF"
        case .webp: return "WEBP"
        case .heic, .heif: return "HEIC"
        case .avif: return "AVIF"
        case .bmp: return "BMP"
        case .ico: return "ICO"
        case .svg: return ""
        }
    }

    /// The format whose signature starts `bytes`, or nil when none does.
    public static func sniff(_ bytes: UnsafeRawBufferPointer) -> ImageFormat? {
        let count = bytes.count
        func at(_ offset: Int, _ signature: [UInt8]) -> Bool {
            guard offset + signature.count <= count else { return false }
            for (index, byte) in signature.enumerated() where bytes[offset + index] != byte { return false }
            return true
        }
        if at(0, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if at(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, Array("GIF87a".utf8)) || at(0, Array("GIF89a".utf8)) { return .gif }
        if at(0, [0x49, 0x49, 0x2A, 0x00]) || at(0, [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if at(0, Array("RIFF".utf8)) && at(8, Array("WEBP".utf8)) { return .webp }
        if at(0, Array("BM".utf8)) && count >= 18 {
            // BITMAPFILEHEADER is 14 bytes, then a DIB header whose size is one of a few values.
            let dibSize = UInt32(bytes[14]) | UInt32(bytes[15]) << 8 | UInt32(bytes[16]) << 16 | UInt32(bytes[17]) << 24
            if [12, 16, 40, 52, 56, 64, 108, 124].contains(dibSize) { return .bmp }
        }
        if at(4, Array("ftyp".utf8)) { return sniffISOBMFF(bytes) }
        // An icon directory (type 1) holding at least one image: favicons.
        if at(0, [0x00, 0x00, 0x01, 0x00]) && count >= 6 && (bytes[4] != 0 || bytes[5] != 0) { return .ico }
        if SVGCheck.mayStartSVG(bytes) { return .svg }
        return nil
    }

    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        bytes.withUnsafeBytes { sniff($0) }
    }

    /// HEIF-family files (HEIC, AVIF) start with an ISO-BMFF `ftyp` box naming brands.
    private static func sniffISOBMFF(_ bytes: UnsafeRawBufferPointer) -> ImageFormat? {
        guard bytes.count >= 12 else { return nil }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(bytes.count, max(boxSize, 12))
        func brand(_ offset: Int) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4)]), as: UTF8.self)
        }
        var brands = [brand(8)]
        var offset = 16  // skip minor_version
        while offset + 4 <= end {
            brands.append(brand(offset))
            offset += 4
        }
        let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]
        let avifBrands: Set<String> = ["avif", "avis"]
        if avifBrands.contains(brands[0]) { return .avif }
        if heicBrands.contains(brands[0]) { return .heic }
        if brands.contains(where: avifBrands.contains) { return .avif }
        if brands.contains(where: heicBrands.contains) { return .heic }
        if brands.contains("mif1") || brands.contains("msf1") { return .heif }
        return nil
    }
}
