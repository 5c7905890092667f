/// A URL waiting for its turn: where it came from, its URL and key, and how often it was tried.
public struct PendingEntry: Sendable {
    /// 1-based line number in its list.
    public var line: Int
    /// Index of its list among the run's sources.
    public var input: Int
    /// What is fetched (and what the blacklist holds): the URL as written, surrounding white space
    /// removed.
    public var url: String
    /// The cache key (file name, duplicates, state): the line's explicit key, else the URL through
    /// the run's key filters; the URL itself by default.
    public var key: String
    public var priority: Priority
    /// Request headers recorded for this URL (a HAR entry's `HAREntry.variantHeaders`), sent
    /// with its requests in place of the defaults of the same name (`--header` still wins).
    /// Never in reports or state.
    public var headers: [String] = []
    /// Attempts made so far.
    public var attempts = 0
    /// Seconds (monotonic) the first attempt started, for the report's duration.
    public var firstStarted = 0.0
    /// The name of the key's entry in the cache folder, computed once (`settleFileName`, in the
    /// Cache stage) when the entry is first looked up in the cache.
    public var fileName = ""
    /// Its host under `--concurrency auto` (`HostSlots.key(url)`), set once when the scheduler
    /// first meets the entry; empty otherwise.
    public var host = ""
    /// `--refresh` of a cached file: a conditional request whose 304 keeps the file.
    public var isRefresh = false
    /// Where its body comes from without a request (a JSON Lines `"file"`); nil: its URL is fetched.
    public var body: BodySource?
    /// Another format's bytes stored instead of a request (several formats in one run); nil by
    /// default. Set when the entry starts, never spooled.
    public internal(set) var copy: CopiedBody?
    /// A copy of this entry could not be stored: it is requested, never copied again.
    public internal(set) var copyRefused = false

    public init(line: Int, input: Int, url: String, key: String? = nil, priority: Priority) {
        self.line = line
        self.input = input
        self.url = url
        self.key = key ?? url
        self.priority = priority
    }
}
