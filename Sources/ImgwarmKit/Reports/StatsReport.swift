/// The JSON document `imgwarm stats --json` prints (schema: `docs/stats.schema.json`): it renders
/// what `StatsJob` gathered, and reads nothing itself.
public struct StatsReport {
    public static let schemaVersion = 1

    public var location: CacheLocation
    public var expireType: ExpireType
    public var statistics: DiskCache.Statistics
    public var state: StateStore.Summary

    public init(
        location: CacheLocation, expireType: ExpireType, statistics: DiskCache.Statistics, state: StateStore.Summary
    ) {
        self.location = location
        self.expireType = expireType
        self.statistics = statistics
        self.state = state
    }

    public func json(pretty: Bool = true) -> [UInt8] {
        let stats = statistics
        var w = JSONWriter(pretty: pretty)
        w.beginObject()
        w.reportHeader(
            schemaVersion: StatsReport.schemaVersion, command: "stats", cacheFolder: location.folder,
            cacheFormat: location.format.name)
        w.field("folderExists", stats.exists)
        w.key("totals")
        w.beginObject()
        w.field("totalDiskCount", stats.totals.entries)
        w.field("totalDiskSize", stats.totals.logicalBytes)
        w.field("allocatedBytes", stats.totals.allocatedBytes)
        w.field("cacheFiles", stats.files)
        w.field("hiddenEntries", stats.hiddenEntries)
        w.field("directories", stats.directories)
        w.field("symlinks", stats.symlinks)
        w.endObject()
        w.key("cacheEntries")
        w.beginObject()
        w.field("entries", stats.formatEntries)
        w.field("foreignFiles", stats.foreignFiles)
        w.key("expired")
        if let expired = stats.expiredEntries { w.int(expired) } else { w.null() }
        w.endObject()
        w.key("formats")
        w.beginObject()
        for (format, count) in stats.formats.sorted(by: { $0.key < $1.key }) {
            w.field(format, count)
        }
        w.endObject()
        w.key("dates")
        w.beginObject()
        w.field("expireType", expireType.rawValue)
        w.field("oldest", stats.oldest?.iso8601)
        w.field("newest", stats.newest?.iso8601)
        w.endObject()
        w.key("state")
        w.beginObject()
        w.field("path", state.path)
        w.field("exists", state.exists)
        w.field("trackedKeys", state.trackedKeys)
        w.field("staleRows", state.staleRows)
        w.field("blacklisted", state.blacklisted)
        w.key("lastRun")
        if let run = state.lastRun {
            w.beginObject()
            w.field("command", run.command)
            w.field("startedAt", Timestamp(seconds: Int64(run.startedAt)).iso8601)
            w.field("finishedAt", Timestamp(seconds: Int64(run.finishedAt)).iso8601)
            w.field("lines", run.totals.lines)
            w.field("downloaded", run.totals.downloaded)
            w.field("cached", run.totals.cached)
            w.field("failed", run.totals.failed)
            w.field("blacklisted", run.totals.blacklisted)
            w.field("interrupted", run.interrupted)
            w.endObject()
        } else {
            w.null()
        }
        w.endObject()
        w.endObject()
        return w.bytes
    }
}
