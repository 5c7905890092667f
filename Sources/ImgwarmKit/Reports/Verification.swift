import ImgwarmSystem

/// What `imgwarm verify` finds (its job in Pipeline finds it, `VerifyReport` and the CLI render it): one
/// check per key, the lines and entries that name none, the counts and the folder's verdict.
public enum Verification {
    /// One key (or, without lists, one entry of the folder) and what the library's reader makes of it.
    public struct Check: Sendable, Equatable {
        /// The list (its index in `sources`) and line the key came from; nil without lists.
        public var input: Int?
        public var line: Int?
        /// The URL of the line; nil without lists.
        public var url: String?
        /// The cache key; nil without lists (a file name does not tell its key).
        public var key: String?
        /// The entry's file name in the cache folder.
        public var fileName: String
        /// Hit (with the file's size) or miss (with the reason).
        public var read: EntryRead
        /// The image format of a hit's bytes (nil for a miss, or a file judged by size alone).
        public var imageFormat: ImageFormat?
        /// Why the bytes are not an image, or why the file cannot be read; for a hit or a stale
        /// entry, what the library does with it (OkHttp: whether it serves it offline); nil otherwise.
        public var detail: String?
        /// For a file the library finds but does not serve without the network (OkHttp's
        /// `CacheStrategy` finds it stale): the instant it stopped being fresh; nil otherwise.
        public var staleSince: Timestamp?
        /// Why the library decodes the line's image only with a plugin (a HAR entry recorded as an
        /// SVG), for such a line whose file is not there (or not an image): its verdict is
        /// `unsupported`, not a miss. nil otherwise.
        public var unsupported: String?

        /// The three answers `verify` gives of a key.
        public enum Verdict: String, Sendable, CaseIterable {
            /// The library serves the file.
            case hit
            /// The library finds the file but goes to the network for it (it is stale).
            case stale
            /// The library does not find (or cannot read) it.
            case miss
        }

        public var verdict: Verdict {
            guard case .hit = read else { return .miss }
            return staleSince == nil ? .hit : .stale
        }

        public var isHit: Bool { verdict == .hit }

        /// A miss that counts as one: neither a hit nor stale, and not an `unsupported` line.
        public var isMiss: Bool { verdict == .miss && unsupported == nil }
    }

    /// A line of a list that names no key to check.
    public struct InvalidLine: Sendable, Equatable {
        public var input: Int
        public var line: Int
        /// The line's text, credentials hidden, cut short (`ListLine`).
        public var text: String
        public var reason: String
    }

    /// An entry of the folder that is not one of the format's entries (without lists).
    public struct IgnoredEntry: Sendable, Equatable {
        public enum Reason: String, Sendable, CaseIterable {
            /// Its name starts with `.`.
            case hidden
            /// Its name does not have the shape of the format's entry names.
            case notAnEntryName = "not-an-entry-name"
        }

        public var name: String
        public var kind: FileStatus.Kind
        public var reason: Reason
    }

    /// What a verify tells its caller as it goes, in list (or directory) order.
    public enum Event: Sendable {
        case checked(Check)
        case invalid(InvalidLine)
        case ignored(IgnoredEntry)
    }

    /// The counts of a run.
    public struct Totals: Sendable, Equatable {
        /// Keys checked (each key once).
        public var keys = 0
        public var hits = 0
        /// Files the library finds but does not serve without the network (`Verdict.stale`).
        public var stale = 0
        /// Misses by reason.
        public var misses: [EntryMiss: Int] = [:]
        public var invalid = 0
        /// Lines whose key an earlier line had (checked once).
        public var duplicates = 0
        /// Lines of other shards (not checked).
        public var otherShard = 0
        /// Keys of `unsupported` lines (counted in `keys`, not among the misses).
        public var unsupported = 0
        /// Entries of the folder that are not the format's (without lists).
        public var ignored = 0

        public var missCount: Int { misses.values.reduce(0, +) }
    }

    /// What a run found.
    public struct Result: Sendable {
        public var totals: Totals
        /// Whether the library would use the folder.
        public var folder: FolderVerdict
        /// True when keys came from lists; false when the folder's entries were judged.
        public var fromLists: Bool

        /// True when every key hits (none stale), no line was invalid and the folder is usable.
        public var allHit: Bool {
            folder == .usable && totals.missCount == 0 && totals.stale == 0 && totals.invalid == 0
        }
        /// The folder's entries (the index's listed ones for a format with an index), counted only
        /// when most keys of the lists were not found: a folder full of entries that the keys do
        /// not name is one whose keys another rule made (`imgwarm keys detect`).
        public var folderEntries: Int?

        public init(totals: Totals, folder: FolderVerdict, fromLists: Bool, folderEntries: Int? = nil) {
            (self.totals, self.folder, self.fromLists, self.folderEntries) = (totals, folder, fromLists, folderEntries)
        }

        /// True when most keys were not found though the folder holds at least half as many
        /// entries as keys were checked: the keys likely differ from the app's.
        public var keysLikelyDiffer: Bool {
            let notFound = (totals.misses[.absent] ?? 0) + (totals.misses[.notIndexed] ?? 0)
            guard let folderEntries, totals.keys >= 4, notFound * 2 > totals.keys else { return false }
            return folderEntries * 2 >= totals.keys
        }
    }

}
