/// Reading a filter from its `--key-filter` spelling.
extension KeyFilter {
    /// Why a filter spec is not one: a usage error, its message ends with an example.
    public struct SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        init(_ message: String) { self.message = message }
    }

    /// The filters, as the usage message lists them.
    public static let syntaxSummary =
        "url, strip-query, scheme-host-path, drop-params:NAME[,NAME...], keep-params:NAME[,NAME...] or regex:/PATTERN/TEMPLATE/"

    /// Parses one filter: `url`, `strip-query`, `scheme-host-path`, `drop-params:NAME[,NAME...]`,
    /// `keep-params:NAME[,NAME...]` or `regex:<d>PATTERN<d>TEMPLATE<d>`. Regexes are compiled here,
    /// once.
    public static func parse(_ spec: String) throws(SyntaxError) -> KeyFilter {
        switch spec {
        case "url": return .url
        case "strip-query": return .stripQuery
        case "scheme-host-path": return .schemeHostPath
        default: break
        }
        if spec.hasPrefix("drop-params:") {
            return .dropParameters(
                try names(
                    String(spec.dropFirst("drop-params:".count)), spec: spec, example: "drop-params:token,expires"))
        }
        if spec.hasPrefix("keep-params:") {
            return .keepParameters(
                try names(String(spec.dropFirst("keep-params:".count)), spec: spec, example: "keep-params:w,h"))
        }
        if spec.hasPrefix("regex:") {
            return .regex(try RegexReplacement.parse(spec))
        }
        var hint = ""
        if spec == "drop-params" || spec == "keep-params" {
            hint = " (\(spec) needs its parameter names after a colon)"
        }
        if spec == "regex" { hint = " (regex needs /PATTERN/TEMPLATE/ after a colon)" }
        throw SyntaxError(
            "unknown key filter '\(spec)'\(hint): use \(syntaxSummary), e.g. \(Setting.keyFilter) strip-query")
    }

    private static func names(_ list: String, spec: String, example: String) throws(SyntaxError) -> [String] {
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if names.contains(where: \.isEmpty) {
            throw SyntaxError(
                "key filter '\(spec)' has an empty parameter name: list names separated by commas, e.g. \(Setting.keyFilter) \(example)"
            )
        }
        if let bad = names.first(where: { $0.contains("&") || $0.contains("=") || $0.contains("#") }) {
            throw SyntaxError(
                "key filter '\(spec)': '\(bad)' cannot be a parameter name (it holds &, = or #), e.g. \(Setting.keyFilter) \(example)"
            )
        }
        return names
    }
}

extension RegexReplacement {
    /// Parses `regex:<d>PATTERN<d>TEMPLATE<d>` (sed's `s` syntax without flags). The delimiter is
    /// any character but a letter, a digit, a backslash or white space; `\<d>` inside PATTERN or
    /// TEMPLATE stands for the delimiter itself.
    public static func parse(_ spec: String) throws(KeyFilter.SyntaxError) -> RegexReplacement {
        let example = "e.g. \(Setting.keyFilter) 'regex:#/v[0-9]+/#/#'"
        let body = spec.dropFirst("regex:".count)
        guard let delimiter = body.first else {
            throw KeyFilter.SyntaxError(
                "key filter '\(spec)' has no pattern: write regex:/PATTERN/TEMPLATE/, \(example)")
        }
        if delimiter.isLetter || delimiter.isNumber || delimiter == "\\" || delimiter.isWhitespace {
            throw KeyFilter.SyntaxError(
                "key filter '\(spec)': the delimiter '\(delimiter)' cannot be a letter, digit, backslash or space: write regex:/PATTERN/TEMPLATE/, \(example)"
            )
        }
        // Split on unescaped delimiters; "\<d>" becomes "<d>" in the template and, in the pattern,
        // stays escaped so that a delimiter that is a regex metacharacter (| . +) is literal.
        var parts: [String] = [""]
        var index = body.index(after: body.startIndex)
        while index < body.endIndex {
            let character = body[index]
            let next = body.index(after: index)
            if character == "\\", next < body.endIndex, body[next] == delimiter {
                parts[parts.count - 1] += parts.count == 1 ? "\\\(delimiter)" : "\(delimiter)"
                index = body.index(after: next)
                continue
            }
            if character == "\\", next < body.endIndex {
                parts[parts.count - 1] += "\\\(body[next])"
                index = body.index(after: next)
                continue
            }
            if character == delimiter {
                parts.append("")
            } else {
                parts[parts.count - 1].append(character)
            }
            index = next
        }
        guard parts.count == 3, parts[2].isEmpty else {
            if parts.count > 3 || (parts.count == 3 && !parts[2].isEmpty) {
                throw KeyFilter.SyntaxError(
                    "key filter '\(spec)' has text after its closing '\(delimiter)' (flags are not supported), \(example)"
                )
            }
            throw KeyFilter.SyntaxError(
                "key filter '\(spec)' needs three '\(delimiter)': regex:\(delimiter)PATTERN\(delimiter)TEMPLATE\(delimiter), \(example)"
            )
        }
        let pattern = parts[0]
        if pattern.isEmpty {
            throw KeyFilter.SyntaxError("key filter '\(spec)' has an empty pattern, \(example)")
        }
        let regex: Regex<AnyRegexOutput>
        do {
            regex = try Regex(pattern)
        } catch {
            throw KeyFilter.SyntaxError(
                "key filter '\(spec)': the pattern '\(pattern)' is not a valid regular expression (\(error)), \(example)"
            )
        }
        return RegexReplacement(
            regex: regex, template: try template(parts[1], spec: spec, example: example), spec: spec)
    }

    /// Splits a template into text and `$n` groups; `$$` is one `$`, `\x` is `x`.
    static func template(_ text: String, spec: String, example: String) throws(KeyFilter.SyntaxError) -> [Piece] {
        var pieces: [Piece] = []
        var literal = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == "\\", next < text.endIndex {
                literal.append(text[next])
                index = text.index(after: next)
                continue
            }
            if character == "$" {
                guard next < text.endIndex, text[next] == "$" || text[next].isASCII && text[next].isNumber else {
                    throw KeyFilter.SyntaxError(
                        "key filter '\(spec)': '$' in the template must be followed by a group number 0-9 or by '$' (for a '$' itself), \(example)"
                    )
                }
                if text[next] == "$" {
                    literal.append("$")
                } else {
                    if !literal.isEmpty { pieces.append(.text(literal)) }
                    literal = ""
                    pieces.append(.group(Int(String(text[next]))!))
                }
                index = text.index(after: next)
                continue
            }
            literal.append(character)
            index = next
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        return pieces
    }
}

/// The `--key-filter` filters of a run, applied left to right; none means the key is the URL.
public struct KeyFilterChain: Sendable, CustomStringConvertible {
    public var filters: [KeyFilter]

    public init(_ filters: [KeyFilter] = []) {
        self.filters = filters
    }

    /// Parses every spec, in order; the first bad one throws.
    public init(specs: [String]) throws(KeyFilter.SyntaxError) {
        var filters: [KeyFilter] = []
        for spec in specs { filters.append(try KeyFilter.parse(spec)) }
        self.filters = filters
    }

    /// The key an app with these filters computes for `url`.
    public func key(for url: String) -> String {
        var key = url
        for filter in filters { key = filter.apply(key) }
        return key
    }

    /// The specs, as `--key-filter` takes them.
    public var specs: [String] { filters.map(\.description) }
    public var description: String { specs.joined(separator: " ") }
}
