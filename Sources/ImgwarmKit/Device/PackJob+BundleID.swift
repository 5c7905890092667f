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
        try checkBundleID(id, platform: platform, formats: [format])
    }

    /// Checks `id` for a pack of `formats`' caches on `platform`: it applies to those of them
    /// whose library reads the app's preferences, and is refused only when none does (the
    /// refusal's `format` names them all, comma-separated).
    public static func checkBundleID(_ id: String, platform: AppContainer.Platform, formats: [any CacheFormat])
        throws(BundleIDProblem)
    {
        guard platform == .ios else { throw .notForPlatform(platform) }
        guard formats.contains(where: { $0 is any AppPreferencesFormat }) else {
            throw .notApplicable(
                OptionNotApplicable(
                    setting: .bundleID, format: formats.map(\.name).joined(separator: ", "),
                    appliesTo: bundleIDFormats))
        }
        guard AppContainer.isBundleID(id) else { throw .notABundleID(id) }
    }
}
