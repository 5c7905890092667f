import ImgwarmSystem

/// Writes the JSON document `imgwarm verify --json` (or `--report`) writes (schema:
/// `docs/verify-report.schema.json`) as the verify goes: the header first, one `entries` item per
/// key as it is judged, then the invalid lines and the ignored entries, the folder's verdict and
/// the totals last. Entries are not held: memory does not grow with them. Keys and URLs are
/// redacted: credentials never reach a report.
public final class VerifyReport {
    public static let schemaVersion = 1

    private let file: ReportFile
    private let sources: [ListSource]
    private var writer: JSONWriter
    private var invalid: JSONWriter
    private var ignored: JSONWriter
    /// The keys' shard, which `totals.shard` describes.
    private let shard: Shard?
    /// True when this document is one of several in the file (`SeveralDocuments`), which
    /// commits the file; false: `finish` commits it.
    private let embedded: Bool

    /// Writes the header of a verify of `location`, with keys from `sources` (none: the folder's
    /// entries), of `shard` (nil: every key).
    public init(
        file: ReportFile, location: CacheLocation, sources: [ListSource], checkedAt: Timestamp, shard: Shard? = nil,
        embedded: Bool = false
    ) {
        self.file = file
        self.shard = shard
        self.embedded = embedded
        self.sources = sources
        writer = JSONWriter(pretty: false, capacity: 1 << 16)
        invalid = JSONWriter(pretty: false, capacity: 256)
        ignored = JSONWriter(pretty: false, capacity: 256)
        writer.beginObject()
        writer.reportHeader(schemaVersion: VerifyReport.schemaVersion, command: "verify", cacheFolder: location.folder)
        writer.field("cacheFormat", location.format.name)
        writer.field("library", location.format.library)
        writer.field("source", sources.isEmpty ? "folder" : "lists")
        writer.key("inputs")
        writer.beginArray()
        for source in sources { writer.string(source.path) }
        writer.endArray()
        writer.field("checkedAt", checkedAt.iso8601)
        writer.key("entries")
        writer.beginArray()
        invalid.beginArray()
        ignored.beginArray()
    }

    /// Appends one event of the job.
    public func add(_ event: Verification.Event) {
        switch event {
        case .checked(let check):
            writer.beginObject()
            writer.field("list", check.input.map { sources[$0].path })
            writer.field("line", check.line)
            writer.field("url", check.url.map(Redaction.redact))
            writer.field("key", check.key.map(Redaction.redact))
            writer.field("fileName", check.fileName)
            switch check.read {
            case .hit(let size):
                writer.field("verdict", check.verdict.rawValue)
                writer.field("reason", nil as String?)
                writer.field("bytes", size)
            case .miss where check.unsupported != nil:
                writer.field("verdict", "unsupported")
                writer.field("reason", nil as String?)
                writer.field("bytes", nil as Int?)
            case .miss(let reason):
                writer.field("verdict", "miss")
                writer.field("reason", reason.rawValue)
                writer.field("bytes", nil as Int?)
            }
            writer.field("imageFormat", check.imageFormat?.rawValue)
            writer.field("staleSince", check.staleSince?.iso8601)
            writer.field("message", (check.unsupported ?? check.detail).map(Redaction.redact))
            writer.endObject()
            if writer.bytes.count >= 1 << 16 { file.write(writer.take()) }
        case .invalid(let line):
            invalid.beginObject()
            invalid.field("list", sources[line.input].path)
            invalid.field("line", line.line)
            invalid.field("text", line.text)
            invalid.field("message", line.reason)
            invalid.endObject()
        case .ignored(let entry):
            ignored.beginObject()
            ignored.field("name", entry.name)
            ignored.field("kind", entry.kind.rawValue)
            ignored.field("reason", entry.reason.rawValue)
            ignored.endObject()
        }
    }

    /// Writes the invalid lines, the ignored entries, the folder's verdict and the totals, and
    /// closes the document; a file appears complete only now.
    public func finish(_ result: Verification.Result) throws(ReportFile.OpenError) {
        writer.endArray()
        invalid.endArray()
        ignored.endArray()
        writer.key("invalid")
        writer.raw(invalid.take())
        writer.key("ignored")
        writer.raw(ignored.take())
        writer.key("folder")
        writer.beginObject()
        switch result.folder {
        case .usable:
            writer.field("verdict", "usable")
            writer.field("message", nil as String?)
        case .absent:
            writer.field("verdict", "absent")
            writer.field("message", "the cache folder does not exist")
        case .empty(let why):
            writer.field("verdict", "empty")
            writer.field("message", why)
        case .unusable(let why):
            writer.field("verdict", "unusable")
            writer.field("message", why)
        }
        writer.endObject()
        let totals = result.totals
        writer.key("totals")
        writer.beginObject()
        writer.field("keys", totals.keys)
        writer.field("hits", totals.hits)
        writer.field("stale", totals.stale)
        writer.field("misses", totals.missCount)
        writer.key("missesByReason")
        writer.beginObject()
        for reason in EntryMiss.allCases where totals.misses[reason, default: 0] > 0 {
            writer.field(reason.rawValue, totals.misses[reason, default: 0])
        }
        writer.endObject()
        writer.field("invalid", totals.invalid)
        writer.field("duplicates", totals.duplicates)
        writer.field("otherShard", totals.otherShard)
        writer.shardField(shard)
        writer.field("unsupported", totals.unsupported)
        writer.field("ignored", totals.ignored)
        writer.endObject()
        writer.field("allHit", result.allHit)
        writer.endObject()
        try file.finishDocument(writer.take(), embedded: embedded)
    }
}
