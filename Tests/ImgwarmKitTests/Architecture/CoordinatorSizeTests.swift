import Foundation
import TestSupport
import Testing

/// `PrefetchJob` is a coordinator (issue 32): the rules live in its collaborators (`EntryStart`,
/// `PrefetchRecorder`, `PrefetchState`, `PrefetchStore`, `PrefetchIngest`, the network behind
/// `TransferDriving`), and all `Pipeline/PrefetchJob*.swift` files together stay within 400
/// lines. A feature that needs more moves a responsibility out, as `TransferRouter` did.
@Suite struct CoordinatorSizeTests {
    @Test func theCoordinatorStaysWithinFourHundredLines() throws {
        let folder = Fixtures.repositoryRoot.appendingPathComponent("Sources/ImgwarmKit/Pipeline")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix("PrefetchJob") && $0.hasSuffix(".swift") }
        #expect(files.contains("PrefetchJob.swift"))
        var lines = 0
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            lines +=
                text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        }
        #expect(lines <= 400, "\(files.sorted()) hold \(lines) lines")
    }
}
