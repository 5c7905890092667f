import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// `--validate full` with the real binary: ImageMagick can neither end nor hang the run, each
/// decode stays within its memory bound, and a limit of ours is `validation-limit`, never a
/// blacklisted `decode-failed` (issue 21).
@Suite struct FullDecodeTests {
    /// 3,000 ordinary images decoded on every validation thread at `-c 16`: ImageMagick's
    /// process-wide time limit, restarted before each read, once ended 5 of 5 such runs with a
    /// fatal "time limit exceeded" (exit 1, no report) or hung them in MagickCoreTerminus.
    @Test func thousandsOfDecodesOnEveryThreadFinish() throws {
        let h = try PrefetchHarness()
        let names = ["gradient.png", "sticker.webp", "anim.gif", "photo.jpg"]
        let keys = (0..<3000).map { h.url("/img/\(names[$0 % names.count])?n=\($0)") }
        let run = try h.prefetch(keys, options: ["--validate", "full", "-c", "16"], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.totals["downloaded"] as? Int == 3000)
        #expect(h.cacheContents().count == 3000)
    }

    /// A 204 KB PNG whose zTXt inflates to 200 MB took 646 MB and a 10000×10000 lossless WebP of
    /// 4 KB 471 MB to validate fully. Now the PNG is decoded without its text and stored; the WebP
    /// fails as `validation-limit` before libwebp allocates; the whole process stays within
    /// 100 MB of what a small JPEG's full validation takes.
    @Test func hostileBodiesStayWithinTheDecodeBound() throws {
        let h = try PrefetchHarness()
        let limits = ValidationLimitsTests()
        let baseline = try limits.measuredPrefetch(h, [h.url("/img/photo.jpg")], options: ["--validate", "full"])
        #expect(baseline.run.status == 0, "\(baseline.run.stderr)")

        let bomb = h.url("/hostile/ztxt-bomb.png")
        let png = try limits.measuredPrefetch(h, [bomb], options: ["--validate", "full"])
        #expect(png.run.status == 0, "\(png.run.stderr)")
        #expect(try png.run.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(png.peak <= baseline.peak + 100 << 20, "peak \(png.peak >> 20) MiB, baseline \(baseline.peak >> 20)")

        let webp = try limits.measuredPrefetch(
            h, [h.url("/hostile/lossless-10k.webp")], options: ["--validate", "full"])
        #expect(webp.run.status == 1, "\(webp.run.stderr)")
        let entry = try webp.run.entry(line: 1)
        #expect(entry["errorClass"] as? String == "validation-limit")
        #expect((entry["errorMessage"] as? String)?.contains("--max-decode-memory") == true, "\(entry)")
        #expect(webp.peak <= baseline.peak + 100 << 20, "peak \(webp.peak >> 20) MiB, baseline \(baseline.peak >> 20)")
    }

    /// A valid image within --max-pixels whose full decode ImageMagick cannot hold (10000×10000:
    /// 763 MiB of pixel cache, over Debian's 256 MiB policy) is `validation-limit` with the limit
    /// named, not blacklisted: the next run tries it again. The header check accepts it.
    @Test func anImageBeyondImageMagicksLimitsIsNotBlacklisted() throws {
        let h = try PrefetchHarness()
        let key = h.url("/hostile/huge-frame.jpg")
        let first = try h.prefetch([key], options: ["--validate", "full"])
        #expect(first.status == 1, "\(first.stderr)")
        let entry = try first.entry(line: 1)
        #expect(entry["outcome"] as? String == "failed")
        #expect(entry["errorClass"] as? String == "validation-limit")
        #expect((entry["errorMessage"] as? String)?.contains("pixel cache") == true, "\(entry)")
        let again = try h.prefetch([key], options: ["--validate", "full"])
        #expect(try again.entry(line: 1)["errorClass"] as? String == "validation-limit", "not blacklisted")
        let blacklist = try h.run(["blacklist", "list", "--disk-cache-path", h.folder])
        #expect(!blacklist.result.stdoutText.contains("huge-frame"), "\(blacklist.result.stdoutText)")
        let header = try h.prefetch([key])
        #expect(try header.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(try header.entry(line: 1)["width"] as? Int == 10000)
    }

    /// --max-decode-memory (100MiB when left out, recorded in the report) bounds what a progressive
    /// JPEG's coefficients may take: 9,216 bytes for this 64×48 4:2:0 image.
    @Test func maxDecodeMemoryBoundsProgressiveJPEGs() throws {
        let h = try PrefetchHarness()
        let key = h.url("/img/progressive.jpg")
        let fits = try h.prefetch([key], options: ["--validate", "full"])
        #expect(fits.status == 0, "\(fits.stderr)")
        let options = try #require(try fits.report["options"] as? [String: Any])
        #expect(options["maxDecodeMemory"] as? Int == 100 << 20)
        let tight = try h.prefetch([key + "?tight"], options: ["--validate", "full", "--max-decode-memory", "9000"])
        #expect(tight.status == 1)
        let entry = try tight.entry(line: 1)
        #expect(entry["errorClass"] as? String == "validation-limit")
        #expect((entry["errorMessage"] as? String)?.contains("needs about 1 MiB") == true, "\(entry)")
        let roomy = try h.prefetch([key + "?roomy"], options: ["--validate", "full", "--max-decode-memory", "9216"])
        #expect(roomy.status == 0, "\(roomy.stderr)")
        let zero = try h.prefetch([key], options: ["--max-decode-memory", "0"])
        #expect(zero.status == 2)
        #expect(zero.stderr.contains("--max-decode-memory"), "\(zero.stderr)")
    }
}
