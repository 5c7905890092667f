/// A URL waiting for its turn: where it came from, its key and how often it was tried.
public struct PendingEntry: Sendable {
    /// 1-based line number in its list.
    public var line: Int
    /// Index of its list among the run's sources.
    public var input: Int
    /// The cache key: the URL exactly as written, surrounding white space removed.
    public var key: String
    public var priority: Priority
    /// Attempts made so far.
    public var attempts = 0
    /// Seconds (monotonic) the first attempt started, for the report's duration.
    public var firstStarted = 0.0
    /// SDDiskCacheFileNameForKey(key), computed once when the entry first starts.
    public var fileName = ""
    /// `--refresh` of a cached file: a conditional request whose 304 keeps the file.
    public var isRefresh = false

    public init(line: Int, input: Int, key: String, priority: Priority) {
        self.line = line
        self.input = input
        self.key = key
        self.priority = priority
    }
}
