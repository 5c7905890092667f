/// Another format's bytes of an entry's URL, stored instead of a request when one run fills
/// several formats (`--cache-format a,b`; docs/usage.md, "Several formats"): this run's download
/// for an earlier format (its body and response kept in the run's `SharedBodies`), or the file of
/// a hit in another format's cache folder (bytes only: no response). Set when the entry starts
/// (`FormatFanOut`), never spooled; a copy that cannot be stored falls back to the network once.
public struct CopiedBody: Sendable, Equatable {
    /// The format (`CacheFormat.name`) whose bytes these are.
    public var format: String
    /// This run's download: its place among the run's shared bodies.
    public var shared: Int?
    /// A hit of another format's cache: the file's path.
    public var path: String?
    /// This run's download, stored by a format whose time rules agree with this one's: the path
    /// of that file, which this format's entry may share (a hard link) rather than copy.
    public var link: String?

    public init(format: String, shared: Int? = nil, path: String? = nil, link: String? = nil) {
        (self.format, self.shared, self.path, self.link) = (format, shared, path, link)
    }
}

extension PendingEntry {
    /// The file this entry may share with another format's (`CopiedBody.link`), if any.
    public var sharedFile: String? { copy?.link }

    /// Stores `copy`'s bytes instead of requesting the URL.
    public mutating func take(_ copy: CopiedBody) { self.copy = copy }

    /// The entry requested after all: its copy could not be stored
    /// (`EntrySource.fallsBackToNetwork`); it is never copied again.
    public func droppingCopy() -> PendingEntry {
        var entry = self
        entry.copy = nil
        entry.copyRefused = true
        entry.attempts = 0  // its first request: the blacklist is asked, as for any
        return entry
    }
}
