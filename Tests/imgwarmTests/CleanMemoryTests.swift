import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `clean` keeps no per-file list: its peak memory does not grow with the number of files
/// (issue 13). Memory, not time, is asserted; the timings are `scripts/bench-clean.sh`'s.
@Suite(.serialized) struct CleanMemoryTests {
    static let tmpfs = "/dev/shm"

    /// Makes `count` cache files of 100 to 3,100 bytes with spread-out, tied access dates.
    static func makeCache(_ folder: String, count: Int) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let bytes = [UInt8](repeating: 0xFF, count: 3200)
        for index in 0..<count {
            let name = String(format: "%016lx%016lx.jpg", UInt64(index) &* 2_654_435_761, UInt64(index))
            let descriptor = open(folder + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard descriptor >= 0 else { throw POSIXError(.EIO) }
            defer { close(descriptor) }
            let size = 100 + index * 37 % 3000
            guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, size) }) == size else {
                throw POSIXError(.EIO)
            }
            let date = timespec(tv_sec: 1_700_000_000 + index * 7919 % (count / 4 + 1), tv_nsec: 0)
            var times = [date, date]
            guard futimens(descriptor, &times) == 0 else { throw POSIXError(.EIO) }
        }
    }

    /// Runs `imgwarm clean` trimming every file, and returns its peak RSS and the report's totals.
    ///
    /// The peak comes from GNU time, whose child is forked from that small process: a child
    /// spawned by the test process itself would inherit the test process's high-water mark in
    /// `ru_maxrss` (the kernel carries it over `exec`), which is gigabytes in a full test run.
    static func measuredClean(_ folder: String, home: String) throws -> (peak: Int, removed: Int, status: Int32) {
        let report = home + "/clean.json"
        let peakFile = home + "/peak"
        let run = try ProcessRunner.run(
            URL(fileURLWithPath: gnuTime),
            [
                "-f", "%M", "-o", peakFile, CLI.binary.path, "clean", "--disk-cache-path", folder, "--max-age",
                "never", "--max-size", "1K", "--quiet", "--report", report,
            ],
            environment: CLI.environment(home: home), timeout: 600)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
        let totals = (json as? [String: Any])?["totals"] as? [String: Any]
        let kib = Int(
            try String(contentsOfFile: peakFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
        return ((kib ?? -1) * 1024, totals?["removedFiles"] as? Int ?? -1, run.status)
    }

    static let gnuTime = "/usr/bin/time"
    static var canMeasure: Bool {
        FileManager.default.isWritableFile(atPath: tmpfs) && FileManager.default.isExecutableFile(atPath: gnuTime)
    }

    /// 200,000 files (on tmpfs): the old clean held about 450 bytes a file (90 MB here); now
    /// the peak stays within 64 MiB, and within 24 MiB of a clean of 1,000 files.
    @Test(
        .enabled(
            if: canMeasure,
            "needs a writable tmpfs at /dev/shm (to make 200,000 files quickly) and GNU time (/usr/bin/time)"))
    func peakMemoryDoesNotGrowWithTheFiles() throws {
        var template = Array((CleanMemoryTests.tmpfs + "/imgwarm-clean-memory.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        let root = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let home = try TemporaryFolder()

        try CleanMemoryTests.makeCache(root + "/small", count: 1000)
        let small = try CleanMemoryTests.measuredClean(root + "/small", home: home.path)
        #expect(small.status == 0)
        #expect(small.peak > 0)
        #expect(small.removed == 1000, "--max-size 1K trims every file")

        let count = 200_000
        try CleanMemoryTests.makeCache(root + "/large", count: count)
        let large = try CleanMemoryTests.measuredClean(root + "/large", home: home.path)
        #expect(large.status == 0)
        #expect(large.removed == count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/large").isEmpty)
        let mib = 1 << 20
        #expect(large.peak <= 64 * mib, "peak RSS \(large.peak / mib) MiB for \(count) files")
        #expect(
            large.peak - small.peak <= 24 * mib,
            "peak RSS \(large.peak / mib) MiB for \(count) files, \(small.peak / mib) MiB for 1,000")
    }
}
