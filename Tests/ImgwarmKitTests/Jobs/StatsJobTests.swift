import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// `StatsJob` without the binary: the folder's counts and what the state database says, read
/// without creating anything.
@Suite struct StatsJobTests {
    func record(_ key: String) -> StateStore.Record {
        StateStore.Record(
            key: key, fileName: SDFileName.forKey(key), size: 4, format: "png", width: 1, height: 1, etag: nil,
            lastModified: nil, fetchedAt: 1_700_000_000, validatedAt: 1_700_000_000)
    }

    @Test func countsTheFolderAndSummarisesTheState() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("cache"))
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        let present = "https://example.com/a.png"
        try Data([0x89, 0x50, 0x4E, 0x47]).write(
            to: URL(fileURLWithPath: location.folder + "/" + SDFileName.forKey(present)))
        do {
            let state = try StateStore(path: StateStore.defaultPath(for: location))
            try state.recordStored(record(present))
            try state.recordStored(record("https://example.com/gone.png"))
            try state.blacklist(
                StateStore.BlacklistEntry(
                    url: "https://example.com/404.png", failedAt: 1_700_000_000, errorClass: "http4xx",
                    message: "404", httpStatus: 404, attempts: 1))
            try state.recordRun(
                StateStore.RunRecord(
                    command: "prefetch", startedAt: 1_700_000_000, finishedAt: 1_700_000_010,
                    totals: StateStore.RunRecord.Totals(lines: 3, downloaded: 2, failed: 1), interrupted: false))
        }

        let result = try StatsJob(location: location, configuration: StatsJob.Configuration()).run()
        #expect(result.statistics.exists)
        #expect(result.statistics.totals.entries == 1 && result.statistics.files == 1)
        #expect(result.state.path == StateStore.defaultPath(for: location))
        #expect(result.state.exists && result.state.problem == nil)
        #expect(result.state.trackedKeys == 2)
        #expect(result.state.staleRows == 1, "the row of a file no longer in the folder")
        #expect(result.state.blacklisted == 1)
        #expect(result.state.lastRun?.totals == StateStore.RunRecord.Totals(lines: 3, downloaded: 2, failed: 1))
    }

    @Test func createsNothingWhereThereIsNothing() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("cache"))
        var configuration = StatsJob.Configuration()
        configuration.statePath = temp.path("elsewhere/state.sqlite")
        let result = try StatsJob(location: location, configuration: configuration).run()
        #expect(!result.statistics.exists && result.statistics.totals.entries == 0)
        #expect(result.state.path == temp.path("elsewhere/state.sqlite"))
        #expect(!result.state.exists && result.state.trackedKeys == 0 && result.state.problem == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty)
    }
}
