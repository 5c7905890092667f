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
        var bytes: [UInt8] = []
        writeRebuilt(header: header, chunkSize: 1 << 16) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// `rebuilt`'s bytes handed to `write` in chunks of about `chunkSize`: a journal of a million
    /// entries is never held whole. Returns the bytes written.
    @discardableResult
    func writeRebuilt<E: Error>(header: Header, chunkSize: Int, _ write: ([UInt8]) throws(E) -> Void) throws(E)
        -> Int
    {
        // The LRU order by the keys alone (a recency and a reference a line), not a copy of the entries.
        var order: [(recency: Int, key: String)] = []
        order.reserveCapacity(entries.count)
        for (key, entry) in entries where DiskLruJournal.survivesRebuild(key, entry) {
            order.append((entry.recency, key))
        }
        order.sort { $0.recency < $1.recency }
        var chunk = header.bytes
        chunk.reserveCapacity(chunkSize + 256)
        var total = 0
        for (_, key) in order {
            guard let entry = entries[key] else { continue }
            if entry.dirty {
                chunk.append(contentsOf: "DIRTY \(key)\n".utf8)
            } else {
                chunk.append(contentsOf: "CLEAN \(key)".utf8)
                entry.appendLengths(to: &chunk)
                chunk.append(UInt8(ascii: "\n"))
            }
            if chunk.count >= chunkSize {
                try write(chunk)
                total += chunk.count
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty {
            try write(chunk)
            total += chunk.count
        }
        return total
    }

    /// True when `rebuilt` writes a line for the entry.
    static func survivesRebuild(_ key: String, _ entry: Entry) -> Bool {
        (entry.dirty || entry.readable) && !key.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    }

    /// Becomes the journal `rebuilt` wrote (`length` bytes), as reading it back would make it,
    /// without a second copy of the entries: the ones it left out go, one line an entry remains,
    /// and the LRU order is kept.
    mutating func becomeRebuilt(length: Int) {
        let dropped = entries.compactMap { DiskLruJournal.survivesRebuild($0.key, $0.value) ? nil : $0.key }
        for key in dropped { entries[key] = nil }
        // A `DIRTY` line alone: the entry reads back as one never clean.
        for key in entries.compactMap({ $0.value.dirty ? $0.key : nil }) {
            guard let entry = entries[key] else { continue }
            entries[key] = Entry(
                dirty: true, lengths: Array(repeating: 0, count: entry.valueCount), recency: entry.recency)
        }
        lineCount = entries.count
        linesRead = 5 + lineCount
        completeLength = length
    }
}
