/// The options of a prefetch that only some formats take, as given (nil: left out):
/// `policy(for:)` resolves them for a format, or names the option it does not take. The one place
/// that decides which prefetch option applies to which format; a front end only words the error.
public struct PrefetchOptions: Sendable, Equatable {
    /// The size limit a run should leave the cache under; only for a format whose app trims the
    /// cache to a size limit on its own (`CacheFormat.trimsItselfToSizeLimit`).
    public var maxSize: UInt64?
    /// How long a stored or re-read file stays fresh; only for a format whose files carry their
    /// expiry date (`ExpiryStampingFormat`).
    public var expiresIn: Expiry?
    /// How long the app's client serves a stored entry without asking the network (a stored
    /// `Cache-Control: max-age`); only for a format that keeps the response's caching headers
    /// (`FreshnessRewritingFormat`).
    public var freshness: Expiry?

    public init(maxSize: UInt64? = nil, expiresIn: Expiry? = nil, freshness: Expiry? = nil) {
        self.maxSize = maxSize
        self.expiresIn = expiresIn
        self.freshness = freshness
    }

    /// The settings of a prefetch whose applicability depends on the format.
    public static let formatSettings: [Setting] = [.maxSize, .expiresIn, .freshness]

    /// True when a prefetch into `format`'s cache takes `setting`.
    public static func format(_ format: any CacheFormat, takes setting: Setting) -> Bool {
        switch setting {
        case .maxSize: return format.trimsItselfToSizeLimit
        case .expiresIn: return format is any ExpiryStampingFormat
        case .freshness: return format is any FreshnessRewritingFormat
        default: return true
        }
    }

    /// The registered formats (`CacheFormats.all`, in its order) whose prefetch takes `setting`.
    public static func formats(taking setting: Setting) -> [String] {
        CacheFormats.all.filter { format($0, takes: setting) }.map(\.name)
    }

    /// The longest freshness taken, in seconds: beyond it the expiry date overflows the library's.
    public static let longestExpiry = 1e11

    /// What a prefetch into `format`'s cache runs with: the format itself, stamping entries fresh
    /// for `expiresIn` (rounded up to a whole second) when given, and the size limit to warn
    /// above. Throws the first option the format does not take (size, then freshness), or
    /// `expiryNotPositive` for a freshness the library would not store a file with.
    public func policy(for format: any CacheFormat) throws(PrefetchOptionError) -> PrefetchPolicy {
        if maxSize != nil && !Self.format(format, takes: .maxSize) {
            throw .notApplicable(
                OptionNotApplicable(setting: .maxSize, format: format.name, appliesTo: Self.formats(taking: .maxSize)))
        }
        var format = format
        if let freshness {
            guard let rewriting = format as? any FreshnessRewritingFormat else {
                throw .notApplicable(
                    OptionNotApplicable(
                        setting: .freshness, format: format.name, appliesTo: Self.formats(taking: .freshness)))
            }
            guard let seconds = freshness.seconds, seconds > 0, seconds < Self.longestExpiry else {
                throw .freshnessNotPositive
            }
            format = rewriting.fresh(forSeconds: Int64(seconds.rounded(.up)))
        }
        guard let expiresIn else { return PrefetchPolicy(format: format, maxSize: maxSize) }
        guard Self.format(format, takes: .expiresIn) else {
            throw .notApplicable(
                OptionNotApplicable(
                    setting: .expiresIn, format: format.name, appliesTo: Self.formats(taking: .expiresIn)))
        }
        guard let seconds = expiresIn.seconds, seconds > 0, seconds < Self.longestExpiry,
            let stamping = format as? any ExpiryStampingFormat
        else { throw .expiryNotPositive }
        return PrefetchPolicy(format: stamping.expiring(afterSeconds: Int64(seconds.rounded(.up))), maxSize: maxSize)
    }
}

extension PrefetchOptions {
    /// `policy(for:)` of each of several formats filled in one run: each option goes to every
    /// format that takes it, with each format's own default where left out; one that none of
    /// them takes is refused as for the first format (`notApplicable`). One format: its policy.
    public func policies(for formats: [any CacheFormat]) throws(PrefetchOptionError) -> [PrefetchPolicy] {
        guard formats.count > 1 else { return [try policy(for: formats.first ?? CacheFormats.standard)] }
        let given: [Setting] = [
            maxSize != nil ? .maxSize : nil, expiresIn != nil ? .expiresIn : nil, freshness != nil ? .freshness : nil,
        ].compactMap { $0 }
        for setting in given where !formats.contains(where: { Self.format($0, takes: setting) }) {
            var alone = PrefetchOptions()
            switch setting {
            case .maxSize: alone.maxSize = maxSize
            case .expiresIn: alone.expiresIn = expiresIn
            default: alone.freshness = freshness
            }
            _ = try alone.policy(for: formats[0])
        }
        return try formats.map { (format) throws(PrefetchOptionError) in
            var taken = self
            if !Self.format(format, takes: .maxSize) { taken.maxSize = nil }
            if !Self.format(format, takes: .expiresIn) { taken.expiresIn = nil }
            if !Self.format(format, takes: .freshness) { taken.freshness = nil }
            return try taken.policy(for: format)
        }
    }
}

/// A prefetch's format-dependent options, resolved for one format.
public struct PrefetchPolicy: Sendable {
    /// The format the run stores in: the one given, with its entries' freshness when one was.
    public var format: any CacheFormat
    /// The size limit above which the run warns; nil: the library's own.
    public var maxSize: UInt64?
}

/// Why a prefetch's options cannot run on a format's cache.
public enum PrefetchOptionError: Error, Sendable, Equatable {
    /// The format does not take the option.
    case notApplicable(OptionNotApplicable)
    /// The freshness is not a positive age below `PrefetchOptions.longestExpiry`: the library
    /// would not store a file that expires at once.
    case expiryNotPositive
    /// The freshness is not a positive age below `PrefetchOptions.longestExpiry`.
    case freshnessNotPositive
}
