/// The journal as the library rewrites it (`rebuildJournal` in Glide, `writeJournal` in Coil):
/// the header, then one line an entry in LRU order, `DIRTY key` for one being edited and
/// `CLEAN key lengths` for the others (docs/cache-formats-android.md, "Appending and compacting").
extension DiskLruJournal {
    /// When the library rewrites its journal.
    public enum RebuildRule: Sendable, Equatable {
        /// Glide (`journalRebuildRequired`): 2,000 redundant lines and no fewer than the entries.
        case redundantReachesEntries
        /// Coil (`journalRewriteRequired`): 2,000 lines since the last rewrite.
        case redundantOnly
    }

    /// The library's count at open (`lineCount - lruEntries.size`): lines that a rewrite drops.
    public var redundantLines: Int { lineCount - entries.count }

    /// True when the library, having read this journal, would rewrite it at its next operation.
    public func needsRebuild(_ rule: RebuildRule) -> Bool {
        let redundant = redundantLines
        switch rule {
        case .redundantReachesEntries: return redundant >= 2000 && redundant >= entries.count
        case .redundantOnly: return redundant >= 2000
        }
    }

    /// The rewritten journal's bytes. An entry the library holds only because a `READ` or `REMOVE`
    /// line named it (never readable, not being edited: it serves nothing) is left out, as is a key
    /// with a control character (no file of the folder has such a name, and a `\r` at the end of a
    /// line would read back as another key).
    public func rebuilt(header: Header) -> [UInt8] {
        var bytes = header.bytes
        let ordered = entries.sorted { $0.value.recency < $1.value.recency }
        for (key, entry) in ordered where !key.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            if entry.dirty {
                bytes.append(contentsOf: "DIRTY \(key)\n".utf8)
            } else if entry.readable {
                bytes.append(contentsOf: "CLEAN \(key)".utf8)
                for length in entry.lengths { bytes.append(contentsOf: " \(length)".utf8) }
                bytes.append(UInt8(ascii: "\n"))
            }
        }
        return bytes
    }
}
