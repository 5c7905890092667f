import ImgwarmSystem

/// `clean` on a journal folder as the library trims it (`trimToSize`: while the lengths of the
/// entries it keeps add up to more than the limit, the least recently used goes, with a `REMOVE`
/// line). imgwarm writes the `REMOVE` lines first and deletes the files after: a crash in
/// between leaves files no line lists (which the library ignores), never a line without its files.
extension JournalIndex {
    public func clean(
        policy: DiskCache.CleanPolicy, dryRun: Bool, lockTimeout: Double, observe: (DiskCache.CleanEvent) -> Void
    ) throws(CacheIndexError) -> DiskCache.CleanResult {
        let cache = DiskCache(location: CacheLocation(folder: folderPath))
        let before: DiskTotals?
        do { before = try cache.totals() } catch { throw .folder(error) }
        var result = DiskCache.CleanResult(before: before ?? DiskTotals(), folderExists: before != nil)
        result.passes = 1
        guard before != nil else { return result }
        // A dry run writes nothing and takes no lock (the private folder may not exist).
        let lock = dryRun ? nil : try takeLock(timeout: lockTimeout, required: true)
        defer {
            lock?.unlock()
            lock?.close()
        }
        guard let directory = try openFolder() else { return result }
        defer { directory.close() }
        var chosen: [String] = []
        // Read again when the journal changes between the read and the append (another process).
        for attempt in 0..<4 {
            var (journal, file) = try currentJournal(in: directory)
            var size = journal.openSize
            chosen = []
            for (key, entry) in journal.openEntries {
                if !policy.removeAll && (policy.maxSize == 0 || size <= Int64(clamping: policy.maxSize)) { break }
                chosen.append(key)
                size -= entry.lengths.reduce(0, &+)
            }
            result.remainingCounted = policy.removeAll ? nil : UInt64(max(0, size))
            guard !chosen.isEmpty else { return result }
            if dryRun { break }
            let lines = Array(chosen.map { "REMOVE \($0)\n" }.joined().utf8)
            if try write(lines, to: &journal, known: file, in: directory) != nil { break }
            if attempt == 3 {
                throw .notUsed(
                    path: path(JournalIndex.journalName),
                    reason: "another process kept changing it while imgwarm appended")
            }
        }
        let reason: DiskCache.RemovalReason = policy.removeAll ? .cleared : .trimmed
        for key in chosen {
            let names = fileNames(of: key)
            // A key that names no plain file of the folder (`../x`): its line went, its "files"
            // are never looked at.
            guard names.allSatisfy(FileDescriptor.isPlainName) else {
                result.skip(names[layout.dataIndex])
                continue
            }
            for name in names {
                guard let info = try? directory.status(of: name) else { continue }
                _ = result.remove(name, info, in: directory, reason: reason, dryRun: dryRun, observe: observe)
            }
        }
        return result
    }
}

extension CleanRules {
    /// A DiskLruCache's `trimToSize` (Glide, Coil, OkHttp): nothing by age; above the limit, the
    /// least recently used in journal order until at most the limit, as the journal lists sizes.
    static func journalTrim(defaultMaxSize: UInt64) -> CleanRules {
        var rules = CleanRules(expiry: .none, trimDate: .modification, measure: .logical)
        rules.order = .indexOrder
        rules.keep = (1, 1)
        rules.stopsAtTarget = true
        rules.defaultMaxSize = defaultMaxSize
        return rules
    }
}
