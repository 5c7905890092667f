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
        #expect(try writer.remove("https://example.com/old.png") == .removed("https://example.com/old.png"))
        #expect(try writer.remove("https://example.com/old.png") == .notListed, "no longer on it")
        #expect(try writer.clear() == 2)
        #expect(try writer.entries().isEmpty)
    }

    /// `blacklist list` shows `user:***@host`: that form removes the entry when it stands for one
    /// URL, and removes nothing when it stands for several (issue 23).
    @Test func theShownFormRemovesOneEntry() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("cache"))
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        do {
            let state = try StateStore(path: StateStore.defaultPath(for: location))
            try state.blacklist(entry("https://bob:s3cret@example.com/a.png", at: 1))
            try state.blacklist(entry("https://eve:one@example.com/b.png", at: 2))
            try state.blacklist(entry("https://eve:two@example.com/b.png", at: 3))
        }
        let writer = try BlacklistJob(location: location, configuration: .init(), forWriting: true)
        // The state keeps the password as a digest only (issue 50): what was removed shows so.
        let removed = try writer.remove("https://bob:***@example.com/a.png")
        guard case .removed(let url) = removed else {
            Issue.record("\(removed)")
            return
        }
        #expect(Redaction.redact(url) == "https://bob:***@example.com/a.png" && !url.contains("s3cret"), "\(url)")
        #expect(try writer.remove("https://eve:***@example.com/b.png") == .ambiguous(2))
        #expect(try writer.entries().count == 2, "an ambiguous form removes nothing")
        #expect(try writer.remove("https://eve:two@example.com/b.png") == .removed("https://eve:two@example.com/b.png"))
        #expect(try writer.remove("https://bob:***@example.com/zzz.png") == .notListed)
    }

    @Test func saysWhatIsMissingAndCreatesNothing() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("cache"))
        let nothing = try BlacklistJob(location: location, configuration: .init(), forWriting: true)
        #expect(nothing.missing == .cacheAndStateDatabase)
        #expect(nothing.statePath == StateStore.defaultPath(for: location))
        #expect(try nothing.entries().isEmpty && nothing.remove("https://example.com/a.png") == .notListed)
        #expect(try nothing.clear() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty)

        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        var configuration = BlacklistJob.Configuration()
        configuration.statePath = temp.path("state.sqlite")
        let noState = try BlacklistJob(location: location, configuration: configuration, forWriting: false)
        #expect(noState.missing == .stateDatabase && noState.statePath == temp.path("state.sqlite"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path) == ["cache"])
    }
}
