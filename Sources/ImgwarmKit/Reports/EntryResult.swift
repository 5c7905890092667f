/// How one list line ended (the `outcome` of a report entry).
public enum Outcome: String, Codable, Sendable, CaseIterable {
    /// Downloaded, validated and stored.
    case downloaded
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
    /// The run was interrupted before this URL finished.
    case notStarted = "not-started"

    /// In the cache at the end of the run.
    public var isInCache: Bool { self == .downloaded || self == .cached || self == .revalidated }
}

/// The result of one list line, as the report and the console show it.
public struct EntryResult: Sendable {
    public var line: Int
    /// Index of the list among the run's sources.
    public var input: Int
    /// The key exactly as given (printing code redacts passwords).
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

    public init(line: Int, input: Int, key: String, outcome: Outcome) {
        self.line = line
        self.input = input
        self.key = key
        self.outcome = outcome
    }
}

/// Running totals of a prefetch (SPEC §6).
public struct PrefetchTotals: Sendable, Equatable {
    /// Lines that hold a URL or an invalid entry (blank and comment lines are not counted).
    public var lines = 0
    public var downloaded = 0
    public var cached = 0
    public var revalidated = 0
    public var failed = 0
    public var blacklisted = 0
    public var invalid = 0
    public var duplicates = 0
    public var wouldFetch = 0
    public var notStarted = 0
    /// Body bytes received (after content decoding) for stored images.
    public var bytesReceived: Int64 = 0
    /// Failures by error class.
    public var errorClasses: [String: Int] = [:]

    public init() {}

    /// SDWebImage's `finishedCount`: every URL that reached a final state.
    public var finishedCount: Int { lines - notStarted }
    /// SDWebImage's `skippedCount`: those that ended in an error or were blacklisted (invalid
    /// lines included, as SDWebImage counts a nil URL).
    public var skippedCount: Int { failed + blacklisted + invalid }
    /// True when every URL ended in the cache (exit code 0).
    public var allInCache: Bool { skippedCount == 0 && notStarted == 0 }

    /// Lines that never started (the run stopped early); they get no report entry.
    mutating func addNotStarted(_ count: Int) {
        lines += count
        notStarted += count
    }

    mutating func add(_ result: EntryResult) {
        lines += 1
        switch result.outcome {
        case .downloaded:
            downloaded += 1
            bytesReceived += Int64(result.bytes ?? 0)
        case .cached: cached += 1
        case .revalidated: revalidated += 1
        case .failed: failed += 1
        case .blacklisted: blacklisted += 1
        case .invalid: invalid += 1
        case .duplicate: duplicates += 1
        case .wouldFetch: wouldFetch += 1
        case .notStarted: notStarted += 1
        }
        if let failure = result.failure, result.outcome == .failed || result.outcome == .invalid {
            errorClasses[failure.reason.rawValue, default: 0] += 1
        }
    }
}
