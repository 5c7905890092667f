/// The cache's part of a pending entry: the name its format gives the key's entry.
extension PendingEntry {
    /// The cache file name: `fileName` once settled, else what `format` names the key.
    func cacheFileName(in format: any CacheFormat) -> String {
        fileName.isEmpty ? format.fileName(forKey: key) : fileName
    }

    /// Computes `fileName` in `format` (or as `index` names the key's entry) if it is not yet,
    /// and returns it.
    mutating func settleFileName(in format: any CacheFormat, index: (any CacheIndex)? = nil) -> String {
        if fileName.isEmpty { fileName = index?.entryName(forKey: key) ?? format.fileName(forKey: key) }
        return fileName
    }
}
