import Foundation
import Testing
import TestSupport

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
        }
    }

    @Test func lyingPNGChunk() throws {
        let data = try Fixtures.data("images/hostile/lying-chunk.png")
        let failure = data.withUnsafeBytes { StructureCheck.check(.png, $0) }
        #expect(failure?.reason == .decodeFailed)
        #expect(failure?.message.contains("'tEXt' declares 2147483632 bytes") == true)
    }
}
