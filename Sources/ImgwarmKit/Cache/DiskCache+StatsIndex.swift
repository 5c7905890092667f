import ImgwarmSystem

extension DiskCache {
    /// Adds to `stats` the entries a format's index lists in subfolders, which the walk of the
    /// folder counts in the totals but does not enter (Fresco's shard folders): each is a cache
    /// file of the format, sniffed and dated like the others.
    /// An index that is not a regular file (a FIFO at `journal`) is an error, as in every command;
    /// one the library would not read leaves the figures of the walk alone.
    func addIndexedEntries(to stats: inout Statistics, in directory: FileDescriptor, expireType: ExpireType)
        throws(DiskCacheError)
    {
        guard let index = location.makeIndex() else { return }
        do { try index.load() } catch {
            if case .notARegularFile = error { throw .index(error) }
            return
        }
        var header = [UInt8](repeating: 0, count: ImageFormat.sniffLength)
        for name in index.listedNames where name.contains("/") {
            guard let info = try? directory.status(of: name), info.kind == .file else { continue }
            stats.files += 1
            stats.formatEntries += 1
            _ = stats.fileNames.insert(MD5.digest(Array(name.utf8)))
            let date = DiskCache.date(of: info, expireType)
            if stats.oldest.map({ date < $0 }) ?? true { stats.oldest = date }
            if stats.newest.map({ date > $0 }) ?? true { stats.newest = date }
            let sniffed = DiskCache.sniffWithoutTouching(directory: directory, name: name, buffer: &header)
            stats.formats[sniffed?.rawValue ?? "other", default: 0] += 1
        }
    }
}
