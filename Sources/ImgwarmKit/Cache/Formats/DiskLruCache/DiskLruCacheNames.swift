/// The names a DiskLruCache folder holds (docs/cache-formats-android.md): the journal and its
/// temporary and backup copies, and per entry `<key>.<index>` (and `<key>.<index>.tmp` while the
/// library writes it), the key being 64 lower-case hex digits (the SHA-256 of the cache key).
enum DiskLruCacheNames {
    static func isEntryName(_ bytes: UnsafeBufferPointer<UInt8>, valueCount: Int, keyLength: Int = 64) -> Bool {
        if bytes.elementsEqual(JournalIndex.journalName.utf8) || bytes.elementsEqual(JournalIndex.temporaryName.utf8)
            || bytes.elementsEqual(JournalIndex.backupName.utf8)
        {
            return true
        }
        let k = keyLength
        guard bytes.count == k + 2 || bytes.count == k + 6, bytes[k] == UInt8(ascii: "."),
            isHexName(UnsafeBufferPointer(rebasing: bytes[..<k]), count: k)
        else { return false }
        let index = Int(bytes[k + 1]) - Int(UInt8(ascii: "0"))
        guard index >= 0 && index < valueCount else { return false }
        return bytes.count == k + 2 || bytes[(k + 2)...].elementsEqual(".tmp".utf8)
    }

    static let shape = "64 hex digits then .0 (or .1), or journal, journal.tmp, journal.bkp"
    static let md5Shape = "32 hex digits then .0 or .1, or journal, journal.tmp, journal.bkp"
}
