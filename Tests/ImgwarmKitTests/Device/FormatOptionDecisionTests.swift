import Testing

@testable import ImgwarmKit

/// The options only some formats take are decided by the engine, once, for every front end
/// (issue 51, item 4): the CLI only words the typed answer.
@Suite struct FormatOptionDecisionTests {
    @Test func onlyAFormatWithADatabaseOutsideTakesDatabase() throws {
        let flutter = try #require(CacheFormats.named("flutter"))
        let moved = try CacheFormats.format(flutter, withDatabaseAt: "/data/db/libCachedImageData.db")
        #expect(moved.name == "flutter")
        let glide = try #require(CacheFormats.named("glide"))
        #expect {
            _ = try CacheFormats.format(glide, withDatabaseAt: "/x.db")
        } throws: { error in
            let option = error as? OptionNotApplicable
            return option?.setting == .databasePath && option?.format == "glide" && option?.appliesTo == ["flutter"]
        }
    }

    @Test func aBundleIDIsForIOSAndTheFormatsThatReadThePreferences() throws {
        let pin = try #require(CacheFormats.named("pinremoteimage"))
        let sd = try #require(CacheFormats.named("sdwebimage"))
        #expect(PackJob.bundleIDFormats == ["pinremoteimage"])
        try PackJob.checkBundleID("com.example.app", platform: .ios, format: pin)
        #expect(throws: PackJob.BundleIDProblem.notForPlatform(.android)) {
            try PackJob.checkBundleID("com.example.app", platform: .android, format: pin)
        }
        #expect(
            throws: PackJob.BundleIDProblem.notApplicable(
                OptionNotApplicable(setting: .bundleID, format: "sdwebimage", appliesTo: ["pinremoteimage"]))
        ) {
            try PackJob.checkBundleID("com.example.app", platform: .ios, format: sd)
        }
        #expect(throws: PackJob.BundleIDProblem.notABundleID("com/example")) {
            try PackJob.checkBundleID("com/example", platform: .ios, format: pin)
        }
        // Several formats: it goes to those that read the preferences, refused when none does.
        try PackJob.checkBundleID("com.example.app", platform: .ios, formats: [sd, pin])
        let kingfisher = try #require(CacheFormats.named("kingfisher"))
        #expect(
            throws: PackJob.BundleIDProblem.notApplicable(
                OptionNotApplicable(
                    setting: .bundleID, format: "sdwebimage, kingfisher", appliesTo: ["pinremoteimage"]))
        ) {
            try PackJob.checkBundleID("com.example.app", platform: .ios, formats: [sd, kingfisher])
        }
    }

    /// A prefetch's format policy carries the size limit a run warns above; a format whose app
    /// does not trim itself refuses it.
    @Test func thePrefetchPolicyCarriesTheSizeLimit() throws {
        let glide = try #require(CacheFormats.named("glide"))
        #expect(try PrefetchOptions(maxSize: 1000).policy(for: glide).maxSize == 1000)
        #expect(try PrefetchOptions().policy(for: glide).maxSize == nil)
        let sd = try #require(CacheFormats.named("sdwebimage"))
        #expect(throws: PrefetchOptionError.self) { try PrefetchOptions(maxSize: 1000).policy(for: sd) }
    }
}
