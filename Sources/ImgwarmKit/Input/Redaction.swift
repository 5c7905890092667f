/// Hides passwords in URLs before anything is printed or reported.
public enum Redaction {
    /// `https://user:secret@host/x` → `https://user:***@host/x`; other strings unchanged.
    public static func redact(_ url: String) -> String {
        // Only the authority can hold a password: between "//" and the next "/", "?" or "#".
        guard let slashes = url.firstRange(of: "//") else { return url }
        let authorityStart = slashes.upperBound
        let authorityEnd =
            url[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        let authority = url[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return url }
        let userinfo = authority[authority.startIndex..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return url }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }

    /// `text` with the password of every URL in it hidden as `redact` hides one (a message
    /// that quotes URLs).
    public static func redactAll(_ text: String) -> String {
        guard text.contains("@") else { return text }
        return text.split(separator: " ", omittingEmptySubsequences: false).map { redact(String($0)) }
            .joined(separator: " ")
    }

    /// Shortens `text` to at most `limit` characters for messages, marking the cut.
    public static func excerpt(_ text: String, limit: Int = 200) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }
}
