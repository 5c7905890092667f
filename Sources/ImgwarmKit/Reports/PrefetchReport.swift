/// Writes the JSON document of `imgwarm prefetch --report` as the run goes: the header first
/// (once the lists are open and their formats known, `listsOpened`, or with the first entry),
/// then one entry per list line as it finishes, the totals last. Schema:
/// `docs/prefetch-report.schema.json`; the key order below is the documented one.
public final class PrefetchReport {
    public static let schemaVersion = 1

    private let file: ReportFile
    private var writer: JSONWriter
    private var entries = 0
    /// The header, until it is written.
    private var header: Header?

    /// Options recorded in the report header (the ones that change what a run does).
    public struct Header: Sendable {
        public var cacheFolder: String
        /// The cache format's name (`CacheFormat.name`), e.g. `sdwebimage`.
        public var cacheFormat: String
        public var inputs: [ListSource]
        public var options: [(String, OptionValue)]
        public var startedAt: Timestamp
        public var dryRun: Bool
        /// The run's shard, which `totals.shard` describes; nil without `--shard`.
        public var shard: Shard?
        /// One of several formats' documents (`SeveralDocuments`): embedded (no line feed, no
        /// commit). False by default.
        public var severalFormats = false
        /// Entries may be copied from another cache (several formats, `--from-cache`):
        /// `totals.copied` (and `wouldCopy`) are written. False by default.
        public var copies = false

        public init(
            cacheFolder: String, cacheFormat: String, inputs: [ListSource], options: [(String, OptionValue)],
            startedAt: Timestamp, dryRun: Bool, shard: Shard? = nil
        ) {
            self.shard = shard
            self.cacheFolder = cacheFolder
            self.cacheFormat = cacheFormat
            self.inputs = inputs
            self.options = options
            self.startedAt = startedAt
            self.dryRun = dryRun
        }
    }

    public enum OptionValue: Sendable {
        case int(Int)
        case double(Double)
        case string(String?)
        case bool(Bool)
        case strings([String])
    }

    /// `totals.shard`, written at the end (the header is written at the first entry).
    private let shard: Shard?
    /// `Header.severalFormats`, `Header.copies`.
    private let severalFormats: Bool
    private let copies: Bool

    public init(file: ReportFile, header: Header) {
        self.file = file
        self.header = header
        shard = header.shard
        severalFormats = header.severalFormats
        copies = header.copies || header.severalFormats
        writer = JSONWriter(pretty: false, capacity: 1 << 16)
    }

    /// The lists as they were opened: a list read as a HAR by its content is `har` in `inputs`.
    /// Before the first entry only (a later call changes nothing).
    public func listsOpened(_ inputs: [ListSource]) {
        header?.inputs = inputs
    }

    private func writeHeader() {
        guard let header else { return }
        self.header = nil
        writer.beginObject()
        writer.reportHeader(
            schemaVersion: PrefetchReport.schemaVersion, command: "prefetch", cacheFolder: header.cacheFolder,
            cacheFormat: header.cacheFormat)
        writer.field("dryRun", header.dryRun)
        writer.key("inputs")
        writer.beginArray()
        for (index, input) in header.inputs.enumerated() {
            writer.beginObject()
            writer.field("index", index)
            writer.field("path", input.path)
            writer.field("format", input.effectiveFormat.rawValue)
            writer.field("priority", input.priority.rawValue)
            writer.endObject()
        }
        writer.endArray()
        writer.key("options")
        writer.beginObject()
        for (name, value) in header.options {
            writer.key(name)
            switch value {
            case .int(let number): writer.int(number)
            case .double(let number): writer.double(number)
            case .string(let text): writer.string(text)
            case .bool(let flag): writer.bool(flag)
            case .strings(let texts):
                writer.beginArray()
                for text in texts { writer.string(text) }
                writer.endArray()
            }
        }
        writer.endObject()
        writer.field("startedAt", header.startedAt.iso8601)
        writer.key("entries")
        writer.beginArray()
    }

