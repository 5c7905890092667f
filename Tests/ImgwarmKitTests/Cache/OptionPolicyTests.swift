import ImgwarmKit
import Testing

/// Which clean and prefetch options each registered format takes, and the policy they resolve
/// to (`CleanOptions.policy(for:)`, `PrefetchOptions.policy(for:)`): checked for every format of
/// `CacheFormats.all`, so an eleventh format is covered the day it is registered.
@Suite struct OptionPolicyTests {
    static let names = CacheFormats.names

    /// The formats whose files expire by age take an age and its date; all but those whose index
    /// decides alone take a size limit. Said here in the rules' terms, not the engine's code.
    static func cleanTakes(_ format: any CacheFormat, _ setting: Setting) -> Bool {
        switch format.cleanRules.expiry {
        case .age: return true
        case .stamped, .none: return setting == .maxSize
        case .index: return false
        }
    }

    @Test(arguments: names) func cleanWithoutOptionsTakesTheFormatsRules(name: String) throws {
        let format = try #require(CacheFormats.named(name))
        let rules = format.cleanRules
        let policy = try CleanOptions().policy(for: format)
        let defaults = DiskCache.CleanPolicy()
        #expect(policy.expireType == rules.trimDate ?? defaults.expireType)
        #expect(policy.maxAge == (rules.expiry == .age ? defaults.maxAge : .never))
        #expect(policy.maxSize == rules.defaultMaxSize)
        #expect(!policy.removeAll)
    }

