/// A DiskLruCache journal as the library reads it when it opens the cache (docs/cache-formats-android.md,
/// "The DiskLruCache journal"): Glide's Java copy (`readJournal`, `readJournalLine`,
/// `processJournal`) and Coil's Okio copy follow the same rules but for how they split a `CLEAN`
/// line's lengths.
///
/// A pure value: bytes in, the entries the library would hold out, or the reason it would
/// delete the folder. imgwarm's writer never parses with anything else.
public struct DiskLruJournal: Sendable, Equatable {
    /// The five header lines that differ between libraries.
    public struct Header: Sendable, Equatable {
        /// The app version line: Glide `1`, Coil 3 `3`, Coil 2 `1`.
        public var appVersion: Int
        /// The value count line: files per entry (Glide `1`, Coil `2`).
        public var valueCount: Int

        public init(appVersion: Int, valueCount: Int) {
            self.appVersion = appVersion
            self.valueCount = valueCount
        }

        /// The header as both libraries write it: magic, version `1`, app version, value count, a blank line.
        public var bytes: [UInt8] {
            Array("\(DiskLruJournal.magic)\n1\n\(appVersion)\n\(valueCount)\n\n".utf8)
        }
    }

    /// How the lengths of a `CLEAN` line are split.
    public enum Dialect: Sendable, Equatable {
        /// Java's `String.split(" ")` (Glide): trailing empty fields are dropped.
        case javaSplit
        /// Kotlin's `split(' ')` (Coil): every field is kept, so a trailing space is a wrong count.
        case kotlinSplit
    }

    /// One key's entry after the journal is read.
    public struct Entry: Sendable, Equatable {
        /// A `CLEAN` line was seen: the library serves the entry (if its files exist).
        public var readable = false
        /// The last line was `DIRTY` (an edit never finished): the library deletes its files at open.
        public var dirty = false
        private var storedLengths: StoredLengths
        /// Position in LRU order: every line that names the key moves it to the most recent end.
        public var recency = 0

        public init(readable: Bool = false, dirty: Bool = false, lengths: [Int64], recency: Int = 0) {
            (self.readable, self.dirty, self.recency) = (readable, dirty, recency)
            storedLengths = StoredLengths(lengths)
        }

        /// The values' lengths, as the last `CLEAN` line gave them (zeros before one).
        public var lengths: [Int64] {
            get { storedLengths.array }
            set { storedLengths = StoredLengths(newValue) }
        }

        /// The number of values.
        public var valueCount: Int { storedLengths.count }

        /// Appends ` <length>` for each value to `line` (a `CLEAN` line), making no array.
        func appendLengths(to line: inout [UInt8]) {
            storedLengths.each { line.append(contentsOf: " \($0)".utf8) }
        }
    }

    /// An entry's lengths without an array of their own when they are one or two lengths below
    /// 4 GiB (Glide keeps one value an entry, Coil and OkHttp two): a 100,000-entry journal's
    /// arrays took 4.8 MB of a hits-only pass's 64 MB (docs/performance.md, issue 39).
    enum StoredLengths: Sendable, Equatable {
        case small(UInt32, UInt32, count: UInt8)
        case other([Int64])

        init(_ lengths: [Int64]) {
            if lengths.count <= 2, lengths.allSatisfy({ $0 >= 0 && $0 <= Int64(UInt32.max) }) {
                let first = lengths.first.map { UInt32($0) } ?? 0
                let second = lengths.count > 1 ? UInt32(lengths[1]) : 0
                self = .small(first, second, count: UInt8(lengths.count))
            } else {
                self = .other(lengths)
            }
        }

        var count: Int {
            switch self {
            case .small(_, _, let count): return Int(count)
            case .other(let lengths): return lengths.count
            }
        }

