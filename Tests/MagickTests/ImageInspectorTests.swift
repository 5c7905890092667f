import Foundation
import LoopbackServer
import Magick
import TestSupport
import Testing

/// Real ImageMagick on real image files, always restricted to one named coder.
@Suite struct ImageInspectorTests {
    init() { Magick.start(limits: Magick.ResourceLimits()) }

    func ping(_ fixture: String, coder: String) throws -> Result<ImageProperties, MagickError> {
        let data = try Fixtures.data("images/" + fixture)
        return data.withUnsafeBytes { ImageInspector().ping($0, coder: coder) }
    }

    @Test(arguments: [
        ("valid/photo.jpg", "JPEG", 320, 240), ("valid/gradient.png", "PNG", 200, 120),
        ("valid/anim.gif", "GIF", 48, 48),
        ("valid/scan.tiff", "TIFF", 96, 64), ("valid/sticker.webp", "WEBP", 128, 128),
        ("valid/photo.heic", "HEIC", 64, 64),
        ("valid/photo.avif", "AVIF", 64, 64), ("valid/icon.bmp", "BMP", 32, 24),
    ])
    func pingsEveryFormat(fixture: String, coder: String, width: Int, height: Int) throws {
        let properties = try ping(fixture, coder: coder).get()
        #expect(properties.width == width)
        #expect(properties.height == height)
    }

    /// A ping reads the first frame only (its cost must not grow with the frame count); a decode
    /// reads them all.
    @Test func animatedGIFHasFrames() throws {
        #expect(try ping("valid/anim.gif", coder: "GIF").get().frames == 1)
        let data = try Fixtures.data("images/valid/anim.gif")
        #expect(try data.withUnsafeBytes { ImageInspector().decode($0, coder: "GIF") }.get().frames == 2)
    }

    /// The coder is forced: a PNG read as JPEG does not silently become a PNG.
    @Test func coderIsNotAutoDetected() throws {
        // Auto-detection would read it as the 200×120 PNG it is. The JPEG coder either refuses
        // it or (ImageMagick 6.9 in header mode) finds no dimensions, which the validator
        // rejects; both branches assert.
        switch try ping("valid/gradient.png", coder: "JPEG") {
        case .success(let properties):
            #expect(properties.width == 0 && properties.height == 0, "\(properties)")
            #expect(properties.coder == "JPEG")
        case .failure(let error):
            #expect(!error.message.isEmpty || error.severity == 0)
        }
        // Auto-detection would read HTML through some text coder; the PNG coder refuses it.
        #expect(throws: MagickError.self) { try ping("hostile/page.html", coder: "PNG").get() }
    }

    @Test func brokenFilesFail() throws {
        #expect(throws: MagickError.self) { try ping("hostile/header-only.gif", coder: "GIF").get() }
        #expect(throws: MagickError.self) { try ping("hostile/lying-chunk.png", coder: "PNG").get() }
    }

    /// A header-only ping accepts a JPEG whose scan is cut short; a full decode does not.
    @Test(arguments: ["hostile/truncated.jpg", "hostile/damaged-scan.jpg"])
    func fullDecodeCatchesDamagedPixels(fixture: String) throws {
        let data = try Fixtures.data("images/" + fixture)
        let inspector = ImageInspector()
        let pinged = data.withUnsafeBytes { inspector.ping($0, coder: "JPEG") }
        #expect(try pinged.get().width == 320)
        let decoded = data.withUnsafeBytes { inspector.decode($0, coder: "JPEG") }
        #expect(throws: MagickError.self) { try decoded.get() }
        let good = try Fixtures.data("images/valid/photo.jpg")
        #expect(try good.withUnsafeBytes { inspector.decode($0, coder: "JPEG") }.get().height == 240)
    }

    @Test func coderAvailability() {
        #expect(Magick.canRead(coder: "JPEG"))
        #expect(!Magick.canRead(coder: "NOSUCHCODER"))
    }

    /// Reads on several threads at once, for seconds, as a validating prefetch makes them: none
    /// fails and the process ends by itself. ImageMagick's process-wide time limit, restarted
    /// before each read, once ended such a process (a fatal "time limit exceeded") or hung it;
    /// streamed decodes that did not give back their pixel cache share failed after a few
    /// thousand reads ("cache resources exhausted").
    @Test(arguments: [("valid/gradient.png", "PNG", "200x120"), ("valid/sticker.webp", "WEBP", "128x128")])
    func concurrentReadsNeitherEndNorHangTheProcess(fixture: String, coder: String, size: String) throws {
        let file = Fixtures.root.appendingPathComponent("images/" + fixture).path
        let result = try ProcessRunner.run(
            Fixtures.product("imgwarm-magick-probe"), [file, coder, "2", "3"], timeout: 60)
        #expect(!result.signaled)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        let fields = result.stdoutText.split(separator: " ")
        #expect(fields.first.map(String.init) == size, "\(result.stdoutText)")
        #expect((fields.last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0) > 100)
    }

    /// A read past its own deadline fails with `timeLimit` set, and the next read works: the
    /// limit bounds one read, never the process.
    @Test func aReadPastItsDeadlineFailsAlone() throws {
        let data = try Fixtures.data("images/valid/photo.jpg")
        let inspector = ImageInspector()
        let late = data.withUnsafeBytes { inspector.decode($0, coder: "JPEG", timeLimit: 0) }
        guard case .failure(let error) = late else {
            Issue.record("a decode with no time left succeeded")
            return
        }
        #expect(error.timeLimit == 0)
        #expect(try data.withUnsafeBytes { inspector.decode($0, coder: "JPEG") }.get().height == 240)
    }

    /// A streamed decode gives back its share of ImageMagick's pixel cache memory: ten decodes of
    /// a 3000×3000 image (72 MB each, never filled) in a row all succeed under a 256 MiB limit.
    @Test func streamedDecodesGiveBackTheirReservation() throws {
        let image = GeneratedImages.png(width: 3000, height: 3000)
        let inspector = ImageInspector()
        for round in 0..<10 {
            let result = image.withUnsafeBytes { inspector.decode($0, coder: "PNG") }
            #expect((try? result.get())?.width == 3000, "round \(round): \(result)")
        }
    }
}
