import ImgwarmSystem

extension DiskCache {
    /// What `imgwarm stats` reports about the folder (docs/usage.md, "Commands").
    public struct Statistics: Sendable {
        /// False when the folder does not exist.
        public var exists: Bool
        /// SDWebImage's totals over the whole tree.
        public var totals: DiskTotals
        /// Cache files: non-hidden regular files directly in the folder.
        public var files: Int
        /// Cache files by the format their first bytes show; `other` for anything else.
        public var formats: [String: Int]
        /// Cache files whose names have the shape of the cache format's entry names
        /// (`CacheFormat.isEntryName`), and the others (what the clean guard calls foreign).
        public var formatEntries = 0
        public var foreignFiles = 0
        /// Of the format's entries, those its reader takes for expired (Kingfisher: modification
        /// time at or before now); nil for a format whose files carry no expiry.
        public var expiredEntries: Int?
        /// The oldest and newest date of the cache files for the chosen expire type.
        public var oldest: Timestamp?
        public var newest: Timestamp?
        /// Entries that are not cache files: hidden entries, folders, links.
        public var hiddenEntries: Int
        public var directories: Int
        public var symlinks: Int
        /// The cache files' names, as 8-byte fingerprints (a folder of millions holds no list of
        /// names): see `containsFile(named:)`.
        var fileNames = FingerprintSet()

        /// True when `name` is one of the cache files (a fingerprint match: a false positive
        /// needs two names whose MD5s share 64 bits).
        public func containsFile(named name: String) -> Bool {
            fileNames.contains(MD5.digest(name.utf8))
        }
    }

    /// Walks the folder once and sniffs the format of every cache file, holding no list of
    /// entries (`imgwarm stats` of a million files runs in the memory of a few).
    /// The format's entries and foreign files are told apart by name, and an entry is expired
    /// when the format's reader says so at `now`.
    public func statistics(expireType: ExpireType, now: Timestamp = .now()) throws(DiskCacheError) -> Statistics {
        var stats = Statistics(
            exists: true, totals: DiskTotals(), files: 0, formats: [:], oldest: nil, newest: nil,
            hiddenEntries: 0, directories: 0, symlinks: 0)
        let format = location.format
        if format is any ExpiryStampingFormat { stats.expiredEntries = 0 }
        guard let directory = try openExistingFolder() else {
            stats.exists = false
            return stats
        }
        defer { directory.close() }
        var header = [UInt8](repeating: 0, count: ImageFormat.sniffLength)
        try walkEntries(directory, expireType: expireType) { walked in
            stats.totals.add(logical: walked.info.size, allocated: walked.info.allocatedSize)
            if walked.isHidden { stats.hiddenEntries += 1 }
            switch walked.kind {
            case .directory: return  // folders come to the closure below
            case .symlink:
                stats.symlinks += 1
                return
            case .other: return
            case .file: if walked.isHidden { return }
            }
            stats.files += 1
            if format.isEntryName(bytes: walked.nameBytes) {
                stats.formatEntries += 1
                if stats.expiredEntries != nil, format.read(walked.info, now: now) == .miss(.expired) {
                    stats.expiredEntries! += 1
                }
            } else {
                stats.foreignFiles += 1
            }
            _ = stats.fileNames.insert(MD5.digest(UnsafeRawBufferPointer(walked.nameBytes)))
            if stats.oldest.map({ walked.date < $0 }) ?? true { stats.oldest = walked.date }
            if stats.newest.map({ walked.date > $0 }) ?? true { stats.newest = walked.date }
            var format = "other"
            let name = String(decoding: walked.nameBytes, as: UTF8.self)
            if let sniffed = DiskCache.sniffWithoutTouching(directory: directory, name: name, buffer: &header) {
                format = sniffed.rawValue
            }
            stats.formats[format, default: 0] += 1
        } folders: { name, info in
            guard addSubfolder(parent: directory, name: name, info: info, to: &stats.totals) else { return }
            if CacheEntry.isHidden(name: name.utf8) { stats.hiddenEntries += 1 }
            stats.directories += 1
        }
        try addIndexedEntries(to: &stats, in: directory, expireType: expireType)
        return stats
    }
}

extension DiskCache {
    /// Sniffs a file's format without moving its access time, which drives expiry.
    ///
    /// `O_NOATIME` needs the file's owner (or CAP_FOWNER); otherwise the access time is put back
    /// after reading, which moves only the change time.
    static func sniffWithoutTouching(directory: FileDescriptor, name: String, buffer: inout [UInt8]) -> ImageFormat? {
        // Only a regular file is opened: a FIFO or device node at the name is never opened.
        guard let (opening, restore) = try? directory.openRegularFileUntouched(name, inSubfolder: true),
            case .opened(let file, _) = opening
        else { return nil }
        defer { file.close() }
        let count = (try? file.read(into: &buffer)) ?? 0
        if let restore { try? file.setAccessTime(restore) }
        guard count > 0 else { return nil }
        return buffer.withUnsafeBytes { ImageFormat.sniff(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}
