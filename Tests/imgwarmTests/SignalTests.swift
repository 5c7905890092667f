import Foundation
import ImgwarmKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The signals a user, a terminal or a supervisor may send a run besides SIGINT and SIGTERM
/// (`ReliabilityTests.signalStopsTheRunCleanly`), and a standard output nobody reads (issue 21).
@Suite struct SignalTests {
    /// Starts a prefetch whose URLs answer only after 20 s, with a report file; its output goes to
    /// files. `launcher` (e.g. `nohup`) runs imgwarm when given.
    func startSlowRun(_ h: PrefetchHarness, launcher: String? = nil) throws -> (BackgroundProcess, String) {
        let lines = (0..<3).map { h.url("/slow-headers/photo.jpg?delay=20&n=\($0)") }
        let list = try h.temp.write("slow.txt", Data((lines.joined(separator: "\n") + "\n").utf8))
        let report = h.temp.path("slow.report.json")
        let arguments = ["prefetch", "--disk-cache-path", h.folder, "--report", report, list]
        let run =
            try launcher.map {
                try BackgroundProcess(
                    URL(fileURLWithPath: $0), [CLI.binary.path] + arguments,
                    environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
            }
            ?? BackgroundProcess(
                CLI.binary, arguments, environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
        // Every request is under way: the run is past its setup and waiting for the server.
        #expect(eventually { h.server.requests.count >= lines.count })
        return (run, report)
    }

    /// SIGTERM during a 6-line run at `--concurrency 1` (issue 23): two lines done, the third
    /// downloading, three queued. Every line has its entry: the two downloaded, the running one
    /// `interrupted`, the queued ones `not-started` (before, lines 3 to 6 had none).
    @Test func everyLineOfAnInterruptedRunHasAnEntry() throws {
        let h = try PrefetchHarness()
        let lines =
            [h.url("/img/photo.jpg"), h.url("/img/gradient.png"), h.url("/slow-headers/anim.gif?delay=20")]
            + (0..<3).map { h.url("/img/sticker.webp?n=\($0)") }
        let list = try h.temp.write("six.txt", Data((lines.joined(separator: "\n") + "\n").utf8))
        let report = h.temp.path("six.report.json")
        let run = try BackgroundProcess(
            CLI.binary, ["prefetch", "--disk-cache-path", h.folder, "--concurrency", "1", "--report", report, list],
            environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
        #expect(eventually { h.server.requests.count >= 3 })
        run.signal(SIGTERM)
        let end = run.wait(timeout: 15)
        #expect(end.status == 143, "\(run.stderr)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        #expect(schema.validate(document) == [])
        let entries = try #require(document["entries"] as? [[String: Any]])
        var outcomes: [Int: String] = [:]
        for entry in entries { outcomes[entry["line"] as? Int ?? 0] = entry["outcome"] as? String }
        #expect(
            outcomes == [
                1: "downloaded", 2: "downloaded", 3: "interrupted", 4: "not-started", 5: "not-started",
                6: "not-started",
            ], "\(outcomes)")
        let totals = try #require(document["totals"] as? [String: Any])
        #expect(totals["notStarted"] as? Int == 3)
        #expect(totals["interrupted"] as? Int == 1)
        #expect(totals["finishedCount"] as? Int == 2)
        #expect(run.stderr.contains("4 URLs did not finish"), "\(run.stderr)")
    }

    /// SIGHUP (a dropped ssh session), SIGQUIT (Ctrl-\), SIGUSR1 and SIGUSR2 end the run as
    /// SIGTERM does: a report marked interrupted, nothing partial, exit code 128 + the signal.
    /// Before, SIGHUP, SIGUSR1 and SIGUSR2 killed the process without a report, and SIGQUIT
    /// printed the Swift runtime's "Program crashed" backtrace and let the run go on.
    @Test(arguments: [(SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT"), (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2")])
    func stopSignalEndsTheRunWithAReport(signal: Int32, name: String) throws {
        let h = try PrefetchHarness()
        let (run, reportPath) = try startSlowRun(h)
        run.signal(signal)
        let end = run.wait(timeout: 15)
        #expect(!end.timedOut, "the run went on after \(name)")
        #expect(!end.signaled, "killed by the signal")
        #expect(end.status == 128 + signal, "\(run.stderr)")
        #expect(run.stderr.contains("Interrupted by \(name)"), "\(run.stderr)")
        #expect(!run.stderr.contains("Program crashed"), "\(run.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
        )
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        #expect(schema.validate(report) == [])
        #expect(report["interrupted"] as? Bool == true)
        let totals = try #require(report["totals"] as? [String: Any])
        #expect(totals["lines"] as? Int == 3)
        #expect(totals["downloaded"] as? Int == 0)
        #expect(h.cacheContents().isEmpty, "nothing partial in the cache")
        let temporary = h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/tmp")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []).isEmpty)
    }

    /// A SIGHUP ignored when imgwarm starts (`nohup`) stays ignored: the SIGTERM that follows it
    /// is the one that stops the run. (Had SIGHUP been handled, it would have come first: pending
    /// signals are delivered lowest number first.)
    @Test func hangupIgnoredUnderNohupStaysIgnored() throws {
        let h = try PrefetchHarness()
        let (run, reportPath) = try startSlowRun(h, launcher: "/usr/bin/nohup")
        run.signal(SIGHUP)
        run.signal(SIGTERM)
        let end = run.wait(timeout: 15)
        #expect(!end.timedOut && !end.signaled)
        #expect(end.status == 143, "\(run.stderr)")
        #expect(run.stderr.contains("Interrupted by SIGTERM"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: reportPath))
    }

    /// Runs imgwarm with standard output a pipe whose reader is already gone: every write to it
    /// fails (EPIPE, or SIGPIPE where not ignored).
    static func runWithClosedStandardOutput(_ h: PrefetchHarness, _ arguments: [String]) throws -> (
        status: Int32, signaled: Bool, stderr: String
    ) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        close(ends[0])
        let output = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        let errorURL = h.temp.url.appendingPathComponent("closed-stdout-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = arguments
        process.environment = CLI.environment(home: h.temp.path)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        try output.close()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let stderr = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal, stderr)
    }

