/// Writes the JSON document `imgwarm clean --report` writes (schema:
/// `docs/clean-report.schema.json`) as the clean goes: the header first, one `removed` entry per
/// removal as it happens, then the failures, the totals last. Removals are not held: memory does
/// not grow with them. Failures are kept (as JSON text) until `finish`, since their array follows.
public final class CleanReport {
    public static let schemaVersion = 1

    private let file: ReportFile
    private var writer: JSONWriter
    private var failures: JSONWriter
    /// True when this document is one of several in the file (`SeveralDocuments`), which
    /// commits the file; false: `finish` commits it.
    private let embedded: Bool

    /// Writes the header of a clean of `location` under `policy` (a dry run when `dryRun`).
    public init(
        file: ReportFile, location: CacheLocation, policy: DiskCache.CleanPolicy, dryRun: Bool, startedAt: Timestamp,
        embedded: Bool = false
    ) {
        self.file = file
        self.embedded = embedded
        writer = JSONWriter(pretty: false, capacity: 1 << 16)
        failures = JSONWriter(pretty: false, capacity: 256)
        writer.beginObject()
        writer.reportHeader(
            schemaVersion: CleanReport.schemaVersion, command: "clean", cacheFolder: location.folder,
            cacheFormat: location.format.name)
        writer.key("options")
        writer.beginObject()
        writer.field("expireType", policy.expireType.rawValue)
        writer.key("maxAgeSeconds")
        if let maxAge = policy.maxAge.seconds { writer.double(maxAge) } else { writer.null() }
        writer.field("maxSizeBytes", policy.maxSize)
        writer.field("all", policy.removeAll)
        writer.field("dryRun", dryRun)
        writer.endObject()
        writer.field("startedAt", startedAt.iso8601)
        writer.key("removed")
        writer.beginArray()
        failures.beginArray()
    }

    /// Appends one removal or failure.
    public func add(_ event: DiskCache.CleanEvent) {
        switch event {
        case .removed(let removal):
            writer.beginObject()
            writer.field("name", removal.entry.name)
            writer.field("kind", removal.entry.kind.rawValue)
            writer.field("logicalBytes", removal.entry.logicalSize)
            writer.field("allocatedBytes", removal.entry.allocatedSize)
            writer.field("date", removal.entry.date.iso8601)
            writer.field("reason", removal.reason.rawValue)
            writer.endObject()
            if writer.bytes.count >= 1 << 16 { file.write(writer.take()) }
        case .failed(let failure):
            failures.beginObject()
            failures.field("name", failure.entry.name)
            failures.field("message", failure.message)
            failures.endObject()
        }
    }

    /// Writes the failures and the totals and closes the document; the file appears complete
    /// only now.
    public func finish(_ result: DiskCache.CleanResult, startedAt: Timestamp, finishedAt: Timestamp)
        throws(ReportFile.OpenError)
    {
        closeRemovals()
        writer.field("folderExists", result.folderExists)
        writer.field("finishedAt", finishedAt.iso8601)
        writer.field("durationSeconds", finishedAt.secondsSinceEpoch - startedAt.secondsSinceEpoch)
        writer.key("before")
        CleanReport.write(result.before, to: &writer)
        writer.key("after")
        CleanReport.write(result.after, to: &writer)
        writer.key("totals")
        writer.beginObject()
        writer.field("removedFiles", result.removedCount)
        writer.field("removedLogicalBytes", result.removedLogicalBytes)
        writer.field("removedAllocatedBytes", result.removedAllocatedBytes)
        writer.field("expired", result.expired)
        writer.field("trimmed", result.trimmed)
        writer.field("cleared", result.cleared)
        writer.field("failed", result.failed)
        writer.field("skipped", result.skipped)
        writer.endObject()
        writer.endObject()
        try file.finishDocument(writer.take(), embedded: embedded, lineFeed: false)
    }

    /// Closes the document of a clean that a run-level error ended (one of several formats'
    /// documents, `SeveralDocuments`, the others going on): the removals made so far, the
    /// failures, and `error`, the message that ended it.
    public func fail(_ error: String) {
        closeRemovals()
        writer.field("error", error)
        writer.endObject()
        file.write(writer.take())
    }

    /// Ends `removed` and writes `failures`.
    private func closeRemovals() {
        writer.endArray()
        failures.endArray()
        writer.key("failures")
        writer.raw(failures.take())
    }

    static func write(_ totals: DiskTotals, to w: inout JSONWriter) {
        w.beginObject()
        w.field("entries", totals.entries)
        w.field("logicalBytes", totals.logicalBytes)
        w.field("allocatedBytes", totals.allocatedBytes)
        w.endObject()
    }
}
