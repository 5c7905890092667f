/// The JSON document `imgwarm clean --report` writes (schema: `docs/clean-report.schema.json`).
public struct CleanReport {
    public static let schemaVersion = 1

    public var location: CacheLocation
    public var configuration: CleanJob.Configuration
    public var result: DiskCache.CleanResult
    public var startedAt: Timestamp
    public var finishedAt: Timestamp

    public init(
        location: CacheLocation, configuration: CleanJob.Configuration, result: DiskCache.CleanResult,
        startedAt: Timestamp, finishedAt: Timestamp
    ) {
        self.location = location
        self.configuration = configuration
        self.result = result
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    /// Counts of removals by reason.
    public func count(_ reason: DiskCache.RemovalReason) -> Int {
        result.removed.reduce(0) { $0 + ($1.reason == reason ? 1 : 0) }
    }

    public func json(pretty: Bool = true) -> [UInt8] {
        var w = JSONWriter(pretty: pretty, capacity: 256 + result.removed.count * 200)
        let policy = configuration.policy
        w.beginObject()
        w.reportHeader(schemaVersion: CleanReport.schemaVersion, command: "clean", cacheFolder: location.folder)
        w.field("folderExists", result.folderExists)
        w.key("options")
        w.beginObject()
        w.field("expireType", policy.expireType.rawValue)
        w.key("maxAgeSeconds")
        if let maxAge = policy.maxAge.seconds { w.double(maxAge) } else { w.null() }
        w.field("maxSizeBytes", policy.maxSize)
        w.field("all", policy.removeAll)
        w.field("dryRun", configuration.dryRun)
        w.endObject()
        w.field("startedAt", startedAt.iso8601)
        w.field("finishedAt", finishedAt.iso8601)
        w.field("durationSeconds", finishedAt.secondsSinceEpoch - startedAt.secondsSinceEpoch)
        w.key("before")
        CleanReport.write(result.before, to: &w)
        w.key("after")
        CleanReport.write(result.after, to: &w)
        w.key("totals")
        w.beginObject()
        w.field("removedFiles", result.removed.count)
        w.field("removedLogicalBytes", result.removed.reduce(UInt64(0)) { $0 + $1.entry.logicalSize })
        w.field("removedAllocatedBytes", result.removed.reduce(UInt64(0)) { $0 + $1.entry.allocatedSize })
        w.field("expired", count(.expired))
        w.field("trimmed", count(.trimmed))
        w.field("cleared", count(.cleared))
        w.field("failed", result.failures.count)
        w.endObject()
        w.key("removed")
        w.beginArray()
        for removal in result.removed {
            w.beginObject()
            w.field("name", removal.entry.name)
            w.field("kind", removal.entry.kind.rawValue)
            w.field("logicalBytes", removal.entry.logicalSize)
            w.field("allocatedBytes", removal.entry.allocatedSize)
            w.field("date", removal.entry.date.iso8601)
            w.field("reason", removal.reason.rawValue)
            w.endObject()
        }
        w.endArray()
        w.key("failures")
        w.beginArray()
        for failure in result.failures {
            w.beginObject()
            w.field("name", failure.entry.name)
            w.field("message", failure.message)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }

    static func write(_ totals: DiskTotals, to w: inout JSONWriter) {
        w.beginObject()
        w.field("entries", totals.entries)
        w.field("logicalBytes", totals.logicalBytes)
        w.field("allocatedBytes", totals.allocatedBytes)
        w.endObject()
    }
}
