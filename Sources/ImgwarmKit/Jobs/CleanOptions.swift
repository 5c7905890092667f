/// The options of a clean as given (nil: left out), before a format's rules say which of them it
/// takes: `policy(for:)` resolves them into the `DiskCache.CleanPolicy` the pass runs, or names
/// the option the format does not take. The one place that decides which clean option applies
/// to which format's rules (`CleanRules.expiry`); a front end only words the error.
public struct CleanOptions: Sendable, Equatable {
    /// The date files are judged by; only for formats whose files expire by age.
    public var expireType: ExpireType?
    /// Files at least this old are expired; only for formats whose files expire by age.
    public var maxAge: Expiry?
    /// The size limit of the size pass; not for a format whose index decides what goes.
    public var maxSize: UInt64?
    /// Remove every entry whatever its date: neither an age nor a size limit goes with it.
    public var removeAll = false

    public init(expireType: ExpireType? = nil, maxAge: Expiry? = nil, maxSize: UInt64? = nil, removeAll: Bool = false) {
        self.expireType = expireType
        self.maxAge = maxAge
        self.maxSize = maxSize
        self.removeAll = removeAll
    }

    /// The settings of a clean whose applicability depends on the format's rules.
    public static let formatSettings: [Setting] = [.maxAge, .maxSize, .expireType]

    /// True when a clean of `format`'s cache takes `setting`: an age and its date only where
    /// files expire by age, a size limit wherever the index does not decide alone.
    public static func format(_ format: any CacheFormat, takes setting: Setting) -> Bool {
        switch setting {
        case .maxAge, .expireType: return format.cleanRules.expiry == .age
        case .maxSize:
            if case .index = format.cleanRules.expiry { return false }
            return true
        default: return true
        }
    }

    /// The registered formats (`CacheFormats.all`, in its order) whose clean takes `setting`.
    public static func formats(taking setting: Setting) -> [String] {
        CacheFormats.all.filter { format($0, takes: setting) }.map(\.name)
    }

    /// `format`'s refusal of `setting`, with the rule that says why.
    private static func refusal(of setting: Setting, by format: any CacheFormat) -> CleanOptionError {
        .notApplicable(
            OptionNotApplicable(setting: setting, format: format.name, appliesTo: formats(taking: setting)),
            expiry: format.cleanRules.expiry)
    }

    /// The format-dependent settings given, in the order a refusal names them: age, size, date.
    private var given: [Setting] {
        [(Setting.maxAge, maxAge != nil), (.maxSize, maxSize != nil), (.expireType, expireType != nil)]
            .filter(\.1).map(\.0)
    }

    /// The policy a clean of `format`'s cache runs with these options: an option left out takes
    /// the format's rule (its trim date, its size limit), else the engine's default
    /// (`DiskCache.CleanPolicy()`); an age is `.never` for a format whose files do not expire by
    /// age. Throws the first option the format does not take (age, then size, then date), or
    /// `removeAllWithLimit` when `removeAll` comes with an age or a size limit.
    public func policy(for format: any CacheFormat) throws(CleanOptionError) -> DiskCache.CleanPolicy {
        if removeAll && (maxAge != nil || maxSize != nil) { throw .removeAllWithLimit }
        for setting in given where !Self.format(format, takes: setting) { throw Self.refusal(of: setting, by: format) }
        let rules = format.cleanRules
        var policy = DiskCache.CleanPolicy()
        policy.expireType = rules.trimDate ?? expireType ?? policy.expireType
        policy.maxAge = rules.expiry == .age ? maxAge ?? policy.maxAge : .never
        policy.maxSize = maxSize ?? rules.defaultMaxSize
        policy.removeAll = removeAll
        return policy
    }

    /// The policies a clean of several formats' caches runs with these options
    /// (`--cache-format a,b`), one a format, in their order: each format takes the options its
    /// rules take and `policy(for:)`'s defaults for the others (its own size limit, its trim
    /// date). An option is refused only when no format of `formats` takes it
    /// (`notApplicableToAny`, each format's refusal in the order given; age, then size, then
    /// date). With one format it is `policy(for:)`, its errors included.
    public func policies(for formats: [any CacheFormat]) throws(CleanOptionError) -> [DiskCache.CleanPolicy] {
        guard formats.count > 1 else { return [try policy(for: formats.first ?? CacheFormats.standard)] }
        if removeAll && (maxAge != nil || maxSize != nil) { throw .removeAllWithLimit }
        for setting in given where !formats.contains(where: { Self.format($0, takes: setting) }) {
            throw .notApplicableToAny(formats.map { Self.refusal(of: setting, by: $0) })
        }
        return try formats.map { (format) throws(CleanOptionError) in
            var taken = self
            if !Self.format(format, takes: .maxAge) { taken.maxAge = nil }
            if !Self.format(format, takes: .maxSize) { taken.maxSize = nil }
            if !Self.format(format, takes: .expireType) { taken.expireType = nil }
            return try taken.policy(for: format)
        }
    }
}

/// Why a clean's options cannot run on a format's cache.
public enum CleanOptionError: Error, Sendable, Equatable {
    /// Removing every entry was asked with an age or a size limit, which would not be heeded.
    case removeAllWithLimit
    /// The format does not take the option; `expiry` is its rule, which says why (its index
    /// decides, its files carry their own expiry, or nothing expires by age).
    case notApplicable(OptionNotApplicable, expiry: CleanRules.Expiry)
    /// A clean of several formats: none of them takes the option; each one's `notApplicable`,
    /// in the order given.
    case notApplicableToAny([CleanOptionError])
}
