/// One step that computes a cache key from a URL the way an app's `cacheKeyFilter` does
/// (SDWebImageManager; Kingfisher's `cacheKey`, Nuke's `imageId`), docs/cache-contract.md §6.
///
/// Every filter is a pure function of a string. It is written for URLs but accepts any string
/// (`imgwarm path` takes any key): parts a string does not have are left alone. The query is the
/// text after the first `?` up to the first `#`; the fragment is the text after the first `#`
/// (RFC 3986: neither a userinfo, a host nor a path may hold `?` or `#`).
public enum KeyFilter: Sendable, CustomStringConvertible {
    /// The URL as given (the default).
    case url
    /// The URL without its `?query` and `#fragment`; the rest as given.
    case stripQuery
    /// `scheme://host` + path: userinfo, port, query and fragment dropped; host and path as
    /// written (an IPv6 host keeps its brackets). A string that is not an absolute URL with a host
    /// is left as it is.
    case schemeHostPath
    /// Those query parameters removed (all occurrences); the others kept in order and encoding.
    case dropParameters([String])
    /// Only those query parameters kept (all occurrences), in order and encoding as given.
    case keepParameters([String])
    /// The first match of a regular expression replaced by a template.
    case regex(RegexReplacement)

    /// How `--key-filter` spells this filter (a valid spec: `parse(description)` gives it back).
    public var description: String {
        switch self {
        case .url: return "url"
        case .stripQuery: return "strip-query"
        case .schemeHostPath: return "scheme-host-path"
        case .dropParameters(let names): return "drop-params:" + names.joined(separator: ",")
        case .keepParameters(let names): return "keep-params:" + names.joined(separator: ",")
        case .regex(let replacement): return replacement.spec
        }
    }

    /// The key this filter makes of `text`.
    public func apply(_ text: String) -> String {
        switch self {
        case .url:
            return text
        case .stripQuery:
            let parts = URLParts(text)
            return String(parts.beforeQuery)
        case .schemeHostPath:
            return KeyFilter.schemeHostPath(text)
        case .dropParameters(let names):
            return KeyFilter.filterQuery(text) { name in !names.contains { $0 == name } }
        case .keepParameters(let names):
            return KeyFilter.filterQuery(text) { name in names.contains { $0 == name } }
        case .regex(let replacement):
            return replacement.apply(text)
        }
    }

    // MARK: - The filters

    private static func schemeHostPath(_ text: String) -> String {
        guard let uri = URIReference(text), let scheme = uri.scheme, let host = uri.host, uri.authority != nil else {
            return text
        }
        return "\(scheme)://\(host)\(uri.path)"
    }

    /// Keeps the query parameters whose name (the raw text before the first `=`, or the whole
    /// parameter when it has no `=`) passes `keep`; parameters are separated by `&` only, so an
    /// encoded `%26` stays inside its parameter.
    private static func filterQuery(_ text: String, keep: (Substring) -> Bool) -> String {
        let parts = URLParts(text)
        guard let query = parts.query else { return text }
        // Split on the bytes: `&` and `=` are ASCII, never inside a multi-byte character, and a
        // walk by Characters cost most of `keys detect`'s time (docs/performance.md).
        var kept: [Substring] = []
        for piece in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            let parameter = Substring(piece)
            let name = parameter.utf8.firstIndex(of: UInt8(ascii: "=")).map { parameter[..<$0] } ?? parameter
            if keep(name) { kept.append(parameter) }
        }
        // Nothing left (or an empty query `?` that held nothing): no `?`.
        let remaining = kept.allSatisfy(\.isEmpty) ? "" : "?" + kept.joined(separator: "&")
        return String(parts.beforeQuery) + remaining + (parts.fragment.map { "#" + $0 } ?? "")
    }

    /// A string cut at its first `?` and its first `#`.
    struct URLParts {
        var beforeQuery: Substring
        var query: Substring?
        var fragment: Substring?

        init(_ text: String) {
            var rest = text[...]
            if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) {
                fragment = rest[rest.utf8.index(after: hash)...]
                rest = rest[..<hash]
            }
            if let question = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
                query = rest[rest.utf8.index(after: question)...]
                rest = rest[..<question]
            }
            beforeQuery = rest
        }
    }
}

/// `regex:<d>PATTERN<d>TEMPLATE<d>`: the first match of PATTERN replaced by TEMPLATE.
///
/// PATTERN uses Swift's regular expression syntax (the Perl/PCRE-like syntax of `Regex`: classes
/// such as `\d`, groups `( )`, named groups `(?<name> )`, non-capturing `(?: )`, lookahead,
/// anchors `^ $`), matching Unicode characters. In TEMPLATE, `$1`…`$9` stand for groups (a group
/// that did not take part in the match, or that the pattern does not have, stands for nothing),
/// `$0` for the whole match, `$$` for one `$`. In both, `\<d>` stands for the delimiter itself.
public struct RegexReplacement: @unchecked Sendable {
    // `Regex<AnyRegexOutput>` is immutable once compiled; matching does not mutate it.
    let regex: Regex<AnyRegexOutput>
    let template: [Piece]
    /// The spec it was parsed from.
    public let spec: String

    enum Piece: Equatable {
        case text(String)
        case group(Int)
    }

    /// The text with the first match replaced (the text unchanged when nothing matches).
    public func apply(_ text: String) -> String {
        guard let match = try? regex.firstMatch(in: text) else { return text }
        var replacement = ""
        for piece in template {
            switch piece {
            case .text(let literal):
                replacement += literal
            case .group(let number):
                if number < match.output.count, let captured = match.output[number].substring {
                    replacement += captured
                }
            }
        }
        var result = text
        result.replaceSubrange(match.range, with: replacement)
        return result
    }
}
