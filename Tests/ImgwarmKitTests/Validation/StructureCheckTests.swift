import Foundation
import LoopbackServer
import TestSupport
import Testing

@testable import ImgwarmKit

/// Whole files pass; every file cut anywhere fails (or, for the formats without an end marker,
/// is at least not accepted by mistake as a different structure).
@Suite struct StructureCheckTests {
    static let checked: [(String, ImageFormat)] = [
        ("photo.jpg", .jpeg), ("gradient.png", .png), ("anim.gif", .gif), ("sticker.webp", .webp), ("icon.bmp", .bmp),
    ]

    @Test(arguments: checked)
    func completeFilesPass(name: String, format: ImageFormat) throws {
        let data = try Fixtures.data("images/valid/" + name)
        #expect(data.withUnsafeBytes { StructureCheck.check(format, $0) } == nil)
    }

    @Test(arguments: checked)
    func everyCutIsNoticed(name: String, format: ImageFormat) throws {
        let data = [UInt8](try Fixtures.data("images/valid/" + name))
        // Every cut point in the first 64 bytes, then every 7th byte.
        var cuts = Array(1..<min(64, data.count))
        cuts += stride(from: 64, to: data.count - 1, by: 7)
        for cut in cuts {
            let failure = data[0..<cut].withUnsafeBytes { StructureCheck.check(format, $0) }
            #expect(failure != nil, "\(name) cut at \(cut) of \(data.count) passed")
            if format == .jpeg {
                // A cut is transient (retried), never mistaken for damage (blacklisted).
                #expect(failure?.reason == .truncated, "\(name) cut at \(cut): \(failure?.message ?? "")")
            }
        }
    }

    /// JPEG magic bytes followed by nothing a JPEG could hold are damage, not a cut.
    @Test func jpegMagicThenGarbage() throws {
        let garbage: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF] + Array(repeating: 0x5A, count: 600),  // no marker code
            [UInt8](try Fixtures.data("images/hostile/corrupt.jpg")),  // APP0 without an identifier
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01] + Array(repeating: 0, count: 40),  // length under 2
            // no marker after a segment
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0] + [0x41, 0x42],
        ]
        for bytes in garbage {
            let failure = bytes.withUnsafeBytes { StructureCheck.check(.jpeg, $0) }
            #expect(failure?.reason == .decodeFailed, "\(failure?.message ?? "passed")")
        }
        // Cut inside a first APP1 segment that names itself: a cut, not damage.
        let exif: [UInt8] =
            [0xFF, 0xD8, 0xFF, 0xE1, 0x40, 0x00] + Array("Exif".utf8) + [0, 0] + Array(repeating: 0x11, count: 300)
        #expect(exif.withUnsafeBytes { StructureCheck.check(.jpeg, $0) }?.reason == .truncated)
    }

    /// GIF frames and TIFF directories are counted; more than the limit is refused before any
    /// decoder sees them.
    @Test func frameCounts() {
        let gif = GeneratedImages.gif(frames: 30)
        let tiff = GeneratedImages.tiff(directories: 30)
        #expect(gif.withUnsafeBytes { StructureCheck.check(.gif, $0, maxFrames: 30) } == nil)
        #expect(tiff.withUnsafeBytes { StructureCheck.check(.tiff, $0, maxFrames: 30) } == nil)
        #expect(gif.withUnsafeBytes { StructureCheck.check(.gif, $0, maxFrames: 29) }?.reason == .imageTooLarge)
        #expect(tiff.withUnsafeBytes { StructureCheck.check(.tiff, $0, maxFrames: 29) }?.reason == .imageTooLarge)
        // A directory chain that loops is counted once per directory, and left to libtiff.
        var loop = GeneratedImages.tiff(directories: 2)
        let last = 8 + 2 * 102 - 4
        loop.replaceSubrange(last..<(last + 4), with: [8, 0, 0, 0])
        #expect(loop.withUnsafeBytes { StructureCheck.check(.tiff, $0, maxFrames: 5) } == nil)
    }

    @Test func lyingPNGChunk() throws {
        let data = try Fixtures.data("images/hostile/lying-chunk.png")
        let failure = data.withUnsafeBytes { StructureCheck.check(.png, $0) }
        #expect(failure?.reason == .decodeFailed)
        #expect(failure?.message.contains("'tEXt' declares 2147483632 bytes") == true)
    }
}
