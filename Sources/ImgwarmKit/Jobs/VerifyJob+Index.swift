import ImgwarmSystem

/// `verify` on a cache with an index (a DiskLruCache journal, Fresco's folder tree;
/// docs/cache-formats-android.md): a key hits only when the index lists it and the library would
/// find every file of its entry; without lists, the entries are the index's as well as the files.
extension VerifyJob {
    /// The index, read as the library reads it (the folder's verdict already said it can be).
    func loadIndex() -> (any CacheIndex)? {
        guard let index = location.makeIndex() else { return nil }
        return (try? index.load()) != nil ? index : nil
    }

    /// Without lists: the entries the index lists that the walk of the folder did not meet (gone,
    /// or in a subfolder) are judged by their names; those it names outside the folder
    /// (`unsafeNames`) are `not-indexed` misses, with why.
    func reportListed(seen: Set<String>, in folder: FileDescriptor, now: Timestamp, _ observe: (Event) -> Void) {
        guard let index else { return }
        for name in index.listedNames where !seen.contains(name) {
            var check = Check(fileName: name, read: .miss(.absent))
            if let info = try? folder.status(of: name) { judge(&check, info: info, in: folder, now: now) }
            observe(.checked(check))
        }
        // Entries whose index names a path outside the folder: reported, never opened.
        for name in index.unsafeNames {
            var check = Check(fileName: name, read: .miss(.notIndexed))
            check.detail =
                "the library's index names a path that is not a file of the cache folder: imgwarm does not open it"
            observe(.checked(check))
        }
    }
}
