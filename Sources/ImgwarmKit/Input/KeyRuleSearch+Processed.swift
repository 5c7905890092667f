/// Processed key forms (`ProcessedKeyForm`): which of the built-in forms the cache's names fit,
/// and under which rule.
extension KeyRuleSearch {
    /// A processed form the names fit, with the best rule under it (its hits: URLs whose key
    /// under that rule, in that form, has an entry).
    public struct Processed: Sendable, Equatable {
        public var form: ProcessedKeyForm
        public var best: Score

        /// Whether `url`'s key under this rule, in this form, hits.
        func explains(_ url: String, _ hits: (String) -> Bool) -> Bool {
            guard let chain = try? KeyFilterChain(specs: best.filters) else { return false }
            return hits(form.key(chain.key(for: url)))
        }
    }

    /// URLs probed for processed forms: misses of the best rule first, then URLs spread over
    /// the list (an app that also stores the unprocessed image leaves no misses to probe).
    static let probedMisses = 8
    static let probedURLs = 4

    /// The forms (at most 2) whose keys hit for sampled URLs under the best rule, the URL as
    /// given, strip-query or scheme-host-path (and, when the best rule explains fewer than half
    /// of the URLs and none hit, under every drop set of the own parameters of 3 misses spread
    /// over the list, those with at most 6 names), each then
    /// searched for its own best rule over every URL. Trying a few thousand forms on 12 URLs
    /// keeps it to a fraction of the search's time (docs/performance.md).
    func processedForms(best: Score, unexplained: [String]) -> [Processed] {
        guard !forms.isEmpty, !urls.isEmpty else { return [] }
        var bases: [KeyFilterChain] = []
        for specs in [best.filters, [], ["strip-query"], ["scheme-host-path"]] {
            if let chain = try? KeyFilterChain(specs: specs), !bases.contains(where: { $0.specs == chain.specs }) {
                bases.append(chain)
            }
        }
        // Misses under every base; URLs spread over the list under the best rule alone.
        let step = max(1, unexplained.count / KeyRuleSearch.probedMisses)
        var probe = stride(from: 0, to: unexplained.count, by: step).prefix(KeyRuleSearch.probedMisses).map {
            (unexplained[$0], bases)
        }
        let urlStep = max(1, urls.count / KeyRuleSearch.probedURLs)
        probe += stride(from: 0, to: urls.count, by: urlStep).prefix(KeyRuleSearch.probedURLs).map {
            (urls[$0], [bases[0]])
        }
        var votes = vote(probe.map(\.0)) { url in
            (probe.first { $0.0 == url }?.1 ?? bases).map { $0.key(for: url) }
        }
        if votes.isEmpty, best.hits * 2 < urls.count {
            let fewStep = max(1, unexplained.count / 3)
            let few = stride(from: 0, to: unexplained.count, by: fewStep).prefix(3).map { unexplained[$0] }.filter {
                Set(KeyRuleSearch.queryNames($0)).count <= 6
            }
            votes = vote(few) { url in
                let own = Array(Set(KeyRuleSearch.queryNames(url))).sorted()
                return (0..<(1 << own.count)).map { mask in
                    KeyFilter.dropParameters(own.indices.filter { mask & (1 << $0) != 0 }.map { own[$0] }).apply(url)
                } + bases.map { $0.key(for: url) }
            }
        }
        let ordered = votes.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        return ordered.prefix(2).compactMap { (index, _) -> Processed? in
            let form = forms[index]
            let hits = hits
            var search = KeyRuleSearch(urls: urls) { hits(form.key($0)) }
            (search.sampleSize, search.maxSampledParameters) = (sampleSize, maxSampledParameters)
            search.explainsMisses = false
            let found = search.run().best
            return found.hits > 0 ? Processed(form: form, best: found) : nil
        }
    }

    /// For each form, how many probed URLs have a key (of those `keys` gives) whose processed
    /// form hits; stops once 3 URLs have hit.
    private func vote(_ probe: [String], keys: (String) -> [String]) -> [Int: Int] {
        var votes: [Int: Int] = [:]
        var hitURLs = 0
        for url in probe {
            var distinct: [String] = []
            for key in keys(url) where !distinct.contains(key) { distinct.append(key) }
            var hit = false
            let cut = distinct.map(ProcessedKeyForm.Insertion.init)
            for (index, form) in forms.enumerated() where cut.contains(where: { hits(form.key(at: $0)) }) {
                votes[index, default: 0] += 1
                hit = true
            }
            if hit {
                hitURLs += 1
                if hitURLs >= 3 { break }
            }
        }
        return votes
    }
}
