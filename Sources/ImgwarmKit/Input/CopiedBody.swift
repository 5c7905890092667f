import ImgwarmSystem

/// Another cache's bytes of an entry's URL, stored instead of a request (docs/usage.md, "Several
/// formats in one prefetch" and "Seeding from another cache"): this run's download for an
/// earlier format of several (its body and response kept in the run's `SharedBodies`), or the
/// file of a hit in another format's cache folder or in `--from-cache` (bytes only: no
/// response). Set when the entry starts (`FormatFanOut`), never spooled; a copy that cannot be
/// stored falls back to the network once (`--offline`: ends `no-body`).
public struct CopiedBody: Sendable, Equatable {
    /// The format (`CacheFormat.name`) whose bytes these are.
    public var format: String
    /// This run's download: its place among the run's shared bodies.
    public var shared: Int?
    /// A hit of another cache: its folder, and the file's name there (plain names joined by `/`),
    /// read as an untrusted folder's file is (`FileDescriptor.openUntrustedFile`).
    public var folder: String?
    public var name: String?
    /// The times the stored file gets: the source's, where they mean the same in both formats
    /// (`FormatFanOut.timesCarry`); nil: the format's own (`CacheFormat.timesOnStore`).
    public var times: FileTimes?
    /// This run's download, stored by a format whose time rules agree with this one's: the path
    /// of that file, which this format's entry may share (a hard link) rather than copy.
    public var link: String?

    public init(format: String, shared: Int? = nil, link: String? = nil) {
        (self.format, self.shared, self.link) = (format, shared, link)
    }

    /// A hit of another cache: `name` in `folder`, stored with `times` (nil: the format's own).
    public init(format: String, folder: String, name: String, times: FileTimes?) {
        self.format = format
        (self.folder, self.name, self.times) = (folder, name, times)
    }
}

extension PendingEntry {
    /// The file this entry may share with another format's (`CopiedBody.link`), if any.
    public var sharedFile: String? { copy?.link }

    /// The times its stored file gets when it is another cache's copy whose times carry over.
    public var copiedTimes: FileTimes? { copy?.times }

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
