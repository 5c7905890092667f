import Foundation
import Magick
import TestSupport
import Testing

@testable import ImgwarmKit

/// The JPEG, PNG and GIF header readers of `--validate header`, against ImageMagick's ping on
/// real files and on thousands of damaged ones.
@Suite struct NativeHeaderTests {
    init() { ImageValidator.startMagick(ValidationConfiguration()) }

    static let readable: [(String, ImageFormat)] = [
        ("photo.jpg", .jpeg), ("gradient.png", .png), ("anim.gif", .gif), ("sticker.webp", .webp),
    ]

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Fixtures.data("images/valid/" + name))
    }

    /// What the validator's header mode says (nil when the structural check already refused).
    static func native(_ format: ImageFormat, _ bytes: [UInt8]) -> Result<ValidatedImage, Failure>? {
        bytes.withUnsafeBytes { raw in
            if StructureCheck.check(format, raw) != nil { return nil }
            return ImageValidator(configuration: ValidationConfiguration()).validate(raw)
        }
    }

    static func ping(_ format: ImageFormat, _ bytes: [UInt8]) -> Result<ImageProperties, MagickError> {
        bytes.withUnsafeBytes { ImageInspector().ping($0, coder: format.magickCoder) }
    }

    /// On every intact fixture the reader gives ImageMagick's width and height.
    @Test(arguments: readable)
    func agreesWithImageMagick(name: String, format: ImageFormat) throws {
        let data = try Self.bytes(name)
        let native = try #require(Self.native(format, data)).get()
        let magick = try Self.ping(format, data).get()
        #expect(native.width == magick.width && native.height == magick.height, "\(name)")
    }

    /// Whatever the reader accepts, ImageMagick's ping accepts too, with the same size: random
    /// bytes changed, inserted or removed in the header region of real files. (The reader may
    /// refuse more: it is the stricter of the two.) `scripts/fuzz.sh` runs it long.
    @Test func acceptsNothingImageMagickRefuses() throws {
        var random = SplitMix64(state: PropertyTests.seed ^ 0x4EAD)
        var accepted = 0
        var refused = 0
        for _ in 0..<max(600, PropertyTests.iterations / 2) {
            let (name, format) = random.pick(Array(Self.readable.prefix(3)))
            var data = try Self.bytes(name)
            // The first 600 bytes: headers, tables, and the start of the image data, which a ping
            // does not decode. For the GIF, only up to its first image's LZW code size: ImageMagick
            // reads GIF image data even in a ping, and damage there is the full decode's business,
            // as it is for a JPEG scan.
            var region = min(data.count, 600)
            if format == .gif, let image = (13..<data.count).first(where: { data[$0] == 0x2C }) { region = image + 11 }
            var damage = ""
            switch random.below(3) {
            case 0:
                for _ in 0..<(1 + random.below(4)) {
                    let at = 2 + random.below(region - 2)
                    data[at] = UInt8(truncatingIfNeeded: random.next())
                    damage += "byte \(at) set to \(data[at]); "
                }
            case 1:
                let at = 2 + random.below(region - 2)
                let inserted = (0..<(1 + random.below(8))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                data.insert(contentsOf: inserted, at: at)
                damage = "\(inserted) inserted at \(at)"
            default:
                let at = 2 + random.below(region - 2)
                let end = min(data.count, at + 1 + random.below(8))
                data.removeSubrange(at..<end)
                damage = "bytes \(at)..<\(end) removed"
            }
            // The validator sniffs first: damage to the signature makes another format, or none.
            guard ImageFormat.sniff(data) == format, let native = Self.native(format, data) else { continue }
            switch native {
            case .success(let size):
                accepted += 1
                let magick = Self.ping(format, data)
                guard case .success(let properties) = magick else {
                    Issue.record("\(name) with \(damage): accepted as \(size), ImageMagick refuses: \(magick)")
                    continue
                }
                if format != .gif {
                    #expect(
                        properties.width == size.width && properties.height == size.height,
                        "\(name) with \(damage): \(properties.width)×\(properties.height) against \(size)")
                }
            case .failure(let failure):
                refused += 1
                #expect(failure.reason == .decodeFailed || failure.reason == .imageTooLarge, "\(failure)")
            }
        }
        #expect(accepted > 50 && refused > 50, "both sides exercised: \(accepted) accepted, \(refused) refused")
    }

    /// Header damage no decoder accepts, one field at a time.
    @Test func refusesInvalidHeaders() throws {
        func refuses(
            _ format: ImageFormat, _ data: [UInt8], _ text: String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let result = data.withUnsafeBytes { NativeHeader.read(format, $0) }
            guard case .failure(let failure)? = result else {
                Issue.record("accepted: \(text)", sourceLocation: sourceLocation)
                return
            }
            #expect(failure.reason == .decodeFailed, sourceLocation: sourceLocation)
            #expect(failure.message.contains(text), "\(failure.message)", sourceLocation: sourceLocation)
        }
        let jpeg = try Self.bytes("photo.jpg")
        let sof = try #require(
            (2..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && [0xC0, 0xC2].contains(jpeg[$0 + 1]) })
        var twelveBit = jpeg
        twelveBit[sof + 4] = 12
        refuses(.jpeg, twelveBit, "12-bit")
        var noWidth = jpeg
        noWidth[sof + 7] = 0
        noWidth[sof + 8] = 0
        refuses(.jpeg, noWidth, "×")
        var lossless = jpeg
        lossless[sof + 1] = 0xC3
        refuses(.jpeg, lossless, "unsupported coding process")
        var unknown = jpeg
        unknown[sof + 1] = 0xF3
        refuses(.jpeg, unknown, "unknown marker")

        let png = try Self.bytes("gradient.png")
        var crc = png
        crc[29] ^= 0xFF
        refuses(.png, crc, "CRC")
        var depth = png
        depth[24] = 3
        Self.fixCRC(&depth, chunk: 8, length: 13)
        refuses(.png, depth, "bit depth")
        var colorType = png
        colorType[25] = 5
        Self.fixCRC(&colorType, chunk: 8, length: 13)
        refuses(.png, colorType, "colour type 5")

        let gif = try Self.bytes("anim.gif")
        var empty = Array(gif.prefix(13))
        empty[10] = 0  // no global colour table
        refuses(.gif, empty + [0x3B], "no image before the trailer")
        let descriptor = try #require((13..<gif.count).first { gif[$0] == 0x2C })
        var codeSize = gif
        let table = gif[descriptor + 9] & 0x80 != 0 ? 3 << (Int(gif[descriptor + 9] & 0x07) + 1) : 0
        codeSize[descriptor + 10 + table] = 12
        refuses(.gif, codeSize, "LZW code size")
    }

    /// Rewrites the CRC of the PNG chunk whose length field is at `chunk`.
    static func fixCRC(_ bytes: inout [UInt8], chunk: Int, length: Int) {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes[(chunk + 4)..<(chunk + 8 + length)] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        for index in 0..<4 { bytes[chunk + 8 + length + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
    }

    /// The validator answers header mode without ImageMagick for these formats (and with it for
    /// the others), and full mode still decodes with it.
    @Test func validatorUsesTheReaderInHeaderMode() throws {
        let validator = ImageValidator(configuration: ValidationConfiguration())
        for (name, _) in Self.readable {
            #expect(try Self.bytes(name).withUnsafeBytes { validator.validate($0) }.get().width > 0)
        }
        #expect(validator.magickReads == 0)
        #expect(try Self.bytes("scan.tiff").withUnsafeBytes { validator.validate($0) }.get().width == 96)
        #expect(validator.magickReads == 1)
        var full = ValidationConfiguration()
        full.mode = .full
        let decoder = ImageValidator(configuration: full)
        #expect(try Self.bytes("photo.jpg").withUnsafeBytes { decoder.validate($0) }.get().width == 320)
        #expect(decoder.magickReads == 1)
        for (name, format) in Self.readable {
            let data = try Self.bytes(name)
            let header = try data.withUnsafeBytes { try #require(NativeHeader.read(format, $0)) }.get()
            let validated = try #require(Self.native(format, data)).get()
            #expect(validated == ValidatedImage(format: format, width: header.width, height: header.height))
        }
    }
}
