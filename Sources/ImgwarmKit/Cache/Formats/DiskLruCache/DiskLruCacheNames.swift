/// The names a DiskLruCache folder holds (docs/cache-formats-android.md): the journal and its
/// temporary and backup copies, and per entry `<key>.<index>` (and `<key>.<index>.tmp` while the
/// library writes it), the key being 64 lower-case hex digits (the SHA-256 of the cache key).
enum DiskLruCacheNames {
    static func isEntryName(_ bytes: UnsafeBufferPointer<UInt8>, valueCount: Int) -> Bool {
        if bytes.elementsEqual(JournalIndex.journalName.utf8) || bytes.elementsEqual(JournalIndex.temporaryName.utf8)
            || bytes.elementsEqual(JournalIndex.backupName.utf8)
        {
            return true
        }
        guard bytes.count == 66 || bytes.count == 70, bytes[64] == UInt8(ascii: "."),
            isHexName(UnsafeBufferPointer(rebasing: bytes[..<64]), count: 64)
        else { return false }
        let index = Int(bytes[65]) - Int(UInt8(ascii: "0"))
        guard index >= 0 && index < valueCount else { return false }
        return bytes.count == 66 || bytes[66...].elementsEqual(".tmp".utf8)
    }

    static let shape = "64 hex digits then .0 (or .1), or journal, journal.tmp, journal.bkp"
}
