/// What one line of a list is.
public enum ListLine: Equatable, Sendable {
    /// Blank, or a comment.
    case ignored
    /// A URL to fetch; its explicit cache `key` and `priority` when the line names them (JSON
    /// Lines). Without a key, the key is computed from the URL (`KeyFilterChain`, docs/cache-contract.md §6).
    case url(url: String, key: String?, priority: Priority?)
    /// A URL whose body is the local file at `path` as written (JSON Lines `"file"`): stored
    /// under the URL's key with no request, once `LocalFileRules` resolve the path.
    case file(url: String, key: String?, priority: Priority?, path: String)
    /// Not usable: the reason, and the line's text for the report (credentials hidden, cut short).
    case invalid(reason: String, text: String)
    /// A URL whose image the cache libraries decode only with a plugin (a HAR entry recorded as
    /// an SVG), and why: prefetch stores it only when asked (`acceptSVG`), verify does not count
    /// it as a miss.
    case unsupported(url: String, reason: String)

    /// Classifies one line (without its `\n`). `truncated` means it was longer than the reader's
    /// limit and was cut.
    public static func parse(_ line: ArraySlice<UInt8>, format: ListFormat, truncated: Bool) -> ListLine {
        var line = line
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        let trimmed = URLRules.trim(line)
        if truncated {
            return .invalid(reason: "the line is longer than \(URLRules.maxLineLength) bytes", text: display(trimmed))
        }
        if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { return .ignored }
        switch format {
        case .jsonl: return parseJSON(trimmed)
        case .plain, .auto, .har:
            switch URLRules.key(from: trimmed) {
            case .success(let url): return .url(url: url, key: nil, priority: nil)
            case .failure(let error):
                let hint =
                    trimmed.first == UInt8(ascii: "{")
                    ? " (it looks like JSON Lines: name the list .jsonl or use \(Setting.listFormat) jsonl)" : ""
                return .invalid(reason: "the line " + error.message + hint, text: display(trimmed))
            }
        }
    }

    private static func parseJSON(_ bytes: ArraySlice<UInt8>) -> ListLine {
        let value: JSONLine.Value
        switch JSONLine.parse(bytes) {
        case .success(let parsed): value = parsed
        case .failure(let error):
            return .invalid(reason: "not valid JSON at column \(error.column): \(error.message)", text: display(bytes))
        }
        guard case .object(let members) = value else {
            return .invalid(reason: "a JSON object is expected, not \(value.typeName)", text: display(bytes))
        }
        var url: String?
        var key: String?
        var priority: Priority?
        var file: String?
        for (name, member) in members {
            switch name {
            case "url":
                guard case .string(let text) = member else {
                    return .invalid(reason: "\"url\" must be a string, not \(member.typeName)", text: display(bytes))
                }
                url = text
            case "key":
                switch member {
                case .null: key = nil  // as if absent: the key is computed from the URL
                case .string(let text):
                    if text.isEmpty { return .invalid(reason: "\"key\" is empty", text: display(bytes)) }
                    if text.utf8.contains(0) {
                        return .invalid(reason: "\"key\" contains a NUL character", text: display(bytes))
                    }
                    key = text  // verbatim: white space and all
                default:
                    return .invalid(reason: "\"key\" must be a string, not \(member.typeName)", text: display(bytes))
                }
            case "priority":
                guard case .string(let text) = member, let parsed = Priority(rawValue: text.lowercased()) else {
                    return .invalid(
                        reason: "\"priority\" must be \"high\", \"normal\" or \"low\"", text: display(bytes))
                }
                priority = parsed
            case "file":
                guard case .string(let text) = member else {
                    return .invalid(reason: "\"file\" must be a string, not \(member.typeName)", text: display(bytes))
                }
                if text.isEmpty { return .invalid(reason: "\"file\" is empty", text: display(bytes)) }
                if text.utf8.contains(0) {
                    return .invalid(reason: "\"file\" contains a NUL character", text: display(bytes))
                }
                file = text
            default:
                continue  // Other members are allowed (and ignored) so lists can carry metadata.
            }
        }
        guard let url else {
            return .invalid(reason: "the object has no \"url\"", text: display(bytes))
        }
        let trimmed = url.trimmingSpaces
        if trimmed.isEmpty { return .invalid(reason: "\"url\" is empty", text: display(bytes)) }
        if trimmed.utf8.contains(0) {
            return .invalid(reason: "\"url\" contains a NUL character", text: display(bytes))
        }
        switch URLRules.validate(trimmed) {
        case .success:
            if let file { return .file(url: trimmed, key: key, priority: priority, path: file) }
            return .url(url: trimmed, key: key, priority: priority)
        case .failure(let error): return .invalid(reason: "\"url\" " + error.message, text: display(bytes))
        }
    }

    /// The line as text fit for a report: invalid UTF-8 repaired, passwords hidden, cut at 200.
    static func display(_ bytes: ArraySlice<UInt8>) -> String {
        Redaction.excerpt(Redaction.redact(String(decoding: bytes, as: UTF8.self)))
    }
}
