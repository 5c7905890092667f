import ArgumentParser
import ImgwarmKit
import Testing

@testable import imgwarm

/// `SettingFlags`, the one table from the engine's `Setting`s to imgwarm's flags: each setting a
/// message names is spelled as the option a user types.
@Suite struct SettingFlagsTests {
    @Test func eachSettingIsSpelledAsItsFlag() {
        #expect(SettingFlags.flag(for: .maxBytes) == "--max-bytes")
        #expect(SettingFlags.flag(for: .maxTime) == "--max-time")
        #expect(SettingFlags.flag(for: .timeout) == "--timeout")
        #expect(SettingFlags.flag(for: .maxRedirects) == "--max-redirects")
        #expect(SettingFlags.flag(for: .maxRetryWait) == "--max-retry-wait")
        #expect(SettingFlags.flag(for: .maxPixels) == "--max-pixels")
        #expect(SettingFlags.flag(for: .maxDecodeMemory) == "--max-decode-memory")
        #expect(SettingFlags.flag(for: .lockTimeout) == "--lock-timeout")
        #expect(SettingFlags.flag(for: .statePath) == "--state")
        #expect(SettingFlags.flag(for: .diskCachePath) == "--disk-cache-path")
        #expect(SettingFlags.flag(for: .cacheDir) == "--cache-dir")
        #expect(SettingFlags.flag(for: .namespace) == "--namespace")
        #expect(SettingFlags.flag(for: .force) == "--force")
        #expect(SettingFlags.flag(for: .expireType) == "--expire-type")
        #expect(SettingFlags.flag(for: .keyFilter) == "--key-filter")
        #expect(SettingFlags.flag(for: .shard) == "--shard")
        #expect(SettingFlags.flag(for: .listFormat) == "--format")
    }

    /// Every flag of the table is an option of some command: a renamed option shows up here.
    @Test func everyFlagIsAnOptionOfACommand() {
        let commands: [ParsableCommand.Type] = [
            Prefetch.self, Path.self, Stats.self, Clean.self, Blacklist.self, Push.self, Pull.self, Pack.self,
        ]
        let help = commands.map { Imgwarm.helpMessage(for: $0, columns: 200) }.joined(separator: "\n")
        for setting in Setting.allCases {
            let flag = SettingFlags.flag(for: setting)
            #expect(help.contains(flag + " ") || help.contains(flag + "\n"), "\(setting): \(flag)")
        }
    }
}
