import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

@Suite struct ImageFormatTests {
    @Test(arguments: [
        ("photo.jpg", ImageFormat.jpeg), ("gradient.png", .png), ("anim.gif", .gif), ("scan.tiff", .tiff),
        ("sticker.webp", .webp), ("photo.heic", .heic), ("photo.avif", .avif), ("icon.bmp", .bmp),
    ])
    func sniffsFixtures(name: String, format: ImageFormat) throws {
        #expect(ImageFormat.sniff([UInt8](try Fixtures.data("images/valid/" + name))) == format)
    }

    @Test func rejectsNonImages() throws {
        #expect(ImageFormat.sniff([UInt8](try Fixtures.data("images/hostile/page.html"))) == nil)
        #expect(ImageFormat.sniff([]) == nil)
        #expect(ImageFormat.sniff(Array("BMx".utf8)) == nil)
        #expect(ImageFormat.sniff(Array("RIFF....WAVEfmt ".utf8)) == nil)
        var mp4 = [UInt8](repeating: 0, count: 24)
        mp4[3] = 24
        mp4.replaceSubrange(4..<12, with: Array("ftypisom".utf8))
        #expect(ImageFormat.sniff(mp4) == nil, "an MP4 is not HEIF")
    }

    /// Header sizes read without ImageMagick agree with the real images.
    @Test(arguments: [
        ("photo.jpg", ImageFormat.jpeg, 320, 240), ("gradient.png", .png, 200, 120), ("anim.gif", .gif, 48, 48),
        ("sticker.webp", .webp, 128, 128), ("icon.bmp", .bmp, 32, 24),
    ])
    func declaredSizes(name: String, format: ImageFormat, width: Int, height: Int) throws {
        let data = try Fixtures.data("images/valid/" + name)
        let size = data.withUnsafeBytes { DeclaredSize.read(format, $0) }
        #expect(size?.width == width)
        #expect(size?.height == height)
    }

    @Test func declaredSizeOfTheHostilePNG() throws {
        let data = try Fixtures.data("images/hostile/huge-dimensions.png")
        let size = data.withUnsafeBytes { DeclaredSize.read(.png, $0) }
        #expect(size?.width == 60000 && size?.height == 60000)
    }
}
