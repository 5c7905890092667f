import Testing

@testable import ImgwarmKit

/// `KeyRuleSearch` on keys held in memory: the rule that made them is found, with its hits.
struct KeyRuleSearchTests {
    static let parameters = ["w", "h", "token", "expires", "sig", "v"]

    /// 200 URLs with a port (which `scheme-host-path` drops) and the six parameters (values differ
    /// per URL), the last 10 with an `utm` too.
    static func urls() -> [String] {
        (0..<200).map { n in
            let query = parameters.map { "\($0)=\(n * 7 % 13)\($0)\(n)" }.joined(separator: "&")
            return "https://cdn.example.com:8443/img/\(n).jpg?" + query + (n >= 190 ? "&utm=feed" : "")
        }
    }

    /// Keys made by `rule` from the URLs, 10 of them left out (absent) and 10 unrelated ones in.
    static func search(_ rule: [String]) throws -> KeyRuleSearch.Result {
        let urls = urls()
        let chain = try KeyFilterChain(specs: rule)
        var keys = Set(urls.enumerated().filter { $0.offset % 20 != 3 }.map { chain.key(for: $0.element) })
        for n in 0..<10 { keys.insert("https://other.example.com/\(n)") }
        return KeyRuleSearch(urls: urls) { keys.contains($0) }.run()
    }

    @Test(arguments: [
        [], ["strip-query"], ["scheme-host-path"], ["drop-params:token"], ["drop-params:token,expires"],
        ["drop-params:token,expires,sig"], ["keep-params:w,h"],
    ])
    func findsTheRuleThatMadeTheKeys(rule: [String]) throws {
        let result = try Self.search(rule)
        #expect(result.best.filters == rule, "\(result.candidates.prefix(4))")
        #expect(result.best.hits == 190)
        #expect(result.unexplained.count == 10)
        #expect(result.plainHits == (rule.isEmpty ? 190 : 0))
    }

    @Test func aNormalisationIsNamedInWords() {
        let urls = (0..<20).map { "https://CDN.Example.com/a/\($0).png" }
        let keys = Set(urls.map { URLNormalisation.lowercaseSchemeAndHost($0) })
        let result = KeyRuleSearch(urls: urls) { keys.contains($0) }.run()
        #expect(result.best.hits == 0)
        #expect(result.unexplained.count == 20)
        #expect(result.unexplained[0].nearest == .normalised("the scheme and host lower-cased"))
        #expect(result.normalisations.first?.1 == 20)
    }

    @Test func normalisations() {
        #expect(URLNormalisation.lowercaseSchemeAndHost("HTTPS://A.B/X?Y") == "https://a.b/X?Y")
        #expect(URLNormalisation.normalisePercent("https://a/%7euser/%2f") == "https://a/~user/%2F")
        #expect(URLNormalisation.toggleSlash("https://a/b?x=1", add: true) == "https://a/b/?x=1")
    }
}
