import Foundation
import ImgwarmKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A signal that comes before the run is set up, or while its lists are still being read
/// (issue 31): the run still ends with a report that says what was not read, and an exit code
/// that does not read like a complete run.
@Suite struct EarlySignalTests {
    /// perl (perl-base is essential in Debian) blocks SIGTERM, sends it to itself and executes
    /// the command: the command starts with SIGTERM pending, delivered the instant it unblocks
    /// it. Before, that was the instant its handlers were installed, after the options were read
    /// and the report opened, and the pending signal killed the process first.
    static let sendTermThenExec = """
        use POSIX; sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGTERM)); kill 'TERM', $$; exec @ARGV or die "exec: $!";
        """

    func report(_ path: String) throws -> [String: Any] {
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/prefetch-report.schema.json"))
        #expect(schema.validate(document) == [])
        return document
    }

    @Test func aSignalBeforeAnythingIsSetUpStillWritesAReport() throws {
        let h = try PrefetchHarness()
        let first = try h.temp.write("first.txt", Data((h.url("/img/photo.jpg") + "\n").utf8))
        let second = try h.temp.write("second.txt", Data((h.url("/img/gradient.png") + "\n").utf8))
        let reportPath = h.temp.path("early.json")
        let run = try BackgroundProcess(
            URL(fileURLWithPath: "/usr/bin/perl"),
            [
                "-e", Self.sendTermThenExec, CLI.binary.path, "prefetch", "--disk-cache-path", h.folder, "--report",
                reportPath, first, second,
            ], environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
        let end = run.wait(timeout: 30)
        #expect(!end.signaled, "killed by SIGTERM before its handler: \(run.stderr)")
        #expect(end.status == 143, "\(run.stderr)")
        let document = try report(reportPath)
        #expect(document["interrupted"] as? Bool == true)
        #expect((document["entries"] as? [Any])?.isEmpty == true)
        let cut = try #require(document["listCut"] as? [String: Any])
        #expect(cut["input"] as? Int == 0)
        #expect(cut["linesRead"] as? Int == 0)
        #expect(cut["inputsNotRead"] as? [Int] == [1])
        #expect(run.stderr.contains("Interrupted by SIGTERM"), "\(run.stderr)")
        #expect(run.stderr.contains("the lists were cut short: nothing of \(first) was read, nor \(second)"))
        #expect(h.server.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: h.folder), "an interrupted run created the cache")
    }

    /// The other commands stop as any program does: the same early SIGTERM kills them.
    @Test func otherCommandsStillEndOnTheSignal() throws {
        let h = try PrefetchHarness()
        let run = try BackgroundProcess(
            URL(fileURLWithPath: "/usr/bin/perl"),
            ["-e", Self.sendTermThenExec, CLI.binary.path, "stats", "--disk-cache-path", h.folder],
            environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
        let end = run.wait(timeout: 30)
        #expect(end.signaled && end.status == SIGTERM, "\(end) \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// A list on standard input whose writer stalls: SIGTERM ends the run at once (a read of a
    /// pipe is not restarted for ever), and the report and the summary say where reading
    /// stopped. Before, the run waited for the writer, and then reported the lines it had read
    /// as if the list ended there.
    @Test(arguments: [false, true])
    func aSignalWhileAListIsReadSaysWhereReadingStopped(dryRun: Bool) throws {
        let h = try PrefetchHarness()
        let pipe = Pipe()
        let reportPath = h.temp.path("cut.json")
        let run = try BackgroundProcess(
            CLI.binary,
            ["prefetch", "--disk-cache-path", h.folder, "--report", reportPath] + (dryRun ? ["--dry-run"] : [])
                + ["-"],
            environment: CLI.environment(home: h.temp.path), folder: h.temp.url, input: pipe.fileHandleForReading)
        defer { try? pipe.fileHandleForWriting.close() }
        let lines = (0..<9).map { h.url("/img/photo.jpg?n=\($0)") } + ["# a comment is a line read too"]
        pipe.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        // Every line given is read, and the program waits for more.
        #expect(eventually(timeout: 20) { run.isWaitingInPoll })
        run.signal(SIGTERM)
        let end = run.wait(timeout: 15)
        #expect(!end.timedOut, "the run waited for the list's writer after SIGTERM")
        #expect(end.status == 143, "\(run.stderr)")
        let document = try report(reportPath)
        #expect(document["interrupted"] as? Bool == true)
        let cut = try #require(document["listCut"] as? [String: Any])
        #expect(cut["path"] as? String == "-")
        #expect(cut["linesRead"] as? Int == 10)
        #expect(cut["inputsNotRead"] as? [Int] == [])
        let totals = try #require(document["totals"] as? [String: Any])
        #expect(totals["lines"] as? Int == 9)
        #expect(totals["notStarted"] as? Int == 9)
        #expect(
            run.stderr.contains(
                "the lists were cut short: standard input was read up to line 10; the lines after it were not read"),
            "\(run.stderr)")
        #expect(h.server.requests.isEmpty)
    }

    /// Under --quiet the cut is a warning still: the counts a cron mail shows are not the lists'.
    @Test func quietStillSaysTheListWasCut() throws {
        let h = try PrefetchHarness()
        let list = try h.temp.write("one.txt", Data((h.url("/img/photo.jpg") + "\n").utf8))
        let run = try BackgroundProcess(
            URL(fileURLWithPath: "/usr/bin/perl"),
            ["-e", Self.sendTermThenExec, CLI.binary.path, "prefetch", "-q", "--disk-cache-path", h.folder, list],
            environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
        let end = run.wait(timeout: 30)
        #expect(end.status == 143, "\(run.stderr)")
        #expect(run.stderr.contains("warning: the lists were cut short: nothing of \(list) was read"), "\(run.stderr)")
    }
}

extension EarlySignalTests {
    /// A `--report` FIFO nobody reads is waited for as a shell's `>` would, but a stop signal
    /// ends the wait: before, the handlers (installed from the first instruction) restarted the
    /// blocking open, and SIGTERM could not end the run.
    @Test func aSignalEndsTheWaitForAReportFIFOsReader() throws {
        let h = try PrefetchHarness()
        let list = try h.temp.write("one.txt", Data((h.url("/img/photo.jpg") + "\n").utf8))
        let fifo = h.temp.path("report.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try BackgroundProcess(
            CLI.binary, ["prefetch", "--disk-cache-path", h.folder, "--report", fifo, list],
            environment: CLI.environment(home: h.temp.path), folder: h.temp.url)
        // Waiting for the reader: a loop of non-blocking opens, 20 ms apart.
        #expect(eventually(timeout: 20) { Self.isSleeping(run.pid) })
        run.signal(SIGTERM)
        let end = run.wait(timeout: 15)
        #expect(!end.timedOut, "SIGTERM did not end the wait for the FIFO's reader")
        #expect(end.status == 143, "\(run.stderr)")
        #expect(run.stderr.contains("interrupted by SIGTERM while \(fifo) (a FIFO) waited for a reader"))
        #expect(h.server.requests.isEmpty)
    }

    /// The main thread sleeps in `nanosleep` or `clock_nanosleep` (/proc/PID/syscall, proc(5)).
    static func isSleeping(_ pid: Int32) -> Bool {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8),
            let number = text.split(separator: " ").first.flatMap({ Int($0) })
        else { return false }
        #if arch(x86_64)
            return number == 35 || number == 230
        #else
            return number == 101 || number == 115
        #endif
    }
}

extension EarlySignalTests {
    /// libcurl reads a --netrc-file or --cacert for every transfer: a FIFO there would block the
    /// run where no stop signal ends it (the handlers restart the open). It is a usage error.
    @Test(arguments: ["--netrc-file", "--cacert"])
    func aFIFOAsACredentialFileIsRefused(option: String) throws {
        let h = try PrefetchHarness()
        let fifo = h.temp.path("credentials.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try h.prefetch([h.url("/img/photo.jpg")], options: [option, fifo], timeout: 30)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("\(option) \(fifo): not a regular file"), "\(run.stderr)")
        #expect(h.server.requests.isEmpty)
    }
}
