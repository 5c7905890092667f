import Foundation
import Testing
import TestSupport

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
}
