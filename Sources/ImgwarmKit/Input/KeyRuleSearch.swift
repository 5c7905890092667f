/// Which `--key-filter` rule did an app use? Given the distinct URLs it loaded and a test of
/// whether a key has an entry in its cache (`hits`), scores candidate filter chains by how many
/// URLs' keys hit, and picks the best (docs/usage.md, "Apps with a cacheKeyFilter").
///
/// File names are one-way digests, so the search generates keys and tests membership: a fixed
/// candidate is one pass over the URLs. Parameter subsets are searched by structure, never over
/// all 2^n subsets: on a sample of URLs, the subsets of each URL's own parameters that hit
/// propose drop sets; the best proposals are scored on every URL, then grown greedily by the
/// names the sample did not decide, each growth re-scoring only the URLs that carry the added
/// name (docs/performance.md).
public struct KeyRuleSearch {
    /// One candidate rule and the URLs it explains.
    public struct Score: Sendable, Equatable {
        /// The filters, as `--key-filter` takes them (empty: the URL as given).
        public var filters: [String]
        public var hits: Int
    }

    /// A URL no candidate filter explains, and the nearest explanation found for it.
    public struct Unexplained: Sendable, Equatable {
        public var url: String
        public var nearest: Nearest?
    }

    /// The nearest explanation of a URL the best rule misses.
    public enum Nearest: Sendable, Equatable {
        /// Its key hits once the URL is normalised as these words say (no filter does that).
        case normalised(String)
        /// Its key hits under another rule (these filter specs; empty: the URL as given).
        case rule([String])
        /// Its key under this rule (filter specs) hits in this processed form.
        case processed(ProcessedKeyForm, [String])
    }

    /// What the search found.
    public struct Result: Sendable, Equatable {
        /// The best rule (fewest filters and names on a tie).
        public var best: Score
        /// Hits with the URL as given.
        public var plainHits: Int
        /// Every candidate scored, best first.
        public var candidates: [Score]
        /// The URLs the best rule does not explain, in list order.
        public var unexplained: [Unexplained]
        /// Normalisations that explain URLs the best rule misses, in words, with their counts.
        public var normalisations: [(String, Int)]
        /// The processed key forms found (`forms`), each with the best rule under it.
        public var processed: [Processed] = []

        public static func == (a: Result, b: Result) -> Bool {
            a.processed == b.processed && a.best == b.best && a.plainHits == b.plainHits && a.candidates == b.candidates
                && a.unexplained == b.unexplained && a.normalisations.map(\.0) == b.normalisations.map(\.0)
                && a.normalisations.map(\.1) == b.normalisations.map(\.1)
        }
    }

    public let urls: [String]
    public let hits: (String) -> Bool
    /// URLs whose parameter subsets are tried (spread over the list).
    public var sampleSize = 64
    /// A URL with more distinct parameter names than this is not sampled (2^n keys).
    public var maxSampledParameters = 10
    /// Processed key forms to look for once the rule is found (`ProcessedKeyForm.builtIn`).
    public var forms: [ProcessedKeyForm] = []
    /// Whether the misses are explained (a search under a processed form leaves them).
    var explainsMisses = true

    public init(urls: [String], hits: @escaping (String) -> Bool) {
        self.urls = urls
        self.hits = hits
    }

