import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `--max-bytes` counts decoded bytes for every format (issue 47), also where the format stores
/// the body still encoded (OkHttp's caches keep a gzip body as received): imgwarm decodes it to
/// validate as a stream that stops past the limit, so a run of gzip bombs ends `too-large` and
/// its peak memory stays within the usual budget (measured by `imgwarm-peak`).
@Suite struct EncodedBodyLimitTests {
    func measured(_ h: PrefetchHarness, _ urls: [String], folder: String, options: [String]) throws -> (
        run: PrefetchHarness.Run, peak: Int
    ) {
        let list = try h.temp.write("list-\(UUID().uuidString).txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let arguments =
            ["prefetch", "--cache-format", "okhttp", "--disk-cache-path", folder, "--report", "-"] + options + [list]
        let result = try MeasuredProcess.run(
            CLI.binary, arguments, environment: CLI.environment(home: h.temp.path),
            folder: URL(fileURLWithPath: h.temp.path), timeout: 120)
        return (PrefetchHarness.Run(result: result.process), result.peakResidentBytes)
    }

    @Test func gzipBombsStopAtMaxBytesWithinTheUsualMemory() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/http_cache")
        // The baseline: the same binary storing a small gzip image as received.
        let small = try measured(h, [h.url("/gzip/gradient.png")], folder: folder, options: ["--max-bytes", "1MiB"])
        #expect(small.run.status == 0, "\(small.run.stderr)")
        let bomb = try #require(h.routes.hostile["bomb.gz"])
        #expect(bomb.count < 1 << 20, "the bomb arrives under --max-bytes; it decodes to 64 MiB")
        let bombs = (1...8).map { h.url("/bomb?n=\($0)") }
        let run = try measured(h, bombs, folder: folder, options: ["--max-bytes", "1MiB", "--retries", "0"])
        #expect(run.run.status == 1, "\(run.run.stderr)")
        for line in 1...8 {
            let entry = try run.run.entry(line: line)
            #expect(
                entry["outcome"] as? String == "failed" && entry["errorClass"] as? String == "too-large", "\(entry)")
            #expect((entry["errorMessage"] as? String)?.contains("decodes to more than --max-bytes") == true)
        }
        // Eight bombs of 64 MiB, decoded whole on two validation threads, took 200 MB and more.
        let budget = small.peak + 32 << 20
        #expect(run.peak <= budget, "peak RSS \(run.peak >> 20) MiB; baseline \(small.peak >> 20) MiB")
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(stored.filter { $0.hasSuffix(".1") }.count == 1, "only the small image is stored: \(stored)")
        // A body that decodes within the limit is still stored as received, and exactly at it too.
        let exact = try h.run([
            "prefetch", "--cache-format", "okhttp", "--disk-cache-path", folder, "--report", "-", "--max-bytes",
            "\(h.routes.valid["gradient.png"]!.count)",
            try h.temp.write("exact.txt", Data((h.url("/gzip/gradient.png?x") + "\n").utf8)),
        ])
        #expect(try exact.entry(line: 1)["outcome"] as? String == "downloaded", "\(exact.stderr)")
    }
}
