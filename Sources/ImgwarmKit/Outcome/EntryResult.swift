/// How one list line ended (the `outcome` of a report entry).
public enum Outcome: String, Codable, Sendable, CaseIterable {
    /// Downloaded, validated and stored.
    case downloaded
    /// Several formats in one run: stored from another format's bytes of the same URL (this
    /// run's download for it, or its cached file), validated, with no request of its own.
    case copied
    /// Already in the cache: no request; its access time was set.
    case cached
    /// `--refresh`: the server answered 304 Not Modified; the file was kept.
    case revalidated
    /// Failed (the entry has the error class and message).
    case failed
    /// Skipped without a request: an earlier run put the URL on the blacklist.
    case blacklisted
    /// Not a URL imgwarm fetches (the line number and reason are reported).
    case invalid
    /// The same key appeared on an earlier line: fetched once, counted again here.
    case duplicate
    /// `--dry-run`: would be requested.
    case wouldFetch = "would-fetch"
    /// `--dry-run`: would be stored from another cache's copy (`copied`), with no request.
    case wouldCopy = "would-copy"
    /// The run was interrupted before this URL started (it was still queued, or waiting for a
    /// retry or for its host).
    case notStarted = "not-started"
    /// The run was interrupted while this URL was downloading: the transfer was abandoned and
    /// nothing was stored.
    case interrupted
    /// `--offline`: nothing to store, no request made (a HAR entry without a usable recorded
    /// body, a plain URL line); the entry has the reason. Not blacklisted.
    case noBody = "no-body"
    /// An image the app's library decodes only with a plugin (an SVG, without `--accept-svg`):
    /// not stored, not requested when a HAR capture said what it is; the entry has the reason.
    /// Not a failure: not blacklisted, not in `skippedCount`, no change to the exit status.
    case unsupported

    /// In the cache at the end of the run.
    public var isInCache: Bool {
        self == .downloaded || self == .copied || self == .cached || self == .revalidated
    }

    /// How a line that ends with `failure` ends: `no-body` and `unsupported` have outcomes of
    /// their own, every other failure is `failed` (the run's `PrefetchRecorder` and the dry run).
    init(finalFailure failure: Failure) {
        switch failure.reason {
        case .noBody: self = .noBody
        case .unsupported: self = .unsupported
        default: self = .failed
        }
    }
}

/// The result of one list line, as the report and the console show it.
public struct EntryResult: Sendable {
    public var line: Int
    /// Index of the list among the run's sources.
    public var input: Int
    /// The URL fetched, exactly as given; for an invalid line, its text (printing code redacts
    /// passwords).
    public var url: String
    /// The cache key: the line's explicit key, else the URL through the key filters (the URL by
    /// default).
    public var key: String
    public var fileName: String?
    public var outcome: Outcome
    public var priority: Priority?
    public var httpStatus: Int?
    public var bytes: Int?
    public var format: ImageFormat?
    public var width: Int?
    public var height: Int?
    public var attempts = 0
    public var duration = 0.0
    public var failure: Failure?
    /// `copied`: the format whose bytes were stored (several formats in one run).
    public var copiedFrom: String?

    /// A result whose key is `key`, or the URL itself when nil.
    public init(line: Int, input: Int, url: String, key: String? = nil, outcome: Outcome) {
        self.line = line
        self.input = input
        self.url = url
        self.key = key ?? url
        self.outcome = outcome
    }

    /// The result of `entry`: its place, URL, key, priority and (when known) file name.
    public init(_ entry: PendingEntry, outcome: Outcome) {
        self.init(line: entry.line, input: entry.input, url: entry.url, key: entry.key, outcome: outcome)
        fileName = entry.fileName.isEmpty ? nil : entry.fileName
        priority = entry.priority
    }
}

/// Running totals of a prefetch (docs/usage.md, "The report").
public struct PrefetchTotals: Sendable, Equatable {
    /// Lines that hold a URL or an invalid entry (blank and comment lines are not counted).
    public var lines = 0
    public var downloaded = 0
    /// Several formats in one run: stored from another format's bytes (`Outcome.copied`).
    public var copied = 0
    public var cached = 0
    public var revalidated = 0
    public var failed = 0
    public var blacklisted = 0
    public var invalid = 0
    public var duplicates = 0
    public var wouldFetch = 0
    /// `--dry-run`: lines another cache would fill (`Outcome.wouldCopy`).
    public var wouldCopy = 0
    public var notStarted = 0
    /// Transfers the interruption abandoned.
    public var interrupted = 0
    /// `--offline`: lines with no body to store (`Outcome.noBody`).
    public var noBody = 0
    /// Lines of images the app's library decodes only with a plugin (`Outcome.unsupported`):
    /// final, but neither in the cache nor skipped.
    public var unsupported = 0
    /// `--shard K/N`: lines whose key belongs to another shard (counted in `lines`, not listed).
    public var otherShard = 0
    /// Entries of HAR captures that are not images (or not GET, or not http(s)): counted, never
    /// listed, not in `lines`.
    public var notImages = 0
    /// Body bytes received (after content decoding) for stored images.
    public var bytesReceived: Int64 = 0
    /// Failures by error class.
    public var errorClasses: [String: Int] = [:]

    public init() {}

    /// SDWebImage's `finishedCount`: every URL this process brought to a final state (lines left
    /// to other shards are not among them).
    public var finishedCount: Int { lines - notStarted - interrupted - otherShard }
    /// SDWebImage's `skippedCount`: those that ended in an error or were blacklisted (invalid
    /// lines included, as SDWebImage counts a nil URL).
    public var skippedCount: Int { failed + blacklisted + invalid + noBody }
    /// True when every URL ended in the cache (`unsupported` lines aside, which no run can store
    /// for the app): the run did all it was asked.
    public var allInCache: Bool { skippedCount == 0 && notStarted == 0 && interrupted == 0 }

    /// A line whose key belongs to another shard: counted, never listed (docs/usage.md, "Running on many machines").
    mutating func addOtherShard() {
        lines += 1
        otherShard += 1
    }

    mutating func add(_ result: EntryResult) {
        lines += 1
        switch result.outcome {
        case .downloaded:
            downloaded += 1
            bytesReceived += Int64(result.bytes ?? 0)
        case .copied: copied += 1
        case .cached: cached += 1
        case .revalidated: revalidated += 1
        case .failed: failed += 1
        case .blacklisted: blacklisted += 1
        case .invalid: invalid += 1
        case .duplicate: duplicates += 1
        case .wouldFetch: wouldFetch += 1
        case .wouldCopy: wouldCopy += 1
        case .notStarted: notStarted += 1
        case .interrupted: interrupted += 1
        case .noBody: noBody += 1
        case .unsupported: unsupported += 1
        }
        if let failure = result.failure, [.failed, .invalid, .noBody].contains(result.outcome) {
            errorClasses[failure.reason.rawValue, default: 0] += 1
        }
    }
}
