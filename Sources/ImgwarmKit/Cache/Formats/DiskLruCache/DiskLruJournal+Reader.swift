/// Reading a journal as a stream (docs/cache-formats-android.md, "Reading a journal as a stream"):
/// chunks in, complete lines to the parser, and nothing kept but the entries and the one line
/// not yet ended, which never grows past `lineLimit`.
extension DiskLruJournal {
    /// The longest line imgwarm reads, in bytes before its `\n` (a `\r` there included). The libraries never write one
    /// longer than about 150 bytes (a 64-hex-digit key and its lengths).
    public static let lineLimit = 64 << 10

    /// The verdict on a complete line longer than `lineLimit`. The libraries' readers have no
    /// limit (Glide's `StrictLineReader` and Okio's `readUtf8LineStrict()` read a line of any
    /// length): imgwarm does not follow them there, and treats the journal as one it cannot read,
    /// so it never writes to it, as for a journal the library finds corrupt.
    static func overLong(line: Int) -> Corruption {
        Corruption(line: line, reason: "a line longer than \(lineLimit) bytes", overLong: true)
    }

    /// Feeds a journal to the parser in chunks of any size.
    public struct Reader {
        public let header: Header
        public let dialect: Dialect
        private var journal = DiskLruJournal()
        /// The start of a line the chunks so far did not end.
        private var partial: [UInt8] = []
        /// A line longer than `lineLimit` is being passed over: its bytes are not kept.
        private var skipping = false
        /// The most bytes of a line ever held at once (for tests: never more than `lineLimit`).
        public private(set) var mostBuffered = 0
        /// Bytes fed.
        public private(set) var length = 0

        public init(header: Header, dialect: Dialect) {
            self.header = header
            self.dialect = dialect
        }

        /// Reads the lines `chunk` ends; keeps the start of the line it leaves open.
        public mutating func feed(_ chunk: ArraySlice<UInt8>) throws(Corruption) {
            length += chunk.count
            var start = chunk.startIndex
            while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
                if skipping {
                    // The over-long line ends: the verdict is known without its bytes.
                    throw DiskLruJournal.overLong(line: journal.linesRead + 1)
                }
                if partial.isEmpty {
                    try journal.read(line: chunk[start..<newline], header: header, dialect: dialect)
                } else {
                    try keep(chunk[start..<newline])
                    if skipping { throw DiskLruJournal.overLong(line: journal.linesRead + 1) }
                    try journal.read(line: partial[...], header: header, dialect: dialect)
                    partial.removeAll(keepingCapacity: true)
                }
                start = newline + 1
            }
            if !skipping { try keep(chunk[start...]) }
        }

        /// Adds `bytes` to the open line, or passes over the line once it is too long.
        private mutating func keep(_ bytes: ArraySlice<UInt8>) throws(Corruption) {
            guard !bytes.isEmpty else { return }
            guard partial.count + bytes.count <= DiskLruJournal.lineLimit else {
                partial = []
                skipping = true
                return
            }
            partial.append(contentsOf: bytes)
            mostBuffered = max(mostBuffered, partial.count)
        }

        /// The journal read: a last line without `\n` is left out (the library drops it), so is an
        /// over-long one.
        public func finish() throws(Corruption) -> DiskLruJournal {
            if journal.linesRead < 5 {
                throw Corruption(line: journal.linesRead + 1, reason: "the header ends early")
            }
            return journal
        }
    }

    /// True when the journal ends with a line without `\n` (the library rewrites it without).
    public func endsUnterminated(length: Int) -> Bool { length > completeLength }
}