        /// Calls `body` with each length in order.
        func each(_ body: (Int64) -> Void) {
            switch self {
            case .small(let first, let second, let count):
                if count > 0 { body(Int64(first)) }
                if count > 1 { body(Int64(second)) }
            case .other(let lengths):
                for length in lengths { body(length) }
            }
        }

        var array: [Int64] {
            var lengths: [Int64] = []
            lengths.reserveCapacity(count)
            each { lengths.append($0) }
            return lengths
        }
    }

    public static let magic = "libcore.io.DiskLruCache"

    /// The entries by key (including dirty ones: `openEntries` drops those, as `processJournal` does).
    public internal(set) var entries: [String: Entry] = [:]
    /// Operation lines read (the header not counted).
    public internal(set) var lineCount = 0
    /// Bytes up to and including the last `\n`: an unterminated last line is ignored (the library
    /// rewrites the journal without it).
    public internal(set) var completeLength = 0
    private var clock = 0

    /// Why a library would discard the folder.
    public struct Corruption: Error, Sendable, Equatable, CustomStringConvertible {
        /// 1-based line number in the journal.
        public var line: Int
        public var reason: String
        /// The line is longer than `lineLimit`: imgwarm's verdict, not the library's (its reader
        /// has no limit).
        public var overLong = false
        public var description: String { "line \(line): \(reason)" }
    }

    /// Reads `bytes` as the library would. Bytes outside ASCII are refused too: the libraries decode
    /// them (US-ASCII or UTF-8) to replacement characters, so two different keys could become one.
    /// A line longer than `lineLimit` is refused as well (`Reader`).
    public static func parse(_ bytes: [UInt8], header: Header, dialect: Dialect) throws(Corruption) -> DiskLruJournal {
        var reader = Reader(header: header, dialect: dialect)
        try reader.feed(bytes[...])
        return try reader.finish()
    }

    /// A new journal: the header alone, as the library writes it for an empty cache.
    public static func empty(header: Header) -> DiskLruJournal {
        var journal = DiskLruJournal()
        try? journal.consume(header.bytes[...], header: header, dialect: .javaSplit)
        return journal
    }

    /// Reads complete lines appended to the journal already read (`completeLength` grows by their
    /// length), as the library would read them after the others.
    public mutating func append(_ lines: [UInt8], header: Header, dialect: Dialect) throws(Corruption) {
        try consume(lines[...], header: header, dialect: dialect)
    }

    /// Lines read, the header's included.
    public internal(set) var linesRead = 0

