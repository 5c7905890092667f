import ImgwarmSystem

/// The manifest of a pack (docs/pack-manifest.schema.json): what the archive holds, for `push`'s
/// check of what arrived and for a user's diff. It names no local path and no time of packing,
/// so the same cache gives the same manifest. A file's key comes from imgwarm's state database
/// beside the cache, where it records the entry. With several caches, `format`, `library` and
/// `folder` are the first's, and `caches` lists each one's, in the order given.
enum PackManifest {
    static func document(
        members: [PackJob.Member], keys: [String: String], platform: AppContainer.Platform,
        caches: [(location: CacheLocation, containerFolder: String)]
    ) -> [UInt8] {
        let (location, containerFolder) = caches[0]
        var json = JSONWriter(pretty: true)
        json.beginObject()
        json.field("schemaVersion", 1)
        json.key("tool")
        json.beginObject()
        json.field("name", "imgwarm")
        json.field("version", ImgwarmVersion.current)
        json.endObject()
        json.field("command", "pack")
        json.field("platform", platform.rawValue)
        json.field("format", location.format.name)
        json.field("library", location.format.library)
        json.field("folder", containerFolder)
        if caches.count > 1 {
            json.key("caches")
            json.beginArray()
            for cache in caches {
                json.beginObject()
                json.field("format", cache.location.format.name)
                json.field("library", cache.location.format.library)
                json.field("folder", cache.containerFolder)
                json.endObject()
            }
            json.endArray()
        }
        json.key("files")
        json.beginArray()
        var bytes: UInt64 = 0
        var count = 0
        for member in members where !member.isFolder {
            json.beginObject()
            json.field("path", member.path)
            // The key whose entry this file is, where imgwarm's state records it (passwords hidden).
            if let key = keys[member.path] { json.field("key", Redaction.redact(key)) }
            json.field("size", member.info.size)
            json.field("mtime", PaxArchive.time(member.info.modified))
            json.field("atime", PaxArchive.time(member.info.accessed))
            json.endObject()
            bytes += member.info.size
            count += 1
        }
        json.endArray()
        json.key("totals")
        json.beginObject()
        json.field("files", count)
        json.field("bytes", bytes)
        json.endObject()
        json.endObject()
        return json.take() + [UInt8(ascii: "\n")]
    }
}
