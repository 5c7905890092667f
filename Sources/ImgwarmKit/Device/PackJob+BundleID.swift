/// Where `pack`'s bundle identifier applies (iOS, the formats whose library reads the app's
/// preferences) and what one looks like: decided here for every front end, which words the
/// problem (issue 51).
extension PackJob {
    /// Why a bundle identifier cannot be used as given.
    public enum BundleIDProblem: Swift.Error, Equatable, Sendable {
        /// Only an iOS app has a preferences file for it.
        case notForPlatform(AppContainer.Platform)
        /// The format's library reads nothing from the app's preferences.
        case notApplicable(OptionNotApplicable)
        /// Not letters, digits, `-` and `.` (`AppContainer.isBundleID`).
        case notABundleID(String)
    }

    /// The formats whose pack takes a bundle identifier, in `CacheFormats.all`'s order.
    public static var bundleIDFormats: [String] {
        CacheFormats.all.filter { $0 is any AppPreferencesFormat }.map(\.name)
    }

    /// Checks `id` for a pack of `format`'s cache on `platform`.
    public static func checkBundleID(_ id: String, platform: AppContainer.Platform, format: any CacheFormat)
        throws(BundleIDProblem)
    {
        guard platform == .ios else { throw .notForPlatform(platform) }
        guard format is any AppPreferencesFormat else {
            throw .notApplicable(
                OptionNotApplicable(setting: .bundleID, format: format.name, appliesTo: bundleIDFormats))
        }
        guard AppContainer.isBundleID(id) else { throw .notABundleID(id) }
    }
}