    @Test(arguments: names) func cleanTakesAnOptionOnlyWhereTheRulesDo(name: String) throws {
        let format = try #require(CacheFormats.named(name))
        let given: [(Setting, CleanOptions)] = [
            (.maxAge, CleanOptions(maxAge: .after(seconds: 60))),
            (.maxSize, CleanOptions(maxSize: 1 << 20)),
            (.expireType, CleanOptions(expireType: .modification)),
        ]
        for (setting, options) in given {
            #expect(
                CleanOptions.format(format, takes: setting) == Self.cleanTakes(format, setting), "\(name) \(setting)")
            let expected = OptionNotApplicable(
                setting: setting, format: name,
                appliesTo: CacheFormats.all.filter { Self.cleanTakes($0, setting) }.map(\.name))
            #expect(CleanOptions.formats(taking: setting) == expected.appliesTo)
            do {
                let policy = try options.policy(for: format)
                #expect(Self.cleanTakes(format, setting), "\(name) took \(setting)")
                switch setting {
                case .maxAge: #expect(policy.maxAge == .after(seconds: 60))
                case .maxSize: #expect(policy.maxSize == 1 << 20)
                default: #expect(policy.expireType == format.cleanRules.trimDate ?? .modification)
                }
            } catch {
                #expect(!Self.cleanTakes(format, setting), "\(name) refused \(setting)")
                #expect(error == .notApplicable(expected, expiry: format.cleanRules.expiry))
            }
        }
    }

    /// The first option the format does not take is the one named: age, then size, then date.
    @Test(arguments: names) func cleanNamesTheFirstOptionRefused(name: String) throws {
        let format = try #require(CacheFormats.named(name))
        let options = CleanOptions(expireType: .change, maxAge: .never, maxSize: 5)
        let first = [Setting.maxAge, .maxSize, .expireType].first { !Self.cleanTakes(format, $0) }
        if let first {
            #expect(
                throws: CleanOptionError.notApplicable(Self.refusal(first, format), expiry: format.cleanRules.expiry)
            ) {
                _ = try options.policy(for: format)
            }
        } else {
            #expect(try options.policy(for: format).maxSize == 5)
        }
    }

    static func refusal(_ setting: Setting, _ format: any CacheFormat) -> OptionNotApplicable {
        OptionNotApplicable(setting: setting, format: format.name, appliesTo: CleanOptions.formats(taking: setting))
    }

    /// Removing everything with a limit is refused for every format, before the format's rules.
    @Test(arguments: names) func cleanRefusesRemoveAllWithALimit(name: String) throws {
        let format = try #require(CacheFormats.named(name))
        for options in [
            CleanOptions(maxAge: .after(seconds: 1), removeAll: true), CleanOptions(maxSize: 1, removeAll: true),
        ] {
            #expect(throws: CleanOptionError.removeAllWithLimit) { _ = try options.policy(for: format) }
        }
        #expect(try CleanOptions(removeAll: true).policy(for: format).removeAll)
    }

    /// A clean of several formats (issue 54): each format takes the options its rules take and
    /// its own defaults for the others (Glide's and Coil's size limit each); an option is refused
    /// only when no format of the list takes it, with each one's refusal in the order given; one
    /// format is `policy(for:)`, its errors included.
    @Test func severalFormatsTakeWhatEachTakes() throws {
        let all = CacheFormats.all
        let given: [(Setting, CleanOptions)] = [
            (.maxAge, CleanOptions(maxAge: .after(seconds: 60))),
            (.maxSize, CleanOptions(maxSize: 1 << 20)),
            (.expireType, CleanOptions(expireType: .modification)),
            (.maxAge, CleanOptions()),
        ]
        for (setting, options) in given {
            let policies = try options.policies(for: all)
            #expect(policies.count == all.count)
            for (format, policy) in zip(all, policies) {
                let own = Self.cleanTakes(format, setting) ? options : CleanOptions()
                #expect(policy == (try own.policy(for: format)), "\(format.name) \(setting)")
            }
            let refusing = all.filter { !Self.cleanTakes($0, setting) }
            let refusals = refusing.map {
                CleanOptionError.notApplicable(Self.refusal(setting, $0), expiry: $0.cleanRules.expiry)
            }
            // Every format of those that refuse it (flutter alone for a size limit: its error).
            if options != CleanOptions() {
                #expect(throws: refusals.count == 1 ? refusals[0] : .notApplicableToAny(refusals)) {
                    _ = try options.policies(for: refusing)
                }
            }
            // One format: `policy(for:)`'s answer, or its error.
            for format in all {
                let one = Result { () throws(CleanOptionError) in try options.policies(for: [format]) }
                let alone = Result { () throws(CleanOptionError) in [try options.policy(for: format)] }
                #expect(one == alone, "\(format.name) \(setting)")
            }
        }
        let glide = try #require(CacheFormats.named("glide"))
        let coil = try #require(CacheFormats.named("coil"))
        let sizes = try CleanOptions().policies(for: [CacheFormats.standard, glide, coil]).map(\.maxSize)
        #expect(sizes == [CacheFormats.standard.cleanRules.defaultMaxSize, 250 << 20, 250 << 20])
        #expect(throws: CleanOptionError.removeAllWithLimit) {
            _ = try CleanOptions(maxSize: 1, removeAll: true).policies(for: [glide, coil])
        }
    }

    @Test(arguments: names) func prefetchTakesAnOptionOnlyWhereTheFormatDoes(name: String) throws {
        let format = try #require(CacheFormats.named(name))
        let plain = try PrefetchOptions().policy(for: format)
        let stamped = { (format: any CacheFormat) in (format as? any ExpiryStampingFormat)?.expiresIn }
        #expect(plain.format.name == name && stamped(plain.format) == stamped(format) && plain.maxSize == nil)

        let sized = PrefetchOptions(maxSize: 1000)
        #expect(PrefetchOptions.format(format, takes: .maxSize) == format.trimsItselfToSizeLimit)
        #expect(
            PrefetchOptions.formats(taking: .maxSize) == CacheFormats.all.filter(\.trimsItselfToSizeLimit).map(\.name))
        if format.trimsItselfToSizeLimit {
            #expect(try sized.policy(for: format).maxSize == 1000)
        } else {
            let refusal = OptionNotApplicable(
                setting: .maxSize, format: name, appliesTo: PrefetchOptions.formats(taking: .maxSize))
            #expect(throws: PrefetchOptionError.notApplicable(refusal)) { _ = try sized.policy(for: format) }
        }

        let stamps = format is any ExpiryStampingFormat
        #expect(PrefetchOptions.format(format, takes: .expiresIn) == stamps)
        let fresh = PrefetchOptions(expiresIn: .after(seconds: 3599.5))
        if stamps {
            let policy = try fresh.policy(for: format)
            #expect(
                policy.format.name == name && (policy.format as? any ExpiryStampingFormat)?.expiresIn == 3600,
                "rounded up to a whole second")
            for bad in [Expiry.never, .after(seconds: 0), .after(seconds: -1), .after(seconds: 1e11)] {
                #expect(throws: PrefetchOptionError.expiryNotPositive) {
                    _ = try PrefetchOptions(expiresIn: bad).policy(for: format)
                }
            }
        } else {
            let refusal = OptionNotApplicable(
                setting: .expiresIn, format: name, appliesTo: PrefetchOptions.formats(taking: .expiresIn))
            #expect(throws: PrefetchOptionError.notApplicable(refusal)) { _ = try fresh.policy(for: format) }
            // Not applicable is said before the value is judged.
            #expect(throws: PrefetchOptionError.notApplicable(refusal)) {
                _ = try PrefetchOptions(expiresIn: .never).policy(for: format)
            }
        }
    }

    /// Each option takes some formats and is refused by others: the registry as it stands.
    @Test func everyFormatDependentOptionSplitsTheRegistry() {
        for setting in CleanOptions.formatSettings {
            let taking = CleanOptions.formats(taking: setting)
            #expect(!taking.isEmpty && taking.count < CacheFormats.all.count, "clean \(setting)")
        }
        for setting in PrefetchOptions.formatSettings {
            let taking = PrefetchOptions.formats(taking: setting)
            #expect(!taking.isEmpty && taking.count < CacheFormats.all.count, "prefetch \(setting)")
        }
        #expect(CleanOptions.formats(taking: .maxAge) == ["sdwebimage"])
        #expect(PrefetchOptions.formats(taking: .expiresIn) == ["kingfisher", "kingfisher7"])
    }
}
