import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

@Suite struct WebPHeaderTests {
    @Test func readsTheFixture() throws {
        let data = try Fixtures.data("images/valid/sticker.webp")
        let header = try data.withUnsafeBytes { try WebPHeader.read($0).get() }
        #expect(header.width == 128 && header.height == 128 && header.frames == 1)
    }

    @Test func rejectsDamage() throws {
        var data = [UInt8](try Fixtures.data("images/valid/sticker.webp"))
        // VP8 start code (bytes 23-25 of a simple lossy file) damaged.
        data[23] = 0
        let failure = data.withUnsafeBytes { WebPHeader.read($0) }
        guard case .failure(let error) = failure else {
            Issue.record("damaged start code accepted")
            return
        }
        #expect(error.message.contains("start code"))
        let short = [UInt8](try Fixtures.data("images/valid/sticker.webp").prefix(20))
        #expect((try? short.withUnsafeBytes { try WebPHeader.read($0).get() }) == nil)
    }

    /// The header reader agrees with ImageMagick's full decode on the size.
    @Test func agreesWithTheFullDecode() throws {
        let data = try Fixtures.data("images/valid/sticker.webp")
        var configuration = ValidationConfiguration()
        configuration.mode = .full
        let full = data.withUnsafeBytes { ImageValidator(configuration: configuration).validate($0) }
        configuration.mode = .header
        let header = data.withUnsafeBytes { ImageValidator(configuration: configuration).validate($0) }
        #expect(try full.get() == header.get())
    }

    /// An animated WebP of more frames than `maxFrames` is refused in both modes, before any
    /// decoder sees it (ImageMagick would keep about 25 KB per frame).
    @Test func tooManyAnimationFrames() throws {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        func webp(frames: Int) -> [UInt8] {
            // VP8X: flags (animation), reserved, canvas 16×16 (stored minus one, 24-bit).
            var chunks = Array("VP8X".utf8) + le32(10) + [0x02, 0, 0, 0, 15, 0, 0, 15, 0, 0]
            for _ in 0..<frames { chunks += Array("ANMF".utf8) + le32(0) }
            return Array("RIFF".utf8) + le32(4 + chunks.count) + Array("WEBP".utf8) + chunks
        }
        var configuration = ValidationConfiguration()
        configuration.maxFrames = 20
        for mode in ValidationConfiguration.Mode.allCases {
            configuration.mode = mode
            let refused = webp(frames: 21).withUnsafeBytes { ImageValidator(configuration: configuration).validate($0) }
            #expect(throws: Failure.self) { try refused.get() }
            if case .failure(let failure) = refused {
                #expect(failure.reason == .imageTooLarge, "\(mode): \(failure.message)")
            }
        }
        configuration.mode = .header
        let accepted = webp(frames: 20).withUnsafeBytes { ImageValidator(configuration: configuration).validate($0) }
        #expect(try accepted.get().width == 16)
    }
}
