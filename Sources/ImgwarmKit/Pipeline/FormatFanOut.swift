import ImgwarmSystem

/// One run, several formats (`--cache-format a,b`; docs/usage.md, "Several formats"): the
/// formats are filled one after another, each by a `PrefetchJob` of its own, and this is what
/// they share so that each URL is requested once. The rule, decided when an entry of one format
/// misses and would be requested (`copy(of:into:)`):
///
/// 1. This run downloaded the URL already, for an earlier format (`SharedBodies`): the same
///    bytes and response are stored, no request. A format that stores the whole response
///    (OkHttp's `<key>.0`) takes it only from a format that kept the whole head: such formats
///    are filled first (`fillingOrder`).
/// 2. Another format's folder holds a hit for the key, and this format stores from the bytes
///    alone (not OkHttp's, Picasso's or Coil 1's response files, not flutter_cache_manager's
///    row, named and timed from the response's headers): that file's bytes, no request. Only a
///    format that keeps the image's bytes as they are is a source (not OkHttp's, possibly gzip).
/// 3. Otherwise the URL is requested, and its body kept for the formats after this one.
///
/// Copied bytes are validated again as any body is, and a copy that cannot be stored is
/// requested instead (`EntrySource.fallsBackToNetwork`).
public final class FormatFanOut: @unchecked Sendable {
    /// Every format's folder, in the order they are filled.
    public let locations: [CacheLocation]
    /// The bodies this run downloaded.
    public let shared: SharedBodies
    /// The other folders, opened when first asked (on the download loop's thread).
    private var sources: [String: CacheCopySource] = [:]
    /// `storesFromBytesAlone` of each folder, once asked.
    private var fromBytesAlone: [String: Bool] = [:]

    /// The formats of `locations`, filled in `fillingOrder`; bodies kept in `scratchFolder`.
    public init(locations: [CacheLocation], scratchFolder: String) throws(SystemError) {
        self.locations = FormatFanOut.fillingOrder(locations)
        shared = try SharedBodies(folder: scratchFolder)
    }

    /// The order the formats are filled in: those that send their own requests and keep whole
    /// responses (`RequestProfileFormat`: okhttp, picasso, coil1) first, so that the others can
    /// store what they fetched; the rest as given.
    public static func fillingOrder(_ locations: [CacheLocation]) -> [CacheLocation] {
        locations.filter { $0.format is any RequestProfileFormat }
            + locations.filter { !($0.format is any RequestProfileFormat) }
    }

    /// True when `location`'s format stores an entry from the image's bytes alone: it keeps
    /// nothing of the response (not OkHttp's, Picasso's or Coil 1's `<key>.0`, written from the
    /// whole exchange; not flutter_cache_manager's row, named and timed from the headers).
    static func storesFromBytesAlone(_ location: CacheLocation) -> Bool {
        if location.format is any RequestProfileFormat { return false }
        return !(location.makeIndex() is any EntryNamingIndex)
    }

    /// True when two formats' entries of the same bytes may be one file (a hard link): neither
    /// stamps a time on a stored file (Kingfisher's modification time is its expiry date,
    /// SDWebImage's the download's), both give a hit the same times (SDWebImage and Nuke its
    /// access time; PINCache and Fresco its modification time; the journal and database formats
    /// none), and both keep the image's bytes as they are (not OkHttp's, maybe gzip). A link has
    /// one set of times: with these rules, what one format's reader or trim does to them is what
    /// the other's would.
    static func mayShareFiles(_ one: any CacheFormat, _ other: any CacheFormat) -> Bool {
        guard !(one is any RequestProfileFormat), !(other is any RequestProfileFormat) else { return false }
        let now = Timestamp(seconds: 1_000_000_000)
        return one.timesOnStore(now: now) == FileTimes() && other.timesOnStore(now: now) == FileTimes()
            && one.timesOnHit(now: now) == other.timesOnHit(now: now)
    }

    /// What `entry`, a miss of `location`'s format about to be requested, is stored from
    /// instead, if anything (the rule above); nil: it is requested.
    func copy(of entry: PendingEntry, into location: CacheLocation) -> CopiedBody? {
        guard entry.source.isRequested, !entry.copyRefused else { return nil }
        let wholeResponse = location.format is any RequestProfileFormat
        if let kept = shared.find(entry.url), kept.format != location.format.name {
            guard !wholeResponse || kept.wholeHead else { return nil }
            // The first file of a format whose time rules agree with this one's, if any.
            let twin = kept.stored.first { stored in
                locations.first { $0.format.name == stored.format }.map {
                    FormatFanOut.mayShareFiles($0.format, location.format)
                } ?? false
            }
            return CopiedBody(format: kept.format, shared: kept.index, link: twin?.path)
        }
        let bytesAlone = fromBytesAlone[location.folder] ?? FormatFanOut.storesFromBytesAlone(location)
        fromBytesAlone[location.folder] = bytesAlone
        guard bytesAlone else { return nil }
        for other in locations where other.folder != location.folder {
            let source = sources[other.folder] ?? CacheCopySource(location: other)
            sources[other.folder] = source
            if let path = source.hit(forKey: entry.key) { return CopiedBody(format: other.format.name, path: path) }
        }
        return nil
    }
}
