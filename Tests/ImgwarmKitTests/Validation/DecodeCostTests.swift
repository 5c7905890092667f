import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// The memory a full decode needs, from the header, and what ImageMagick is spared.
@Suite struct DecodeCostTests {
    func bytes(_ fixture: String) throws -> [UInt8] { [UInt8](try Fixtures.data("images/" + fixture)) }

    /// A progressive 64×48 4:2:0 JPEG keeps every coefficient: Y in 8×6 blocks, Cb and Cr in 4×3,
    /// 128 bytes a block: (48 + 12 + 12) × 128. A baseline JPEG keeps none.
    @Test func progressiveJPEGCoefficients() throws {
        let progressive = try bytes("valid/progressive.jpg")
        #expect(progressive.withUnsafeBytes { DecodeCost.jpegCoefficients($0) } == 9216)
        let baseline = try bytes("valid/photo.jpg")
        #expect(baseline.withUnsafeBytes { DecodeCost.jpegCoefficients($0) } == nil)
    }

    /// libwebp's whole image (4.5 bytes a pixel), an interlaced PNG's rows, nothing for GIF; the
    /// pixel cache reservation is 8 bytes a pixel whatever the format.
    @Test func estimatesPerFormat() throws {
        let webp = try bytes("hostile/lossless-10k.webp")
        let estimate = webp.withUnsafeBytes { DecodeCost.estimate(.webp, $0, width: 10000, height: 10000) }
        #expect(estimate.working == 450_000_000)
        #expect(estimate.pixelCache == 800_000_000)
        var png = try bytes("valid/gradient.png")
        #expect(png.withUnsafeBytes { DecodeCost.estimate(.png, $0, width: 200, height: 120) }.working == 0)
        png[28] = 1  // interlaced (IHDR's CRC is not checked here)
        let interlaced = png.withUnsafeBytes { DecodeCost.estimate(.png, $0, width: 200, height: 120) }
        let sample = png[24] == 16 ? 2 : 1
        #expect(interlaced.working == 200 * 120 * [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(png[25])]! * sample)
        let gif = try bytes("valid/anim.gif")
        #expect(gif.withUnsafeBytes { DecodeCost.estimate(.gif, $0, width: 48, height: 48) }.working == 0)
        // Sizes whose product overflows are bounded, never a trap.
        let huge = gif.withUnsafeBytes { DecodeCost.estimate(.webp, $0, width: Int.max, height: Int.max) }
        #expect(huge.working > 0 && huge.pixelCache > 0)
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        func be32(_ value: UInt32) -> [UInt8] {
            (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        return be32(UInt32(data.count)) + Array(type.utf8) + data + be32(0)  // the CRC is not looked at
    }

    /// zTXt, iTXt, tEXt and iCCP chunks are left out of what ImageMagick decodes, every other
    /// byte kept; a PNG without them is decoded as it is.
    @Test func pngMetadataIsLeftOutOfTheDecode() throws {
        let original = try bytes("valid/gradient.png")
        #expect(original.withUnsafeBytes { DecodeCost.pngWithoutMetadata($0) } == nil)
        let metadata =
            Self.chunk("tEXt", Array("Comment\u{0}hello".utf8))
            + Self.chunk("zTXt", Array("C\u{0}\u{0}".utf8) + [1, 2, 3])
            + Self.chunk("iCCP", Array("p\u{0}\u{0}".utf8) + [9, 9])
        var damaged = original
        damaged.insert(contentsOf: metadata, at: 33)  // after IHDR
        damaged.insert(
            contentsOf: Self.chunk("iTXt", Array("k\u{0}\u{1}\u{0}\u{0}\u{0}".utf8) + [7]), at: damaged.count - 12)
        let stripped = damaged.withUnsafeBytes { DecodeCost.pngWithoutMetadata($0) }
        #expect(stripped == original)
        // The damaged metadata (zlib data that is not zlib) does not fail a full decode.
        var full = ValidationConfiguration()
        full.mode = .full
        let result = damaged.withUnsafeBytes { ImageValidator(configuration: full).validate($0) }
        #expect((try? result.get())?.width == 200, "\(result)")
    }

    /// Over `maxDecodeMemory`, or over ImageMagick's pixel cache limit, a full decode is
    /// `validation-limit`, which is neither retried nor blacklisted; the header mode is not bound.
    @Test func limitsOfOursAreValidationLimits() throws {
        var full = ValidationConfiguration()
        full.mode = .full
        let huge = try bytes("hostile/huge-frame.jpg")
        let result = huge.withUnsafeBytes { ImageValidator(configuration: full).validate($0) }
        guard case .failure(let failure) = result else {
            Issue.record("a 10000×10000 full decode was accepted")
            return
        }
        #expect(failure.reason == .validationLimit)
        #expect(failure.message.contains("763 MiB of ImageMagick's pixel cache"), "\(failure.message)")
        #expect(!failure.isTransient)
        #expect(!failure.reason.isBlacklisted(status: 200))
        let header = huge.withUnsafeBytes { ImageValidator(configuration: ValidationConfiguration()).validate($0) }
        #expect((try? header.get())?.height == 10000)
    }
}
