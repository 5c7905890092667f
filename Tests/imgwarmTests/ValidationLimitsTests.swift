import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// What validation may cost and where its limits lie, with the real binary on generated images:
/// frame and directory counts must not drive memory, an allocation failure must not hang, and
/// the documented side limit is the one enforced.
@Suite struct ValidationLimitsTests {
    /// Runs `imgwarm prefetch` on `keys` as a measured child (optionally under `ulimit -v`).
    func measuredPrefetch(
        _ h: PrefetchHarness, _ keys: [String], options: [String] = [], virtualMemoryKiB: Int? = nil,
        timeout: Double = 90
    ) throws -> (run: PrefetchHarness.Run, peak: Int) {
        let list = try h.temp.write(
            "measured-\(UUID().uuidString).txt", Data((keys.joined(separator: "\n") + "\n").utf8))
        let arguments = ["prefetch", "--disk-cache-path", h.folder, "--report", "-"] + options + [list]
        let environment = CLI.environment(home: h.temp.path)
        let result: MeasuredProcess.Result
        if let virtualMemoryKiB {
            // The shell sets the limit and replaces itself with imgwarm: the pid measured is imgwarm's.
            result = try MeasuredProcess.run(
                URL(fileURLWithPath: "/bin/sh"),
                ["-c", "ulimit -v \(virtualMemoryKiB) && exec \"$0\" \"$@\"", CLI.binary.path] + arguments,
                environment: environment, folder: URL(fileURLWithPath: h.temp.path), timeout: timeout)
        } else {
            result = try MeasuredProcess.run(
                CLI.binary, arguments, environment: environment, folder: URL(fileURLWithPath: h.temp.path),
                timeout: timeout)
        }
        return (PrefetchHarness.Run(result: result.process), result.peakResidentBytes)
    }

    static let hostileFrames: [(String, String)] = [
        ("/frames/gif?count=70000", "header"), ("/frames/tiff?count=60000", "header"),
        ("/frames/gif?count=70000", "full"), ("/frames/tiff?count=60000", "full"),
    ]

    /// A 1 MiB GIF of 70,000 frames and a 6 MB TIFF of 60,000 directories used 1.7 and 1.4 GB to
    /// validate. Now they are refused for their frame count, and the whole process stays within
    /// 100 MB of what it needs to validate a one-frame image of the same format.
    @Test(arguments: hostileFrames)
    func manyFramesStayWithinMemory(path: String, mode: String) throws {
        let h = try PrefetchHarness()
        let format = path.contains("gif") ? "gif" : "tiff"
        // The baseline: the same binary, the same route, one frame.
        let smallKey = h.url("/frames/\(format)?count=1")
        let small = try measuredPrefetch(h, [smallKey], options: ["--validate", mode])
        #expect(small.run.status == 0, "\(small.run.stderr)")
        #expect(try small.run.entry(line: 1)["outcome"] as? String == "downloaded")

        let hostile = try measuredPrefetch(h, [h.url(path)], options: ["--validate", mode, "--retries", "0"])
        #expect(hostile.run.status == 1, "\(hostile.run.stderr)")
        let entry = try hostile.run.entry(line: 1)
        #expect(entry["outcome"] as? String == "failed")
        #expect(entry["errorClass"] as? String == "image-too-large")
        #expect((entry["errorMessage"] as? String)?.contains("frames") == true, "\(entry["errorMessage"] ?? "")")
        let limit = small.peak + 100 << 20
        #expect(hostile.peak <= limit, "peak RSS \(hostile.peak >> 20) MiB; baseline \(small.peak >> 20) MiB")
        h.expectCache(exactly: [
            smallKey: format == "gif" ? GeneratedImages.gif(frames: 1) : GeneratedImages.tiff(directories: 1)
        ])
    }

    /// Frame counts up to the limit are fine: 2,000 frames are validated (the first frame only in
    /// header mode; all of them with --validate full) and stored.
    @Test(arguments: ["header", "full"])
    func framesUpToTheLimitAreAccepted(mode: String) throws {
        let h = try PrefetchHarness()
        let gif = h.url("/frames/gif?count=2000")
        let tiff = h.url("/frames/tiff?count=2000")
        let run = try h.prefetch([gif, tiff], options: ["--validate", mode])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(try run.entry(line: 2)["outcome"] as? String == "downloaded")
        #expect(h.cacheContents().count == 2)
    }

    /// Under `ulimit -v`, a hostile image once made an allocation inside ImageMagick fail, and
    /// ImageMagick's error path deadlocked the validation thread (the run never ended, a `.part`
    /// file stayed). Now the run ends with a clean per-URL failure.
    @Test func allocationLimitsNeverHang() throws {
        let h = try PrefetchHarness()
        let keys = [h.url("/frames/gif?count=70000"), h.url("/frames/tiff?count=60000"), h.url("/img/photo.jpg")]
        let limited = try measuredPrefetch(
            h, keys, options: ["--retries", "0"], virtualMemoryKiB: 1_500_000, timeout: 60)
        #expect(limited.run.status == 1, "\(limited.run.stderr)")
        #expect(try limited.run.entry(line: 1)["errorClass"] as? String == "image-too-large")
        #expect(try limited.run.entry(line: 2)["errorClass"] as? String == "image-too-large")
        #expect(try limited.run.entry(line: 3)["outcome"] as? String == "downloaded")
        h.expectCache(exactly: [keys[2]: h.routes.valid["photo.jpg"]!])
    }

    /// The side limit is Debian's ImageMagick policy value, 16KP = 16,000 pixels: 16,000 passes,
    /// 16,001 is refused with its reason (it used to fail as an unexplained decode-failed).
    @Test func sideLimitIsSixteenThousand() throws {
        let h = try PrefetchHarness()
        let keys = [
            h.url("/png?width=16000&height=1"), h.url("/png?width=1&height=16000"), h.url("/png?width=16001&height=1"),
            h.url("/png?width=1&height=16001"),
        ]
        let run = try h.prefetch(keys)
        #expect(run.status == 1)
        #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(try run.entry(line: 1)["width"] as? Int == 16000)
        #expect(try run.entry(line: 2)["outcome"] as? String == "downloaded")
        #expect(try run.entry(line: 2)["height"] as? Int == 16000)
        for line in [3, 4] {
            let entry = try run.entry(line: line)
            #expect(entry["errorClass"] as? String == "image-too-large")
            #expect(
                (entry["errorMessage"] as? String)?.contains("at most 16000") == true, "\(entry["errorMessage"] ?? "")")
        }
    }
}
