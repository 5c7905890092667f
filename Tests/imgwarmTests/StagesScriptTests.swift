import Foundation
import TestSupport
import Testing

/// scripts/stages.sh, which scripts/test.sh runs its stages with (issue 49): a failed stage does
/// not stop the next, the output ends with every stage's verdict and the totals, a skipped stage
/// says why and is not counted as passed, and the exit status is 1 exactly when a stage failed.
@Suite struct StagesScriptTests {
    static func run(_ script: String) throws -> ProcessResult {
        try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/bash"),
            [
                "-c",
                "source " + Fixtures.repositoryRoot.appendingPathComponent("scripts/stages.sh").path + "; " + script,
            ],
            timeout: 30)
    }

    @Test func aFailedStageDoesNotStopTheOthersAndEndsNonZero() throws {
        let run = try Self.run(
            "stage unit false; stage install echo installed; skip_stage slurm 'slurmctld cannot start here'; report_stages"
        )
        #expect(run.status == 1, "\(run.stdoutText)")
        #expect(run.stdoutText.contains("installed"), "the stage after the failed one ran: \(run.stdoutText)")
        let lines = run.stdoutText.split(separator: "\n").suffix(4).map(String.init)
        #expect(
            lines == [
                "stage unit     failed (exit 1)", "stage install  passed",
                "stage slurm    skipped (slurmctld cannot start here)", "stages: 1 passed, 1 failed, 1 skipped",
            ], "\(run.stdoutText)")
    }

    @Test func everyStagePassedEndsZeroAndASkipIsNotAPass() throws {
        let run = try Self.run("stage a true; skip_stage b 'a filter was given'; report_stages")
        #expect(run.status == 0, "\(run.stdoutText)")
        #expect(run.stdoutText.hasSuffix("stages: 1 passed, 0 failed, 1 skipped\n"), "\(run.stdoutText)")
    }

    /// `stage_or_skip` (the slurm stage's): exit 77 with a `skipped: REASON` line is a skip for
    /// that reason; exit 77 without one, or that line with another status, is no skip.
    @Test func aStageThatCannotRunHereSaysSkippedWithItsReason() throws {
        let run = try Self.run(
            """
            stage_or_skip slurm bash -c 'echo starting; echo "skipped: slurmd exited"; exit 77'
            stage_or_skip mute bash -c 'exit 77'
            stage_or_skip liar bash -c 'echo "skipped: not really"; exit 1'
            stage_or_skip fine true
            report_stages
            """)
        #expect(run.status == 1, "\(run.stdoutText)")
        #expect(run.stdoutText.contains("starting\n"), "the command's output is shown: \(run.stdoutText)")
        let lines = run.stdoutText.split(separator: "\n").suffix(5).map(String.init)
        #expect(
            lines == [
                "stage slurm    skipped (slurmd exited)",
                "stage mute     failed (exit 77 without a 'skipped: REASON' line)",
                "stage liar     failed (exit 1)", "stage fine     passed", "stages: 1 passed, 2 failed, 1 skipped",
            ], "\(run.stdoutText)")
    }

    @Test func stageFailedNamesTheFailedStagesOnly() throws {
        let run = try Self.run(
            "stage build false; stage format true; stage_failed build && echo B; stage_failed format || echo F")
        #expect(run.stdoutText.contains("B\n") && run.stdoutText.contains("F\n"), "\(run.stdoutText)")
    }

    /// The toolchain's driver leaves a `TemporaryDirectory.*` folder in TMPDIR at almost every
    /// call (issue 50): the scripts' `swift` (scripts/env.sh) gives it a TMPDIR of its own and
    /// removes it, so none is left where the scripts were run, and the command's status is kept.
    @Test func theScriptsSwiftLeavesNoTemporaryDirectoryBehind() throws {
        let temp = try TemporaryFolder()
        let env = Fixtures.repositoryRoot.appendingPathComponent("scripts/env.sh").path
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temp.url.path
        let leftovers = { try FileManager.default.contentsOfDirectory(atPath: temp.url.path) }
        let plain = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/bash"), ["-c", "source '\(env)' && command swift --version"],
            environment: environment, timeout: 60)
        #expect(plain.status == 0)
        #expect(try leftovers().contains { $0.hasPrefix("TemporaryDirectory.") }, "the driver's own habit")
        for name in try leftovers() { try FileManager.default.removeItem(atPath: temp.path(name)) }

        let wrapped = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/bash"),
            ["-c", "source '\(env)' && swift --version && swift no-such-subcommand; echo status=$?"],
            environment: environment, timeout: 60)
        #expect(wrapped.stdoutText.contains("Swift version"), "\(wrapped.stdoutText)")
        #expect(!wrapped.stdoutText.contains("status=0"), "a failing call keeps its status: \(wrapped.stdoutText)")
        #expect(try leftovers() == [], "nothing left in TMPDIR")
    }
}
