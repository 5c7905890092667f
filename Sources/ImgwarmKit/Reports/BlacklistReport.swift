/// What `imgwarm blacklist list` prints: JSON (schema: `docs/blacklist.schema.json`) or text.
/// URLs and messages are redacted: credentials never reach a report.
public struct BlacklistReport {
    public static let schemaVersion = 1

    /// The state database that was read.
    public var statePath: String
    /// False when there is no state database yet (then there are no entries).
    public var stateExists: Bool
    /// Oldest failure first.
    public var entries: [StateStore.BlacklistEntry]

    public init(statePath: String, stateExists: Bool, entries: [StateStore.BlacklistEntry]) {
        self.statePath = statePath
        self.stateExists = stateExists
        self.entries = entries
    }

    public func json(pretty: Bool = true) -> [UInt8] {
        var w = JSONWriter(pretty: pretty, capacity: 256 + entries.count * 256)
        w.beginObject()
        w.field("schemaVersion", BlacklistReport.schemaVersion)
        w.field("state", statePath)
        w.field("stateExists", stateExists)
        w.key("entries")
        w.beginArray()
        for entry in entries {
            w.beginObject()
            w.field("url", Redaction.redact(entry.url))
            w.field("failedAt", Timestamp(seconds: Int64(entry.failedAt)).iso8601)
            w.field("errorClass", entry.errorClass)
            w.field("httpStatus", entry.httpStatus)
            w.field("attempts", entry.attempts)
            w.field("message", Redaction.redact(entry.message))
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.take()
    }

    /// Two lines per entry: `time  class status  URL`, then the message, indented.
    public func text() -> String {
        guard !entries.isEmpty else { return "The blacklist is empty.\n" }
        var text = ""
        for entry in entries {
            let status = entry.httpStatus.map { " \($0)" } ?? ""
            text +=
                "\(Timestamp(seconds: Int64(entry.failedAt)).iso8601)  \(entry.errorClass)\(status)  \(Redaction.redact(entry.url))\n"
            text += "    \(Redaction.redact(entry.message))\n"
        }
        return text
    }
}