    /// Scores the candidates and explains the misses.
    public func run() -> Result {
        var scored: [Score] = []
        var seen = Set<[String]>()
        func record(_ specs: [String], _ count: Int) -> Score {
            let result = Score(filters: specs, hits: count)
            if seen.insert(specs).inserted { scored.append(result) }
            return result
        }
        /// A rule's score and which URLs it explains, one pass; where the key is the one a rule
        /// already scored (`like`) makes, its answer is taken (a name costs far more than a key).
        func score(_ filters: [KeyFilter], like: (KeyFilterChain, [Bool])? = nil) -> (Score, [Bool]) {
            let chain = KeyFilterChain(filters)
            let bits = urls.indices.map { index in
                let key = chain.key(for: urls[index])
                if let (other, otherBits) = like, other.key(for: urls[index]) == key { return otherBits[index] }
                return hits(key)
            }
            return (record(chain.specs, bits.reduce(0) { $0 + ($1 ? 1 : 0) }), bits)
        }
        let (plain, plainBits) = score([])
        let (_, stripBits) = score([.stripQuery], like: (KeyFilterChain(), plainBits))
        _ = score([.schemeHostPath], like: (KeyFilterChain([.stripQuery]), stripBits))
        let names = KeyRuleSearch.parameterNames(urls)
        // The proposals the sample backs (a quarter of the best one's votes at least) are scored
        // once; only the best is grown, one name at a time while the hits grow, and its
        // complement tried as keep-params.
        var (drop, grownBest, bits) = ([String](), plain, plainBits)
        let proposals = proposedDropSets(names: names)
        for (proposal, votes) in proposals where votes * 4 >= (proposals.first?.1 ?? 0) {
            let (candidate, candidateBits) = score([.dropParameters(proposal)], like: (KeyFilterChain(), plainBits))
            if candidate.hits > grownBest.hits { (drop, grownBest, bits) = (proposal, candidate, candidateBits) }
        }
        let carriers = KeyRuleSearch.carriers(of: names, in: urls)
        while let (grown, candidate, changes) = grow(drop, names: names, carriers: carriers, bits: bits, record: record)
        {
            for (index, hit) in changes { bits[index] = hit }
            (drop, grownBest) = (grown, candidate)
        }
        let kept = names.filter { !drop.contains($0) }
        if !kept.isEmpty {
            // keep-params of the other names keeps what drop-params keeps on every URL of the
            // list (its names are all in `names`) but one with an empty parameter (`a=1&&b=2`).
            let chain = KeyFilterChain([.keepParameters(kept)])
            let count = urls.indices.reduce(0) { total, index in
                let hit =
                    KeyRuleSearch.hasEmptyParameter(urls[index]) ? hits(chain.key(for: urls[index])) : bits[index]
                return total + (hit ? 1 : 0)
            }
            _ = record(chain.specs, count)
        }
        let ranked = scored.enumerated().sorted { a, b in
            if a.element.hits != b.element.hits { return a.element.hits > b.element.hits }
            let (ca, cb) = (KeyRuleSearch.cost(a.element.filters), KeyRuleSearch.cost(b.element.filters))
            return ca != cb ? ca < cb : a.offset < b.offset
        }.map(\.element)
        let best = ranked[0].hits > 0 ? ranked[0] : plain
        guard explainsMisses else {
            return Result(best: best, plainHits: plain.hits, candidates: ranked, unexplained: [], normalisations: [])
        }
        var (unexplained, normalisations) = explainMisses(best: best, ranked: ranked)
        let processed = processedForms(best: best, unexplained: unexplained.map(\.url))
        if !processed.isEmpty {
            for index in unexplained.indices where unexplained[index].nearest == nil {
                let url = unexplained[index].url
                if let found = processed.first(where: { $0.explains(url, hits) }) {
                    unexplained[index].nearest = .processed(found.form, found.best.filters)
                }
            }
        }
        var result = Result(
            best: best, plainHits: plain.hits, candidates: ranked, unexplained: unexplained,
            normalisations: normalisations)
        result.processed = processed
        return result
    }

    /// The best one-name growth of `drop` that explains more URLs, with the URLs whose hit
    /// changed; nil when none does. Only the URLs carrying the added name can change: the misses
    /// among them are tried first, and a name that turns none into a hit costs nothing more.
    private func grow(
        _ drop: [String], names: [String], carriers: [String: [Int]], bits: [Bool],
        record: ([String], Int) -> Score
    ) -> ([String], Score, [(Int, Bool)])? {
        let hitCount = bits.reduce(0) { $0 + ($1 ? 1 : 0) }
        var improved: ([String], Score, [(Int, Bool)])?
        for name in names where !drop.contains(name) {
            let grown = names.filter { drop.contains($0) || $0 == name }
            let chain = KeyFilterChain([.dropParameters(grown)])
            let carrying = carriers[name] ?? []
            var changes: [(Int, Bool)] = []
            for index in carrying where !bits[index] && hits(chain.key(for: urls[index])) {
                changes.append((index, true))
            }
            guard !changes.isEmpty else { continue }
            let gains = changes.count
            for index in carrying where bits[index] && !hits(chain.key(for: urls[index])) {
                changes.append((index, false))
            }
            let candidate = record(chain.specs, hitCount + gains - (changes.count - gains))
            if candidate.hits > (improved?.1.hits ?? hitCount) { improved = (grown, candidate, changes) }
        }
        return improved
    }

