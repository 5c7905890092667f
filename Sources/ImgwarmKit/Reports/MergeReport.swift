import ImgwarmSystem

/// Writes the JSON document `imgwarm merge --report` writes (schema:
/// `docs/merge-report.schema.json`) as the merge goes: the header first, one `entries` item per
/// entry of a source as it is merged, the totals last. Entries are not held.
public final class MergeReport {
    public static let schemaVersion = 1

    private let file: ReportFile
    private var writer: JSONWriter

    /// Writes the header of a merge of the folders `sources` into `location` (a dry run when `dryRun`).
    public init(file: ReportFile, location: CacheLocation, sources: [String], dryRun: Bool, startedAt: Timestamp) {
        self.file = file
        writer = JSONWriter(pretty: false, capacity: 1 << 16)
        writer.beginObject()
        writer.reportHeader(
            schemaVersion: MergeReport.schemaVersion, command: "merge", cacheFolder: location.folder,
            cacheFormat: location.format.name)
        writer.key("sources")
        writer.beginArray()
        for source in sources { writer.string(source) }
        writer.endArray()
        writer.field("dryRun", dryRun)
        writer.field("startedAt", startedAt.iso8601)
        writer.key("entries")
        writer.beginArray()
    }

    /// Appends one entry of source number `source` (0-based, in the order given): its `name` in
    /// the folder, its `outcome` (`added`, `replaced`, `kept`, `unchanged`, `skipped`), whether the
    /// destination held another copy, its size, its clock, and why it was skipped.
    public func add(
        source: Int, name: String, outcome: String, conflict: Bool, size: UInt64, clock: Timestamp?, detail: String?
    ) {
        writer.beginObject()
        writer.field("source", source)
        writer.field("name", name)
        writer.field("outcome", outcome)
        writer.field("conflict", conflict)
        writer.field("bytes", size)
        writer.key("clock")
        if let clock { writer.string(clock.iso8601) } else { writer.null() }
        if let detail { writer.field("reason", detail) }
        writer.endObject()
        if writer.bytes.count >= 1 << 16 { file.write(writer.take()) }
    }

    /// Writes the totals (each count by its name, in the order given) and closes the document;
    /// the file appears complete only now.
    public func finish(totals: [(name: String, value: UInt64)], finishedAt: Timestamp) throws(ReportFile.OpenError) {
        writer.endArray()
        writer.field("finishedAt", finishedAt.iso8601)
        writer.key("totals")
        writer.beginObject()
        for total in totals { writer.field(total.name, total.value) }
        writer.endObject()
        writer.endObject()
        file.write(writer.take())
        try file.commit()
    }
}
