import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// A journal is read as a stream (issue 38, docs/hardening.md): with the real binary, a 30 MB
/// journal costs a prefetch no more memory than a small one does (a 300 MB journal took 620 MB),
/// is compacted by Glide's own rule, and a line longer than 64 KiB stops the run without a write.
@Suite struct JournalMemoryTests {
    typealias Journal = AndroidJournalTests.Journal

    func measuredPrefetch(_ h: PrefetchHarness, _ folder: String, _ url: String) throws -> (
        run: PrefetchHarness.Run, peak: Int
    ) {
        let list = try h.temp.write("list-\(UUID().uuidString).txt", Data((url + "\n").utf8))
        let result = try MeasuredProcess.run(
            CLI.binary, ["prefetch", "--cache-format", "glide", "--disk-cache-path", folder, "--report", "-", list],
            environment: CLI.environment(home: h.temp.path), folder: URL(fileURLWithPath: h.temp.path), timeout: 60)
        return (PrefetchHarness.Run(result: result.process), result.peakResidentBytes)
    }

    /// 430,000 `READ` lines (30 MB) after the entry: the hit's peak stays within 64 MiB and within
    /// 16 MiB of the same hit on the small journal, and the journal is then rewritten as Glide
    /// rewrites it (2,000 redundant lines and more than the one entry): its header and one line.
    @Test func aLongJournalCostsAPrefetchLittleMemory() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/glide")
        let url = h.url("/img/photo.jpg")
        let first = try measuredPrefetch(h, folder, url)
        #expect(first.run.status == 0, "\(first.run.stderr)")
        let small = try measuredPrefetch(h, folder, url)
        #expect(try small.run.totals["cached"] as? Int == 1)

        let key = AndroidJournalTests.key(url)
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: "\(folder)/\(key).0")[.size] as? NSNumber)
        let handle = try #require(FileHandle(forWritingAtPath: folder + "/journal"))
        handle.seekToEndOfFile()
        let block = Data(String(repeating: "READ \(key)\n", count: 10_000).utf8)
        for _ in 0..<43 { handle.write(block) }
        try handle.close()
        let journalSize = try FileManager.default.attributesOfItem(atPath: folder + "/journal")[.size] as? NSNumber
        #expect((journalSize?.intValue ?? 0) > 30_000_000)

        let large = try measuredPrefetch(h, folder, url)
        #expect(large.run.status == 0, "\(large.run.stderr)")
        #expect(try large.run.totals["cached"] as? Int == 1)
        let mib = 1 << 20
        #expect(large.peak <= 64 * mib, "peak RSS \(large.peak / mib) MiB")
        #expect(
            large.peak - small.peak <= 16 * mib,
            "peak RSS \(large.peak / mib) MiB with a 30 MB journal, \(small.peak / mib) MiB with a small one")

        let text = String(decoding: AndroidJournalTests.bytes(folder + "/journal") ?? [], as: UTF8.self)
        #expect(text == Journal.glide.header + "CLEAN \(key) \(size.intValue)\n")
        let opened = try Journal.glide.open(folder)
        #expect(Journal.glide.hits(key, opened, folder: folder))
    }

    /// A 5 MB line: the run stops with exit 3 before any download, names the line, and the folder
    /// is byte for byte as it was.
    @Test func anOverLongLineStopsTheRunWithoutAWrite() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/glide")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let line = "READ " + String(repeating: "a", count: 5 << 20) + "\n"
        try Data((Journal.glide.header + line).utf8).write(to: URL(fileURLWithPath: folder + "/journal"))
        let before = AndroidJournalTests.snapshot(folder)
        let run = try h.run([
            "prefetch", "--cache-format", "glide", "--disk-cache-path", folder,
            try h.temp.write("list.txt", Data((h.url("/img/photo.jpg") + "\n").utf8)),
        ])
        #expect(run.status == 3, "\(run.stderr)")
        #expect(
            run.stderr.contains("line 6: a line longer than 65536 bytes, which Glide never writes"), "\(run.stderr)")
        #expect(AndroidJournalTests.snapshot(folder) == before)
    }
}
