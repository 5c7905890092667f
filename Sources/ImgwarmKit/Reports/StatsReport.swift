/// The JSON document `imgwarm stats --json` prints (schema: `docs/stats.schema.json`).
public struct StatsReport {
    public static let schemaVersion = 1

    public var location: CacheLocation
    public var expireType: ExpireType
    public var statistics: DiskCache.Statistics

    public init(location: CacheLocation, expireType: ExpireType, statistics: DiskCache.Statistics) {
        self.location = location
        self.expireType = expireType
        self.statistics = statistics
    }

    public func json(pretty: Bool = true) -> [UInt8] {
        let stats = statistics
        var w = JSONWriter(pretty: pretty)
        w.beginObject()
        w.field("schemaVersion", StatsReport.schemaVersion)
        w.key("tool")
        w.beginObject()
        w.field("name", "imgwarm")
        w.field("version", ImgwarmVersion.current)
        w.endObject()
        w.field("command", "stats")
        w.field("cacheFolder", location.folder)
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
        w.endObject()
        return w.bytes
    }
}
