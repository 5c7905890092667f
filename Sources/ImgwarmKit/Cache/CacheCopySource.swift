import ImgwarmSystem

/// Another format's cache folder, read for copies when one run fills several formats
/// (`FormatFanOut`): a key's entry there, as that format's reader judges it (its index lists it,
/// its file is a regular, non-empty file the reader returns now), gives its file's path. Opened
/// once, read only: nothing of the folder is written, created or touched.
final class CacheCopySource {
    let location: CacheLocation
    private let folder: FileDescriptor?
    private let index: (any CacheIndex)?
    /// The format keeps an index, and it was read: without it, no entry is a hit.
    private let indexRead: Bool

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

    /// True when the format keeps the image's bytes as they are (not OkHttp's, whose body may
    /// still be gzip): its files can be copied into another format.
    var holdsImageBytes: Bool { !(location.format is any RequestProfileFormat) }

    /// The path of `key`'s file when the format's reader would return it now; nil otherwise.
    func hit(forKey key: String, now: Timestamp = .now()) -> String? {
        guard let folder, holdsImageBytes, indexRead else { return nil }
        // An index names the file: never a path out of the folder (docs/hardening.md).
        guard let name = try? location.entryName(forKey: key, index: index), !name.hasPrefix("/"),
            !name.split(separator: "/").contains(".."), let info = try? folder.status(of: name), info.kind == .file
        else { return nil }
        guard case .hit = location.format.read(info, now: now), index?.check(name) == nil else { return nil }
        return location.folder + "/" + name
    }
}