    /// The lines of `bytes` up to its last `\n`, each shorter than `lineLimit`.
    private mutating func consume(_ bytes: ArraySlice<UInt8>, header: Header, dialect: Dialect) throws(Corruption) {
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            try read(line: bytes[start..<newline], header: header, dialect: dialect)
            start = newline + 1
        }
    }

    /// One complete line, without its `\n`.
    mutating func read(line whole: ArraySlice<UInt8>, header: Header, dialect: Dialect) throws(Corruption) {
        linesRead += 1
        let lineNumber = linesRead
        guard whole.count <= DiskLruJournal.lineLimit else { throw DiskLruJournal.overLong(line: lineNumber) }
        var end = whole.endIndex
        // `StrictLineReader` and Okio's `readUtf8LineStrict` both take one `\r` before `\n` off.
        if end > whole.startIndex && whole[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = whole[whole.startIndex..<end]
        if let bad = line.first(where: { $0 >= 0x80 }) {
            throw Corruption(line: lineNumber, reason: "a byte outside ASCII (\(bad))")
        }
        if lineNumber <= 5 {
            let expected = [DiskLruJournal.magic, "1", String(header.appVersion), String(header.valueCount), ""][
                lineNumber - 1]
            guard line.elementsEqual(expected.utf8) else {
                throw Corruption(
                    line: lineNumber,
                    reason: "the header differs: '\(String(decoding: line, as: UTF8.self))' where '\(expected)' belongs"
                )
            }
        } else {
            try apply(line, header: header, dialect: dialect, lineNumber: lineNumber)
            lineCount += 1
        }
        completeLength += whole.count + 1
    }

    private mutating func apply(_ line: ArraySlice<UInt8>, header: Header, dialect: Dialect, lineNumber: Int)
        throws(Corruption)
    {
        let space = UInt8(ascii: " ")
        func corrupt(_ why: String) -> Corruption {
            Corruption(line: lineNumber, reason: "\(why) in '\(String(decoding: line, as: UTF8.self))'")
        }
        guard let firstSpace = line.firstIndex(of: space) else { throw corrupt("no space") }
        let operation = line[..<firstSpace]
        let secondSpace = line[(firstSpace + 1)...].firstIndex(of: space)
        let key = String(decoding: line[(firstSpace + 1)..<(secondSpace ?? line.endIndex)], as: UTF8.self)
        if secondSpace == nil && operation.elementsEqual("REMOVE".utf8) {
            entries[key] = nil
            return
        }
        // `lruEntries.get` / `getOrPut` on an access-ordered map: the key becomes the most recent,
        // even on a line that then proves corrupt (the library stops there anyway).
        clock += 1
        var entry = entries[key] ?? Entry(lengths: Array(repeating: 0, count: header.valueCount))
        entry.recency = clock
        if let secondSpace, operation.elementsEqual("CLEAN".utf8) {
            let rest = line[(secondSpace + 1)...]
            var parts = rest.split(separator: space, omittingEmptySubsequences: false)
            if dialect == .javaSplit && rest.contains(space) {
                // Java's `split` drops trailing empty strings (all of them, when only spaces are left).
                while parts.last?.isEmpty == true { parts.removeLast() }
            }
            guard parts.count == header.valueCount else {
                throw corrupt("\(parts.count) lengths where \(header.valueCount) belong")
            }
            var lengths: [Int64] = []
            lengths.reserveCapacity(parts.count)
            for part in parts {
                guard let length = DiskLruJournal.parseLong(part) else {
                    throw corrupt("'\(String(decoding: part, as: UTF8.self))' is not a length")
                }
                lengths.append(length)
            }
            entry.readable = true
            entry.dirty = false
            entry.lengths = lengths
        } else if secondSpace == nil && operation.elementsEqual("DIRTY".utf8) {
            entry.dirty = true
        } else if secondSpace == nil && operation.elementsEqual("READ".utf8) {
            // Only the move to the most recent end.
        } else {
            throw corrupt("an unknown operation")
        }
        entries[key] = entry
    }

    /// Java's `Long.parseLong` on ASCII: an optional sign, then one or more decimal digits, within
    /// 64 bits.
    static func parseLong<Bytes: Collection<UInt8>>(_ text: Bytes) -> Int64? {
        var digits = text[...]
        var negative = false
        if let first = digits.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            negative = first == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            let d = Int64(digit - UInt8(ascii: "0"))
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            let (next, overflow2) =
                negative ? shifted.subtractingReportingOverflow(d) : shifted.addingReportingOverflow(d)
            guard !overflow2 else { return nil }
            value = next
        }
        return value
    }

    /// The entries the library keeps once open (`processJournal` drops the dirty ones), least
    /// recently used first.
    public var openEntries: [(key: String, entry: Entry)] {
        entries.filter { !$0.value.dirty }.map { (key: $0.key, entry: $0.value) }.sorted {
            $0.entry.recency < $1.entry.recency
        }
    }

    /// The size the library counts at open: the lengths of the entries it keeps.
    public var openSize: Int64 {
        entries.values.reduce(0) { total, entry in entry.dirty ? total : total &+ entry.lengths.reduce(0, &+) }
    }

    /// True when the library serves `key` (its files still have to exist).
    public func isReadable(_ key: String) -> Bool {
        guard let entry = entries[key] else { return false }
        return entry.readable && !entry.dirty
    }
}