    // MARK: - Parameters

    /// The distinct parameter names of the URLs' queries, in order of first occurrence.
    static func parameterNames(_ urls: [String]) -> [String] {
        var names: [String] = []
        var seen = Set<String>()
        for url in urls {
            for name in queryNames(url) where seen.insert(name).inserted { names.append(name) }
        }
        return names
    }

    /// The parameter names of one URL's query, as `drop-params` reads them.
    static func queryNames(_ url: String) -> [String] {
        guard let query = KeyFilter.URLParts(url).query else { return [] }
        return query.utf8.split(separator: UInt8(ascii: "&")).map { piece in
            let parameter = Substring(piece)
            return String(parameter.utf8.firstIndex(of: UInt8(ascii: "=")).map { parameter[..<$0] } ?? parameter)
        }
    }

    /// Drop sets proposed by the sample: for each sampled URL, every subset of its parameter
    /// names whose drop makes a key that hits; the most proposed first (at most 4), with their
    /// votes.
    func proposedDropSets(names: [String]) -> [([String], Int)] {
        var votes: [[String]: Int] = [:]
        let step = max(1, urls.count / max(1, sampleSize))
        for url in stride(from: 0, to: urls.count, by: step).map({ urls[$0] }) {
            var own: [String] = []
            for name in KeyRuleSearch.queryNames(url) where !own.contains(name) { own.append(name) }
            guard !own.isEmpty, own.count <= maxSampledParameters else { continue }
            for mask in 1..<(1 << own.count) {
                let drop = own.indices.filter { mask & (1 << $0) != 0 }.map { own[$0] }
                if hits(KeyFilter.dropParameters(drop).apply(url)) {
                    votes[names.filter { drop.contains($0) }, default: 0] += 1
                }
            }
        }
        let ordered = votes.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.count < $1.key.count }
        return ordered.prefix(4).map { ($0.key, $0.value) }
    }

    /// For each name, the indices of the URLs whose query carries it.
    static func carriers(of names: [String], in urls: [String]) -> [String: [Int]] {
        var carriers: [String: [Int]] = [:]
        for (index, url) in urls.enumerated() {
            var own = Set<String>()
            for name in queryNames(url) where own.insert(name).inserted { carriers[name, default: []].append(index) }
        }
        return carriers
    }

    /// True when the URL's query has an empty parameter (`a=1&&b=2`, a trailing `&`, a bare `?`).
    static func hasEmptyParameter(_ url: String) -> Bool {
        guard let query = KeyFilter.URLParts(url).query else { return false }
        return query.split(separator: "&", omittingEmptySubsequences: false).contains { $0.isEmpty }
    }

    /// A rule's size for ties: filters, then parameter names (a simpler rule wins).
    static func cost(_ specs: [String]) -> Int {
        specs.reduce(0) { total, spec in
            total + 100 + (spec.firstIndex(of: ":").map { spec[$0...].split(separator: ",").count } ?? 0)
        }
    }

    // MARK: - Misses

    private func explainMisses(best: Score, ranked: [Score]) -> ([Unexplained], [(String, Int)]) {
        let chain = (try? KeyFilterChain(specs: best.filters)) ?? KeyFilterChain()
        let others = ranked.filter { $0.filters != best.filters && $0.hits > 0 }.prefix(6).compactMap { score in
            (try? KeyFilterChain(specs: score.filters)).map { (score.filters, $0) }
        }
        var unexplained: [Unexplained] = []
        var counts: [String: Int] = [:]
        var order: [String] = []
        for url in urls where !hits(chain.key(for: url)) {
            var nearest: Nearest?
            for (words, normalise) in URLNormalisation.all {
                let changed = normalise(url)
                guard changed != url else { continue }
                if hits(chain.key(for: changed)) || hits(normalise(chain.key(for: url))) {
                    nearest = .normalised(words)
                    if counts[words] == nil { order.append(words) }
                    counts[words, default: 0] += 1
                    break
                }
            }
            if nearest == nil, let other = others.first(where: { hits($0.1.key(for: url)) }) {
                nearest = .rule(other.0)
            }
            unexplained.append(Unexplained(url: url, nearest: nearest))
        }
        return (unexplained, order.map { ($0, counts[$0] ?? 0) })
    }
}
