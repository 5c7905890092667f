import ImgwarmSystem

/// Another cache folder, read for copies (`FormatFanOut`): another format's folder of a run that
/// fills several, or `--from-cache`. A key's entry there, as that format's reader judges it now
/// (its index lists it, its file is a regular, non-empty file the reader returns), gives the
/// file's name and times. The folder is untrusted input (docs/hardening.md): no link is followed
/// on the way to a file, no name out of the folder is taken. Opened once, read only: nothing of
/// it is written, created or touched (no access time moves).
final class CacheCopySource {
    let location: CacheLocation
    private let folder: FileDescriptor?
    private let index: (any CacheIndex)?
    /// The format keeps an index, and it was read: without it, no entry is a hit.
    private let indexRead: Bool

    /// One entry found: its file's name in the folder and its times.
    struct Hit {
        var name: String
        var accessed: Timestamp
        var modified: Timestamp
    }

    /// The folder of `location`; one that does not exist, or cannot be read, gives no copy.
    init(location: CacheLocation) {
        self.location = location
        folder = try? DiskCache(location: location).openExistingFolder()
        if folder != nil, let index = location.makeIndex(), (try? index.load()) != nil {
            self.index = index
        } else {
            index = nil
        }
        indexRead = index != nil || location.makeIndex() == nil
    }

    deinit { folder?.close() }

    /// True when the folder could be opened (it exists and is a folder).
    var exists: Bool { folder != nil }

    /// True when the format keeps the image's bytes as they are (not OkHttp's, whose body may
    /// still be gzip): its files can be copied into another format.
    var holdsImageBytes: Bool { location.format.keepsImageBytes }

    /// `key`'s entry when the format's reader would return it now; nil otherwise.
    func hit(forKey key: String, now: Timestamp = .now()) -> Hit? {
        guard let folder, holdsImageBytes, indexRead,
            let name = try? location.entryName(forKey: key, index: index),
            case (.opened(let file, let info), _)? = try? folder.openUntrustedFile(name)
        else { return nil }
        file.close()  // opened without reading: its access time did not move
        guard case .hit = location.format.read(info, now: now), index?.check(name) == nil else { return nil }
        return Hit(name: name, accessed: info.accessed, modified: info.modified)
    }
}

extension CacheFormat {
    /// The format keeps the image's bytes as they are: not OkHttp's (`RequestProfileFormat`),
    /// whose body stays as it came off the network (maybe gzip).
    public var keepsImageBytes: Bool { !(self is any RequestProfileFormat) }
}
