import ImgwarmSystem

extension DiskCache {
    /// What `imgwarm stats` reports about the folder (README, "Commands").
    public struct Statistics: Sendable {
        /// False when the folder does not exist.
        public var exists: Bool
        /// SDWebImage's totals over the whole tree.
        public var totals: DiskTotals
        /// Cache files: non-hidden regular files directly in the folder.
        public var files: Int
        /// Cache files by the format their first bytes show; `other` for anything else.
        public var formats: [String: Int]
        /// The oldest and newest date of the cache files for the chosen expire type.
        public var oldest: Timestamp?
        public var newest: Timestamp?
        /// Entries that are not cache files: hidden entries, folders, links.
        public var hiddenEntries: Int
        public var directories: Int
        public var symlinks: Int
        /// Names of the cache files.
        public var fileNames: Set<String> = []
    }

    /// Scans the folder and sniffs the format of every cache file.
    public func statistics(expireType: ExpireType) throws(DiskCacheError) -> Statistics {
        let scan = try scan(expireType: expireType)
        var stats = Statistics(
            exists: scan.exists, totals: scan.totals, files: 0, formats: [:], oldest: nil, newest: nil,
            hiddenEntries: 0, directories: 0, symlinks: 0)
        guard scan.exists else { return stats }
        let directory = try openFolder()
        defer { directory.close() }
        var header = [UInt8](repeating: 0, count: ImageFormat.sniffLength)
        for entry in scan.entries {
            if entry.isHidden { stats.hiddenEntries += 1 }
            switch entry.kind {
            case .directory:
                stats.directories += 1
                continue
            case .symlink:
                stats.symlinks += 1
                continue
            case .other: continue
            case .file: if entry.isHidden { continue }
            }
            stats.files += 1
            stats.fileNames.insert(entry.name)
            if stats.oldest.map({ entry.date < $0 }) ?? true { stats.oldest = entry.date }
            if stats.newest.map({ entry.date > $0 }) ?? true { stats.newest = entry.date }
            var format = "other"
            if let sniffed = DiskCache.sniffWithoutTouching(directory: directory, name: entry.name, buffer: &header) {
                format = sniffed.rawValue
            }
            stats.formats[format, default: 0] += 1
        }
        return stats
    }
}

extension DiskCache {
    /// Sniffs a file's format without moving its access time, which drives expiry.
    ///
    /// `O_NOATIME` needs the file's owner (or CAP_FOWNER); otherwise the access time is put back
    /// after reading, which moves only the change time.
    static func sniffWithoutTouching(directory: FileDescriptor, name: String, buffer: inout [UInt8]) -> ImageFormat? {
        var restoreAccessTime = false
        let file: FileDescriptor
        do {
            file = try directory.openForReading(name, keepingAccessTime: true)
        } catch  where error.isNotPermitted {
            guard let opened = try? directory.openForReading(name) else { return nil }
            file = opened
            restoreAccessTime = true
        } catch {
            return nil
        }
        defer { file.close() }
        let before = restoreAccessTime ? try? file.status() : nil
        if restoreAccessTime && before == nil { return nil }
        let count = (try? file.read(into: &buffer)) ?? 0
        if let before { try? file.setAccessTime(before.accessed) }
        guard count > 0 else { return nil }
        return buffer.withUnsafeBytes { ImageFormat.sniff(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}
