import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// Fuzzing of every reader of integers in image headers (`ImageFormat.sniff`, `DeclaredSize`,
/// `StructureCheck`, `NativeHeader`, `WebPHeader`, and the whole `ImageValidator` in header mode):
/// real images and hand-made minimal headers of each format, with integers that trap careless
/// arithmetic (`Int32.min`, `0xFFFFFFFF`, `0x7FFF`…) written over their fields. A trap (overflow,
/// negation, a narrowing conversion) ends the test process, so merely finishing is the first
/// property; the others are checked on every input.
///
/// It runs for `IMGWARM_FUZZ_SECONDS` (10 by default; `scripts/fuzz.sh` runs it longer), from
/// `IMGWARM_FUZZ_SEED`.
@Suite struct HeaderFuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seconds = Double(environment["IMGWARM_FUZZ_SECONDS"] ?? "") ?? 10
    static let seed = UInt64(environment["IMGWARM_FUZZ_SEED"] ?? "") ?? 0x5EED_F00D

    /// The body that crashed every run (SIGILL in `abs(Int32.min)`): a 26-byte BMP whose height is
    /// 0x80000000.
    static let bmpWithMinimumHeight: [UInt8] = [
        0x42, 0x4D, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x28, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0x80,
    ]

    @Test func bmpWithTheMinimumSignedSizeIsRefusedNotATrap() {
        let declared = Self.bmpWithMinimumHeight.withUnsafeBytes { DeclaredSize.read(.bmp, $0) }
        #expect(declared?.width == 1)
        #expect(declared?.height == 0x8000_0000)
        let result = Self.bmpWithMinimumHeight.withUnsafeBytes {
            ImageValidator(configuration: ValidationConfiguration()).validate($0)
        }
        guard case .failure(let failure) = result else {
            Issue.record("a 1×2147483648 BMP was accepted")
            return
        }
        #expect(failure.reason == .imageTooLarge, "\(failure)")
        // The width too, and both at once.
        var both = Self.bmpWithMinimumHeight + [0, 0, 0, 0x80]
        both[18...21] = [0, 0, 0, 0x80]
        let sizes = both.withUnsafeBytes { DeclaredSize.read(.bmp, $0) }
        #expect(sizes?.width == 0x8000_0000 && sizes?.height == 0x8000_0000)
    }

    /// A BMP whose pixel data would start past the body says so, not that the file size is wrong.
    @Test func bmpPixelOffsetPastTheBodyIsReportedAsSuch() {
        var bytes = Self.bmpWithMinimumHeight + [UInt8](repeating: 0, count: 40)
        bytes[10] = 0xFF
        bytes[11] = 0x7F  // pixel data at 0x7FFF; the declared file size stays 0 (allowed)
        let failure = bytes.withUnsafeBytes { StructureCheck.bmp($0) }
        #expect(failure?.reason == .truncated)
        #expect(failure?.message.contains("pixel data starts at byte 32767") == true, "\(failure?.message ?? "")")
    }

    /// Minimal headers of each format with the fields readers look at, so mutations land on them.
    static func templates() throws -> [[UInt8]] {
        var result = try Fixtures.validImages().values.map { [UInt8]($0) }
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        // BMP with a BITMAPINFOHEADER (40) and a BITMAPCOREHEADER (12).
        result.append(
            Array("BM".utf8) + le32(70) + le32(0) + le32(54) + le32(40) + le32(2) + le32(2)
                + [UInt8](repeating: 0, count: 40))
        result.append(
            Array("BM".utf8) + le32(40) + le32(0) + le32(26) + le32(12) + [2, 0, 2, 0, 1, 0, 24, 0]
                + [UInt8](repeating: 0, count: 16))
        // WebP: VP8X, VP8L and VP8 chunks.
        let vp8x = Array("VP8X".utf8) + le32(10) + [0, 0, 0, 0, 9, 0, 0, 9, 0, 0]
        let vp8l = Array("VP8L".utf8) + le32(6) + [0x2F, 0x07, 0x40, 0x00, 0x00, 0x00]
        let vp8 = Array("VP8 ".utf8) + le32(10) + [0x10, 0, 0, 0x9D, 0x01, 0x2A, 8, 0, 8, 0]
        for chunks in [vp8x + vp8l, vp8l, vp8] {
            result.append(Array("RIFF".utf8) + le32(UInt32(4 + chunks.count)) + Array("WEBP".utf8) + chunks)
        }
        // TIFF: one directory of one entry, both byte orders.
        result.append([0x49, 0x49, 0x2A, 0x00] + le32(8) + [1, 0] + [UInt8](repeating: 0, count: 12) + le32(0))
        result.append([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 1] + [UInt8](repeating: 0, count: 12) + [0, 0, 0, 0])
        // ISO-BMFF ftyp boxes.
        result.append([0, 0, 0, 0x18] + Array("ftypavif".utf8) + le32(0) + Array("mif1miaf".utf8))
        result.append([0xFF, 0xFF, 0xFF, 0xFF] + Array("ftypmif1".utf8) + le32(0) + Array("heic".utf8))
        return result
    }

    /// Values that trap careless arithmetic, for 1, 2 and 4 byte fields.
    static let interesting: [UInt32] = [
        0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x3FFF, 0x4000, 0x7FFF, 0x8000, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000,
        0x8000_0001, 0xFFFF_FFFE, 0xFFFF_FFFF,
    ]

    static func mutate(_ input: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + random.below(4)) where !bytes.isEmpty {
            // Most header fields are in the first 64 bytes; sometimes anywhere.
            let span = random.below(4) == 0 ? bytes.count : min(bytes.count, 64)
            let at = random.below(span)
            switch random.below(4) {
            case 0:
                bytes[at] = UInt8(truncatingIfNeeded: random.next())
            default:
                let value = random.pick(interesting)
                let width = random.pick([1, 2, 4])
                let bigEndian = random.below(2) == 0
                for index in 0..<width where at + index < bytes.count {
                    let shift = bigEndian ? 8 * (width - 1 - index) : 8 * index
                    bytes[at + index] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
                }
            }
        }
        if random.below(4) == 0 { bytes = Array(bytes.prefix(random.below(bytes.count + 1))) }
        return bytes
    }

    @Test func headerReadersNeverTrap() throws {
        var random = SplitMix64(state: Self.seed)
        let templates = try Self.templates()
        let validator = ImageValidator(configuration: ValidationConfiguration())
        let deadline = Date().addingTimeInterval(Self.seconds)
        var runs = 0
        var reachedEveryReader = Set<ImageFormat>()
        while runs < 2000 || Date() < deadline {
            let bytes = Self.mutate(random.pick(templates), &random)
            runs += 1
            bytes.withUnsafeBytes { raw in
                guard
                    let format = ImageFormat.sniff(
                        UnsafeRawBufferPointer(rebasing: raw.prefix(ImageFormat.sniffLength)))
                else { return }
                reachedEveryReader.insert(format)
                if let size = DeclaredSize.read(format, raw) {
                    #expect(size.width >= 0 && size.height >= 0, "\(format) \(bytes)")
                }
                _ = StructureCheck.check(format, raw)
                if case .success(let size) = NativeHeader.read(format, raw) {
                    #expect(size.width > 0 && size.height > 0 && size.frameWidth > 0, "\(format) \(bytes)")
                }
                if format == .webp, case .success(let header) = WebPHeader.read(raw) {
                    #expect(header.width > 0 && header.height > 0 && header.frames > 0)
                }
                // The whole header validation (ImageMagick's ping for TIFF, BMP, HEIC and AVIF).
                if case .success(let image) = validator.validate(raw) {
                    #expect(image.width > 0 && image.height > 0)
                    #expect(image.width * image.height <= ValidationConfiguration().maxPixels)
                }
            }
        }
        #expect(reachedEveryReader.isSuperset(of: [.jpeg, .png, .gif, .bmp, .webp, .tiff]), "\(reachedEveryReader)")
    }
}
