import ImgwarmKit
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
}
