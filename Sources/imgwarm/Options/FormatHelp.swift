import ImgwarmKit

/// The parts of the help that speak of every cache format, made from the registry
/// (`CacheFormats.all`) and each format's rules (`CleanRules`, `entryNameShape`, `hasNamespace`):
/// a format is described as soon as it is registered, in the terms its rules give.
enum FormatHelp {
    /// Every `--cache-format` name, in the registry's order, the default first.
    static var names: String { CacheFormats.names.joined(separator: ", ") }

    /// Each format's name and library, the default first: `sdwebimage (SDWebImage 5.x, the default), …`.
    static var libraries: String {
        CacheFormats.all.enumerated().map { index, format in
            "\(format.name) (\(format.library)\(index == 0 ? ", the default" : ""))"
        }.joined(separator: ", ")
    }

    /// Formats grouped by the text `describe` gives them, in the registry's order: formats that
    /// read the same are named together (`kingfisher, kingfisher7: …`); nil leaves a format out.
    static func grouped(_ describe: (any CacheFormat) -> String?) -> [(names: [String], text: String)] {
        var groups: [(names: [String], text: String)] = []
        for format in CacheFormats.all {
            guard let text = describe(format) else { continue }
            if let index = groups.firstIndex(where: { $0.text == text }) {
                groups[index].names.append(format.name)
            } else {
                groups.append(([format.name], text))
            }
        }
        return groups
    }

    /// One line per group: `name, name: text`.
    static func lines(_ describe: (any CacheFormat) -> String?) -> String {
        grouped(describe).map { "\($0.names.joined(separator: ", ")): \($0.text)" }.joined(separator: "\n")
    }

