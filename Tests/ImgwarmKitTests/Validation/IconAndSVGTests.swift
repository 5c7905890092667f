import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// ICO favicons are images like any other (ImageIO and BitmapFactory decode them); SVG is a
/// document checked by imgwarm's own parser, stored only with `acceptSVG` (issue 48, item 1).
@Suite struct IconAndSVGTests {
    static func validate(
        _ bytes: [UInt8], mode: ValidationConfiguration.Mode = .header, acceptSVG: Bool = false
    ) -> Result<ValidatedImage, Failure> {
        var configuration = ValidationConfiguration()
        configuration.mode = mode
        configuration.acceptSVG = acceptSVG
        let validator = ImageValidator(configuration: configuration)
        return bytes.withUnsafeBytes { validator.validate($0) }
    }

    static let favicon = [UInt8](try! Fixtures.data("images/valid/favicon.ico"))
    static let logo = [UInt8](try! Fixtures.data("images/vector/logo.svg"))

    @Test(arguments: [ValidationConfiguration.Mode.header, .full])
    func aFaviconIsAnImage(mode: ValidationConfiguration.Mode) throws {
        #expect(ImageFormat.sniff(Self.favicon) == .ico)
        let image = try Self.validate(Self.favicon, mode: mode).get()
        #expect(image.format == .ico)
        #expect(image.width > 0 && image.height > 0)
    }

    @Test func aCutIconIsTruncated() {
        // Cut inside its second image: truncated (retried), not stored.
        guard case .failure(let failure) = Self.validate(Array(Self.favicon.prefix(Self.favicon.count - 10))) else {
            Issue.record("a cut icon was accepted")
            return
        }
        #expect(failure.reason == .truncated)
    }

    @Test func iconStructure() {
        func reason(_ bytes: [UInt8]) -> FailureReason? {
            bytes.withUnsafeBytes { StructureCheck.check(.ico, $0) }?.reason
        }
        #expect(reason(Self.favicon) == nil)
        #expect(reason(Array(Self.favicon.prefix(Self.favicon.count - 10))) == .truncated)
        #expect(reason(Array(Self.favicon.prefix(20))) == .truncated, "the directory is cut")
        var empty = Self.favicon
        empty[4] = 0
        empty[5] = 0
        #expect(ImageFormat.sniff(empty) == nil, "an icon directory of no image is not an icon")
        #expect(reason(empty) == .decodeFailed)
        var inside = Self.favicon
        inside[6 + 12] = 8  // the first image's offset inside the directory
        inside[6 + 13] = 0
        #expect(reason(inside) == .decodeFailed)
        var huge = Self.favicon
        huge[6 + 8 + 3] = 0x7F  // the first image claims 2 GiB
        #expect(reason(huge) == .decodeFailed)
        #expect(Self.favicon.withUnsafeBytes { StructureCheck.check(.ico, $0, maxFrames: 1) }?.reason == .imageTooLarge)
    }

    @Test func aHitOfAnIconOrAnSVGIsJudgedWhole() {
        for (bytes, format) in [(Self.favicon, ImageFormat.ico), (Self.logo, .svg)] {
            let verdict = bytes.withUnsafeBytes { raw in
                HitCheck.judge(
                    head: UnsafeRawBufferPointer(rebasing: raw.prefix(HitCheck.headLength)),
                    tail: UnsafeRawBufferPointer(rebasing: raw.suffix(HitCheck.tailLength)), size: raw.count)
            }
            #expect(verdict == .needsWholeFile(format))
            #expect(bytes.withUnsafeBytes { HitCheck.whole($0, format: format) } == nil)
        }
    }

    @Test func anSVGIsUnsupportedUnlessAccepted() throws {
        #expect(ImageFormat.sniff(Self.logo) == .svg)
        guard case .failure(let failure) = Self.validate(Self.logo) else {
            Issue.record("an SVG was accepted without acceptSVG")
            return
        }
        #expect(failure.reason == .unsupported)
        #expect(!failure.reason.isBlacklisted(status: 200))
        #expect(!failure.isTransient)
        let image = try Self.validate(Self.logo, acceptSVG: true).get()
        #expect(image == ValidatedImage(format: .svg, width: 48, height: 32))
        // Full mode reads it with the same parser: ImageMagick never sees it.
        #expect(try Self.validate(Self.logo, mode: .full, acceptSVG: true).get().format == .svg)
    }

    /// What is not a well-formed SVG document, and why.
    @Test(arguments: [
        ("<!doctype html><html><body>Not found</body></html>", FailureReason.notAnImage, "not an image of a known"),
        ("<!-- page --><html><body></body></html>", .notAnImage, "root element is <html>"),
        ("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel/></rss>", .notAnImage, "root element is <rss>"),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\"><g></svg>", .notAnImage, "</svg> closes <g>"),
        ("<svg><rect x=1/></svg>", .notAnImage, "not quoted"),
        ("<svg><rect x='1' x='2'/></svg>", .notAnImage, "appears twice"),
        ("<svg><text>&nbsp;</text></svg>", .notAnImage, "&nbsp; is not defined"),
        (
            "<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY a \"aaaa\">]><svg>&a;</svg>", .notAnImage,
            "internal subset"
        ),
        ("<svg></svg><svg></svg>", .notAnImage, "content after the root element"),
        ("<svg><rect width='10' height='10'/>", .truncated, "cut short"),
        ("<svg width=\"10\" height=\"1", .truncated, "cut short"),
    ])
    func notWellFormed(text: String, reason: FailureReason, words: String) {
        guard case .failure(let failure) = Self.validate(Array(text.utf8), acceptSVG: true) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(failure.reason == reason, "\(text): \(failure.message)")
        #expect(failure.message.contains(words), "\(text): \(failure.message)")
    }

    /// Shapes real SVG files have: a byte order mark, a namespace prefix, no size (0: none
    /// declared), a size in a `viewBox` only, references, CDATA, comments after the root.
    @Test(arguments: [
        ("\u{FEFF}<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'><path d='M0 0h24v24H0z'/></svg>", 24, 24),
        ("<svg:svg xmlns:svg='http://www.w3.org/2000/svg' width='10px' height='12.5'/>", 10, 13),
        ("<svg xmlns='http://www.w3.org/2000/svg' width='100%'><text>a &lt; b &#x263A; &#9731;</text></svg>", 0, 0),
        ("<?xml version='1.0'?>\n<svg><style><![CDATA[ a > b { } ]]></style></svg>\n<!-- end -->\n", 0, 0),
    ])
    func wellFormed(text: String, width: Int, height: Int) throws {
        let image = try Self.validate(Array(text.utf8), acceptSVG: true).get()
        #expect(image == ValidatedImage(format: .svg, width: width, height: height), "\(text)")
    }

    /// A document nested past the limit is refused without recursion.
    @Test func deepNestingIsRefused() {
        let deep = "<svg>" + String(repeating: "<g>", count: SVGCheck.maxDepth + 1)
        guard case .failure(let failure) = Self.validate(Array(deep.utf8), acceptSVG: true) else {
            Issue.record("accepted")
            return
        }
        #expect(failure.message.contains("nested deeper"), "\(failure.message)")
    }
}
