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

    @Test func stageFailedNamesTheFailedStagesOnly() throws {
        let run = try Self.run(
            "stage build false; stage format true; stage_failed build && echo B; stage_failed format || echo F")
        #expect(run.stdoutText.contains("B\n") && run.stdoutText.contains("F\n"), "\(run.stdoutText)")
    }
}