    /// `150MiB` for 150 × 2^20 bytes: the way `--max-size` takes it.
    static func size(_ bytes: UInt64) -> String {
        for (unit, shift) in [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)] as [(String, UInt64)]
        where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return "\(bytes)"
    }

    // MARK: - clean

    /// How `clean` cleans each format, one line per group of formats its rules clean alike.
    static var cleanRules: String { lines { clean($0.cleanRules) } }

    /// What `clean` does with `rules`, in words.
    static func clean(_ rules: CleanRules) -> String {
        let expiry: String
        switch rules.expiry {
        case .age:
            let policy = Defaults.clean.policy
            expiry =
                "every file whose --expire-type date (default \(policy.expireType.rawValue)) is at or before now minus --max-age (default \(policy.maxAge.text)) goes"
        case .stamped:
            expiry = "every file whose modification time (its expiry date) is at or before now goes"
        case .none:
            expiry = "nothing expires by age"
        case .index(let words):
            return words + "; --max-age, --max-size and --expire-type do not apply."
        }
        let limit =
            rules.limitDependsOnDevice
            ? "none: the app's limit depends on the device"
            : rules.defaultMaxSize > 0 ? size(rules.defaultMaxSize) : "none"
        let measure = rules.measure == .allocated ? "allocated size" : "logical size"
        let counted = rules.order == .indexOrder ? "\(measure) its index lists" : measure
        let start = rules.startsAtLimit ? "at or above" : "above"
        let goal: String
        if let ratio = rules.trimRatio {
            goal = "\(Int((ratio * 100).rounded())) % of it"
        } else if rules.keep == (1, 1) {
            goal = "the limit"
        } else if rules.keep == (1, 2) {
            goal = "half of it"
        } else {
            goal = "\(rules.keep.numerator * 100 / rules.keep.denominator) % of it"
        }
        return "\(expiry); then, when the \(counted) is \(start) --max-size (default \(limit)), "
            + "\(order(rules)) go until it is \(rules.stopsAtTarget ? "at most" : "below") \(goal)."
    }

    /// Which files the size pass of `rules` removes first, in words.
    static func order(_ rules: CleanRules) -> String {
        let oldest: String
        switch rules.trimDate {
        case nil: oldest = "the oldest by --expire-type"
        case .access: oldest = "the least recently read (oldest access time)"
        case .modification: oldest = "the oldest by modification time"
        case .change: oldest = "the oldest by change time"
        case .creation:
            oldest =
                "the oldest by creation date"
                + (rules.creationFallsBackToChange
                    ? " (the change time stands in, with a warning, where the file system records no creation dates)"
                    : "")
        }
        switch rules.order {
        case .oldestFirst: return oldest
        case .indexOrder: return "the least recently used, in its index's order,"
        case .futureDatedThenOldest: return "those dated more than two hours ahead, then \(oldest),"
        }
    }

    /// The `--max-size` default of each format whose clean takes it.
    static var maxSizeDefaults: String {
        grouped { format in
            guard CleanOptions.format(format, takes: .maxSize), !format.cleanRules.limitDependsOnDevice else {
                return nil
            }
            let limit = format.cleanRules.defaultMaxSize
            return limit > 0 ? size(limit) : "none"
        }.map { "\($0.text) for \($0.names.joined(separator: ", "))" }.joined(separator: "; ")
    }

    /// The formats whose app's size limit depends on the device: no default (`limitDependsOnDevice`).
    static var formatsWithDeviceLimit: [String] {
        CacheFormats.all.filter { $0.cleanRules.limitDependsOnDevice }.map(\.name)
    }

    /// The formats whose clean does not take `--max-size`.
    static var formatsWithoutMaxSize: [String] {
        let taking = CleanOptions.formats(taking: .maxSize)
        return CacheFormats.names.filter { !taking.contains($0) }
    }

    /// The formats whose files expire by age (`--max-age`, `--expire-type`).
    static var formatsWithAge: [String] { CleanOptions.formats(taking: .maxAge) }

    /// The shape of each format's entry names, which the clean guard wants.
    static var entryNames: String { lines { $0.entryNameShape } }

    /// The formats whose library keeps an index beside its files (a journal, a folder tree, a
    /// database): `clean` trims and `--all` empties them through it.
    static var formatsWithIndex: [String] {
        CacheFormats.all.filter { $0 is any IndexedCacheFormat }.map(\.name)
    }

    /// The formats whose folder has one fixed name (no `--namespace`).
    /// The formats whose entries keep the response's caching headers (`FreshnessRewritingFormat`):
    /// their library may find an entry and still go to the network for it (`verify`'s `stale`).
    static var formatsWithFreshness: [String] {
        CacheFormats.all.filter { $0 is any FreshnessRewritingFormat }.map(\.name)
    }

    static var formatsWithoutNamespace: [String] { CacheFormats.all.filter { !$0.hasNamespace }.map(\.name) }

    /// The formats whose library keeps a database outside the cache folder (`--database`).
    static var formatsWithDatabase: [String] {
        CacheFormats.all.filter { $0 is any ExternalDatabaseFormat }.map(\.name)
    }

    // MARK: - prefetch

    /// The formats a prefetch takes `setting` for (`PrefetchOptions`), comma-separated.
    static func prefetchFormats(taking setting: Setting) -> String {
        PrefetchOptions.formats(taking: setting).joined(separator: ", ")
    }

    /// The size limit of each format whose app trims its cache on its own, which prefetch's
    /// `--max-size` stands in for: `150MiB for nuke; 250MiB for glide, coil, coil2`.
    static var prefetchMaxSizeDefaults: String {
        grouped { format in
            PrefetchOptions.format(format, takes: .maxSize) ? size(format.cleanRules.defaultMaxSize) : nil
        }.map { "\($0.text) for \($0.names.joined(separator: ", "))" }.joined(separator: "; ")
    }

    /// How long the files of each format that stamps an expiry date stay fresh by default
    /// (`--expires-in`): `7d`, or `7d for a, b; 1d for c` where they differ.
    static var expiresInDefaults: String {
        let groups = grouped { format in
            guard let seconds = (format as? any ExpiryStampingFormat)?.expiresIn else { return nil }
            return Expiry.after(seconds: Double(seconds)).text
        }
        if groups.count == 1 { return groups[0].text }
        return groups.map { "\($0.text) for \($0.names.joined(separator: ", "))" }.joined(separator: "; ")
    }

    // MARK: - verify

    /// Every reason `verify` can give for a miss (`EntryMiss`), as the summary and the JSON name it.
    static var missReasons: String {
        EntryMiss.allCases.map { "\($0.rawValue): \($0.description)" }.joined(separator: "; ")
    }
}