    /// A reader that stops early (`imgwarm path … | head -1`, `stats | head -1`,
    /// `--report - | head -c 10`) ends the command quietly: no message, the command's own exit code, and for a prefetch a
    /// finished run (the image stored). Before, SIGPIPE killed the process (141 in a shell),
    /// a prefetch in the middle of its work.
    @Test func closedStandardOutputEndsQuietly() throws {
        let h = try PrefetchHarness()
        // More output than a pipe holds (1500 lines of about 75 bytes); not more keys, since
        // argument-parser takes time quadratic in the arguments (5000 took 20 s in a debug
        // build, and the test timed out when the machine was busy).
        let keys = (0..<1500).map { "https://cdn.example.com/\($0).jpg" }
        let path = try Self.runWithClosedStandardOutput(h, ["path", "--cache-dir", h.temp.path("caches")] + keys)
        #expect(!path.signaled, "killed by SIGPIPE")
        #expect(path.status == 0)
        #expect(path.stderr.isEmpty, "\(path.stderr)")

        let stats = try Self.runWithClosedStandardOutput(h, ["stats", "--disk-cache-path", h.folder])
        #expect(!stats.signaled, "killed by SIGPIPE")
        #expect(stats.status == 0)
        #expect(stats.stderr.isEmpty, "\(stats.stderr)")

        let key = h.url("/img/photo.jpg")
        let list = try h.temp.write("one.txt", Data((key + "\n").utf8))
        let prefetch = try Self.runWithClosedStandardOutput(
            h, ["prefetch", "--disk-cache-path", h.folder, "--quiet", "--report", "-", list])
        #expect(!prefetch.signaled, "killed by SIGPIPE")
        #expect(prefetch.status == 0)
        #expect(prefetch.stderr.isEmpty, "\(prefetch.stderr)")
        h.expectCache(exactly: [key: h.routes.valid["photo.jpg"]!])

        let clean = try Self.runWithClosedStandardOutput(
            h, ["clean", "--disk-cache-path", h.folder, "--quiet", "--max-age", "0", "--report", "-"])
        #expect(!clean.signaled, "killed by SIGPIPE")
        #expect(clean.status == 0)
        #expect(clean.stderr.isEmpty, "\(clean.stderr)")
        #expect(h.cacheContents().isEmpty)
    }
}
