import ImgwarmKit
import ImgwarmSystem
import Testing

/// `Setting`: without a spelling installed (as in these tests, and for any program but imgwarm
/// that does not install one), a message names a setting by the configuration's name.
@Suite struct SettingTests {
    @Test func aSettingIsNamedAsInTheConfiguration() {
        #expect("\(Setting.maxRedirects)" == "maxRedirects")
        #expect(Setting.statePath.description == "statePath")
        for setting in Setting.allCases {
            #expect(!setting.description.hasPrefix("-"), "\(setting)")
        }
    }

    /// A command run in-process spells settings through its `ProcessContext`, on its threads
    /// only: the process's own spelling (none here) is left alone.
    @Test func aContextSpellsSettingsForItsOwnThreads() {
        let context = ProcessContext(
            input: .standardInput, output: .standardOutput, error: .standardError, environment: [:],
            settingNames: { "--" + $0 })
        let inside = ProcessContext.run(in: context) { "\(Setting.maxBytes)" }
        #expect(inside == "--maxBytes")
        #expect("\(Setting.maxBytes)" == "maxBytes")
    }
}
