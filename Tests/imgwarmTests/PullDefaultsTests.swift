import Foundation
import ImgwarmKit
import TestSupport
import Testing

@testable import imgwarm

/// pull's bounds (`--stream-limit`, `--stall-timeout`): left out, the engine's defaults are in
/// force, and `--help` prints them; given, they replace them. That the engine enforces the
/// bound in force is `DeviceBoundaryTests.anEndlessOrSilentStreamIsBounded`.
@Suite struct PullDefaultsTests {
    static let required = ["--package", "com.example.app", "--output", "pulled", "--cache-format", "glide"]

    @Test func leftOutTheEnginesDefaultsHoldAndHelpPrintsThem() throws {
        let pull = try Pull.parse(Self.required)
        let defaults = PullJob.Configuration()
        #expect(pull.configuration == defaults)
        let temp = try TemporaryFolder()
        let help = try CLI.run(["pull", "--help"], home: temp.path).stdoutText.replacingOccurrences(
            of: "\\s+", with: " ", options: .regularExpression)
        #expect(help.contains("(default \(Quantities.formatSize(defaults.streamLimit)))"), "\(help)")
        #expect(help.contains("(default \(Quantities.formatNumber(defaults.stallTimeout)))"), "\(help)")
    }

    @Test func givenTheyReplaceTheDefaults() throws {
        let pull = try Pull.parse(Self.required + ["--stream-limit", "2MiB", "--stall-timeout", "5"])
        #expect(pull.configuration.streamLimit == 2 << 20)
        #expect(pull.configuration.stallTimeout == 5)
    }
}
