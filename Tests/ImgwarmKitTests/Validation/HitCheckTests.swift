import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// A hit's head and tail settle it; the whole file is read only when they cannot, and then the
/// verdict is the one its validation gave (a file imgwarm stored is never judged damaged).
@Suite struct HitCheckTests {
    static let files = ["photo.jpg", "progressive.jpg", "gradient.png", "anim.gif", "sticker.webp", "icon.bmp"]

    func verdict(_ bytes: [UInt8]) -> HitCheck.Verdict {
        let head = Array(bytes.prefix(HitCheck.headLength))
        let tail = Array(bytes.suffix(HitCheck.tailLength))
        return head.withUnsafeBytes { head in
            tail.withUnsafeBytes { tail in HitCheck.judge(head: head, tail: tail, size: bytes.count) }
        }
    }

    /// The full judgement: the ends, then the whole file when they cannot tell.
    func damage(_ bytes: [UInt8]) -> String? {
        switch verdict(bytes) {
        case .intact: return nil
        case .damaged(let reason): return reason
        case .needsWholeFile(let format): return bytes.withUnsafeBytes { HitCheck.whole($0, format: format) }
        }
    }

    @Test(arguments: files)
    func wholeFilesAreIntactFromTheirEndsAlone(name: String) throws {
        let bytes = [UInt8](try Fixtures.data("images/valid/" + name))
        guard case .intact = verdict(bytes) else {
            Issue.record("\(name): \(verdict(bytes))")
            return
        }
    }

    /// Cut anywhere past its magic bytes, each file is damaged (what StructureCheck finds).
    @Test(arguments: files)
    func everyCutIsDamaged(name: String) throws {
        let bytes = [UInt8](try Fixtures.data("images/valid/" + name))
        for cut in stride(from: 16, to: bytes.count - 1, by: 13) {
            #expect(damage(Array(bytes.prefix(cut))) != nil, "\(name) cut at \(cut) of \(bytes.count)")
        }
    }

    /// Data after a JPEG's end-of-image marker passes validation, so it passes here too: the
    /// whole file is read and walked (no download on every run of a file imgwarm stored).
    @Test func trailingDataAfterTheEndMarkerIsNoDamage() throws {
        let bytes = [UInt8](try Fixtures.data("images/valid/photo.jpg")) + [UInt8](repeating: 0, count: 500)
        #expect(verdict(bytes) == .needsWholeFile(.jpeg))
        #expect(damage(bytes) == nil)
    }

    @Test func foreignAndTooShortFilesAreDamaged() {
        let html = Array("<!doctype html><html><body>gone</body></html>".utf8)
        #expect(damage(html)?.contains("not an image of a known format") == true)
        #expect(damage([0xFF, 0xD8]) != nil)
    }
}