    /// Appends one entry (passwords in URLs are hidden).
    public func add(_ result: EntryResult) {
        writeHeader()
        writer.beginObject()
        writer.field("line", result.line)
        writer.field("input", result.input)
        writer.field("url", Redaction.redact(result.url))
        writer.field("key", Redaction.redact(result.key))
        writer.field("fileName", result.fileName)
        writer.field("outcome", result.outcome.rawValue)
        writer.field("priority", result.priority?.rawValue)
        writer.field("httpStatus", result.httpStatus)
        writer.field("bytes", result.bytes)
        writer.field("format", result.format?.rawValue)
        writer.field("width", result.width)
        writer.field("height", result.height)
        writer.field("attempts", result.attempts)
        writer.field("durationSeconds", result.duration)
        writer.field("errorClass", result.failure?.reason.rawValue)
        writer.key("errorKind")
        if let failure = result.failure, result.outcome == .failed || result.outcome == .blacklisted {
            writer.string(failure.isTransient ? "transient" : "permanent")
        } else if result.outcome == .invalid || result.outcome == .noBody {
            writer.string("permanent")
        } else {
            writer.null()
        }
        writer.field("errorMessage", result.failure.map { Redaction.redact($0.message) })
        if let from = result.copiedFrom { writer.field("copiedFrom", from) }
        writer.endObject()
        entries += 1
        if writer.bytes.count >= 1 << 16 { file.write(writer.take()) }
    }

    /// Writes the totals and closes the document; the file appears complete only now. `error` is
    /// the run-level problem that ended the run, if one did.
    public func finish(
        totals: PrefetchTotals, finishedAt: Timestamp, startedAt: Timestamp, interrupted: Bool, error: String? = nil,
        hosts: [HostFigures] = [], listCut: ListCut? = nil
    ) throws(ReportFile.OpenError) {
        writeHeader()
        writer.endArray()
        writer.field("finishedAt", finishedAt.iso8601)
        writer.field("durationSeconds", finishedAt.secondsSinceEpoch - startedAt.secondsSinceEpoch)
        writer.field("interrupted", interrupted)
        writer.key("listCut")
        if let listCut {
            writer.beginObject()
            writer.field("input", listCut.input)
            writer.field("path", listCut.path)
            writer.field("linesRead", listCut.linesRead)
            writer.key("inputsNotRead")
            writer.beginArray()
            for input in listCut.inputsNotRead { writer.int(input) }
            writer.endArray()
            writer.endObject()
        } else {
            writer.null()
        }
        writer.field("error", error)
        writer.key("totals")
        writer.beginObject()
        writer.field("lines", totals.lines)
        writer.field("finishedCount", totals.finishedCount)
        writer.field("skippedCount", totals.skippedCount)
        writer.field("downloaded", totals.downloaded)
        if copies { writer.field("copied", totals.copied) }
        writer.field("cached", totals.cached)
        writer.field("revalidated", totals.revalidated)
        writer.field("failed", totals.failed)
        writer.field("blacklisted", totals.blacklisted)
        writer.field("invalid", totals.invalid)
        writer.field("duplicates", totals.duplicates)
        writer.field("wouldFetch", totals.wouldFetch)
        if copies { writer.field("wouldCopy", totals.wouldCopy) }
        writer.field("notStarted", totals.notStarted)
        writer.field("interrupted", totals.interrupted)
        writer.field("noBody", totals.noBody)
        writer.field("unsupported", totals.unsupported)
        writer.field("otherShard", totals.otherShard)
        writer.shardField(shard)
        writer.field("notImages", totals.notImages)
        writer.field("bytesReceived", totals.bytesReceived)
        writer.key("errorClasses")
        writer.beginObject()
        for (name, count) in totals.errorClasses.sorted(by: { $0.key < $1.key }) { writer.field(name, count) }
        writer.endObject()
        writer.endObject()
        writer.key("hosts")
        writer.beginArray()
        for host in hosts {
            writer.beginObject()
            writer.field("host", Redaction.redact(host.host))
            writer.field("requests", host.requests)
            writer.field("http2", host.multiplexes)
            writer.field("finalLimit", host.finalLimit)
            writer.field("peakLimit", host.peakLimit)
            writer.key("medianLatencySeconds")
            if let median = host.medianLatency { writer.double(median, digits: 4) } else { writer.null() }
            writer.field("unavailable", host.unavailable)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        try file.finishDocument(writer.take(), embedded: severalFormats)
    }
}
