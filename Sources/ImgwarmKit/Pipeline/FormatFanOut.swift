import ImgwarmSystem

/// One run, several formats (`--cache-format a,b`; docs/usage.md, "Several formats in one
/// prefetch"), or seeded from another cache (`--from-cache`; "Seeding from another cache"): the
/// formats are filled one after another, each by a `PrefetchJob` of its own, and this is what
/// they share so that each URL is requested once, or not at all. The rule, decided when an entry
/// of one format misses and would be requested (`copy(of:into:)`):
///
/// 1. This run downloaded the URL already, for an earlier format (`SharedBodies`): the same
///    bytes and response are stored, no request. A format that stores the whole response
///    (OkHttp's `<key>.0`) takes it only from a format that kept the whole head: such formats
///    are filled first (`fillingOrder`).
/// 2. `--from-cache` holds a hit for the key, then another format's folder of the run does, and
///    this format stores from the bytes alone (not OkHttp's, Picasso's or Coil 1's response files, not flutter_cache_manager's
///    row, named and timed from the response's headers): that file's bytes, no request. Only a
///    format that keeps the image's bytes as they are is a source (not OkHttp's, possibly gzip).
/// 3. Otherwise the URL is requested, and its body kept for the formats after this one.
///
/// A cache's copy is validated as any body is (this run's downloads were, once), and one that
/// cannot be stored is requested instead (`EntrySource.fallsBackToNetwork`); under `--offline`
/// an entry with no recorded body takes a cache's copy, else ends `no-body`. A cache's file
/// keeps its times where they mean the same in both formats (`timesCarry`).
public final class FormatFanOut: @unchecked Sendable {
    /// Every format's folder, in the order they are filled.
    public let locations: [CacheLocation]
    /// `--from-cache`: the folders read for copies before the formats' own, never written.
    public let sources: [CacheLocation]
    /// The bodies this run downloaded.
    public let shared: SharedBodies
    /// The folders copies are read from, opened when first asked (on the download loop's thread).
    private var opened: [String: CacheCopySource] = [:]
    /// `storesFromBytesAlone` of each folder, once asked.
    private var fromBytesAlone: [String: Bool] = [:]

    /// The formats of `locations`, filled in `fillingOrder`, copies read first from `sources`
    /// (`--from-cache`); bodies kept in `scratchFolder`.
    public init(locations: [CacheLocation], sources: [CacheLocation] = [], scratchFolder: String) throws(SystemError) {
        self.locations = FormatFanOut.fillingOrder(locations)
        self.sources = sources
        shared = try SharedBodies(folder: scratchFolder)
    }

    /// The folder of `source` for copies (`--from-cache`): nil when it does not exist or cannot
    /// be opened as a folder; refuses nothing else (each entry is judged when asked).
    public static func sourceExists(_ source: CacheLocation) -> Bool { CacheCopySource(location: source).exists }

    /// True when a file of `source`'s format keeps its times in `target`'s: both formats give a
    /// stored file and a hit the same times (an expiry stays an expiry, Kingfisher 7's in
    /// Kingfisher 8's; a download time a download time, SDWebImage's in Nuke's). Otherwise the
    /// target gives the file its own (`timesOnStore`).
    static func timesCarry(from source: any CacheFormat, to target: any CacheFormat) -> Bool {
        let now = Timestamp(seconds: 1_000_000_000)
        return source.timesOnStore(now: now) == target.timesOnStore(now: now)
            && source.timesOnHit(now: now) == target.timesOnHit(now: now)
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
    /// SDWebImage's the download's), both keep the image's bytes as they are (not OkHttp's, maybe
    /// gzip), and what one's hit does to the file's times is what the other's does, or nothing
    /// the other reads: SDWebImage and Nuke set the access time, PINCache and Fresco the
    /// modification time, and the formats whose index decides (Glide, Coil, flutter_cache_manager)
    /// set and read none, so they share with any of these. A link has one set of times: with
    /// these rules, no format's reader or trim sees a time another format moved.
    static func mayShareFiles(_ one: any CacheFormat, _ other: any CacheFormat) -> Bool {
        guard one.keepsImageBytes, other.keepsImageBytes else { return false }
        let now = Timestamp(seconds: 1_000_000_000)
        guard one.timesOnStore(now: now) == FileTimes(), other.timesOnStore(now: now) == FileTimes() else {
            return false
        }
        let (oneHit, otherHit) = (one.timesOnHit(now: now), other.timesOnHit(now: now))
        return oneHit == otherHit || oneHit == FileTimes() || otherHit == FileTimes()
    }

    /// What `entry`, a miss of `location`'s format about to be requested, is stored from
    /// instead, if anything (the rule above); nil: it is requested.
    func copy(of entry: PendingEntry, into location: CacheLocation) -> CopiedBody? {
        // A request, or under --offline an entry with nothing recorded to store.
        guard entry.source.isRequested || entry.source.failureBeforeReading != nil, !entry.copyRefused else {
            return nil
        }
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
        for other in sources + locations where other.folder != location.folder {
            let source = opened[other.folder] ?? CacheCopySource(location: other)
            opened[other.folder] = source
            guard let hit = source.hit(forKey: entry.key) else { continue }
            let carry = FormatFanOut.timesCarry(from: other.format, to: location.format)
            return CopiedBody(
                format: other.format.name, folder: other.folder, name: hit.name,
                times: carry ? FileTimes(access: .set(hit.accessed), modification: .set(hit.modified)) : nil)
        }
        return nil
    }
}
