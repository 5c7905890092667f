import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// `BlacklistJob` without the binary: list, remove and clear, and what is missing when there is
/// no state database (nothing is created).
@Suite struct BlacklistJobTests {
    func entry(_ url: String, at time: Double) -> StateStore.BlacklistEntry {
        StateStore.BlacklistEntry(
            url: url, failedAt: time, errorClass: "http4xx", message: "404", httpStatus: 404, attempts: 1)
    }

    @Test func listsRemovesAndClears() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("cache"))
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        do {
            let state = try StateStore(path: StateStore.defaultPath(for: location))
            try state.blacklist(entry("https://example.com/new.png", at: 1_700_000_100))
            try state.blacklist(entry("https://example.com/old.png", at: 1_700_000_000))
            try state.blacklist(entry("https://example.com/other.png", at: 1_700_000_200))
        }
        let configuration = BlacklistJob.Configuration()

        let reader = try BlacklistJob(location: location, configuration: configuration, forWriting: false)
        #expect(reader.missing == nil)
        #expect(
            try reader.entries().map(\.url) == [
                "https://example.com/old.png", "https://example.com/new.png", "https://example.com/other.png",
            ], "oldest failure first")

        let writer = try BlacklistJob(location: location, configuration: configuration, forWriting: true)
        #expect(try writer.remove("https://example.com/old.png"))
        #expect(try !writer.remove("https://example.com/old.png"), "no longer on it")
        #expect(try writer.clear() == 2)
        #expect(try writer.entries().isEmpty)
    }

    @Test func saysWhatIsMissingAndCreatesNothing() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("cache"))
        let nothing = try BlacklistJob(location: location, configuration: .init(), forWriting: true)
        #expect(nothing.missing == .cacheAndStateDatabase)
        #expect(nothing.statePath == StateStore.defaultPath(for: location))
        #expect(try nothing.entries().isEmpty && !nothing.remove("https://example.com/a.png") && nothing.clear() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty)

        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        var configuration = BlacklistJob.Configuration()
        configuration.statePath = temp.path("state.sqlite")
        let noState = try BlacklistJob(location: location, configuration: configuration, forWriting: false)
        #expect(noState.missing == .stateDatabase && noState.statePath == temp.path("state.sqlite"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path) == ["cache"])
    }
}
