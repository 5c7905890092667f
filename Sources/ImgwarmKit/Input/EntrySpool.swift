import ImgwarmSystem

/// The URLs of one priority waiting to start, kept in an unlinked temporary file so that a list
/// of millions of lines costs a few pages of memory, not the whole list.
///
/// Records are read back in segments of `segmentSize`, front to back (FIFO) or back to front
/// (LIFO, SDWebImage's `executionOrder = .lifo`); only one segment is in memory at a time.
final class EntrySpool {
    static let segmentSize = 1024

    private let descriptor: FileDescriptor
    private var buffer: [UInt8] = []
    private var written: Int64 = 0
    /// File offset where each segment starts, and the offset after the last record.
    private var segmentStarts: [Int64] = [0]
    private var inSegment = 0
    private(set) var count = 0
    private(set) var remaining = 0

    // Reading state.
    private var order: ExecutionOrder = .fifo
    private var nextSegment = 0
    private var loaded: [PendingEntry] = []
    private var loadedIndex = 0
    private let priority: Priority

    /// Creates the spool in `folder` (the file has no name: it disappears with the process).
    init(priority: Priority, folder: String) throws(SpoolError) {
        self.priority = priority
        do {
            descriptor = try FileDescriptor.scratchFile(in: folder)
        } catch {
            throw SpoolError(folder: folder, code: error.code)
        }
        buffer.reserveCapacity(1 << 16)
    }

    deinit { descriptor.close() }

    struct SpoolError: Error, CustomStringConvertible {
        var folder: String
        var code: Int32
        var description: String { "cannot create a temporary file in \(folder): \(SystemError.message(code))" }
    }

    // MARK: Writing

    /// The high bit of a record's URL length: a key of its own follows the URL.
    private static let hasKey: UInt32 = 1 << 31
    /// The next bit: request headers follow (after the key), a count and each `length, bytes`.
    private static let hasHeaders: UInt32 = 1 << 30
    /// The next bit: a body source (`BodySource`) follows the headers: its kind (one byte,
    /// `BodySource.spoolFields`), a count and each field's `length, bytes`.
    private static let hasBody: UInt32 = 1 << 29

    /// Appends one entry. A record is `line, input, URL length` (three UInt32) and the URL; when
    /// the key differs from the URL, the length's high bit is set and `key length, key` follow, so
    /// the usual line (key = URL) costs nothing extra.
    func append(
        line: Int, input: Int, url: String, key: String, headers: [String] = [], body: BodySource? = nil
    ) throws(SpoolError) {
        let separate = key != url
        var header = (
            UInt32(truncatingIfNeeded: line), UInt32(truncatingIfNeeded: input),
            UInt32(url.utf8.count) | (separate ? EntrySpool.hasKey : 0) | (headers.isEmpty ? 0 : EntrySpool.hasHeaders)
                | (body != nil ? EntrySpool.hasBody : 0)
        )
        withUnsafeBytes(of: &header) { buffer.append(contentsOf: $0) }
        buffer.append(contentsOf: url.utf8)
        if separate {
            var length = UInt32(key.utf8.count)
            withUnsafeBytes(of: &length) { buffer.append(contentsOf: $0) }
            buffer.append(contentsOf: key.utf8)
        }
        if !headers.isEmpty { appendStrings(headers) }
        if let (kind, fields) = body?.spoolFields {
            buffer.append(kind)
            appendStrings(fields)
        }
        count += 1
        remaining += 1
        inSegment += 1
        if inSegment == EntrySpool.segmentSize {
            try flush()
            segmentStarts.append(written)
            inSegment = 0
        }
        if buffer.count >= 1 << 16 { try flush() }
    }

    private func flush() throws(SpoolError) {
        do throws(SystemError) {
            try descriptor.writeAll(buffer, at: written)
        } catch {
            throw SpoolError(folder: "the spool", code: error.code)
        }
        written += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Ends writing; reading starts in `order`.
    func finishWriting(order: ExecutionOrder) throws(SpoolError) {
        try flush()
        if inSegment > 0 || segmentStarts.count == 1 { segmentStarts.append(written) }
        if segmentStarts.count >= 2 && segmentStarts[segmentStarts.count - 1] == segmentStarts[segmentStarts.count - 2]
        {
            segmentStarts.removeLast()
        }
        self.order = order
        nextSegment = order == .fifo ? 0 : segmentStarts.count - 2
        buffer = []
    }

    /// A count, then each string's `length, bytes`.
    private func appendStrings(_ strings: [String]) {
        var number = UInt32(strings.count)
        withUnsafeBytes(of: &number) { buffer.append(contentsOf: $0) }
        for text in strings {
            var length = UInt32(text.utf8.count)
            withUnsafeBytes(of: &length) { buffer.append(contentsOf: $0) }
            buffer.append(contentsOf: text.utf8)
        }
    }

    // MARK: Reading

    /// The next entry in the chosen order, or nil when all were handed out.
    func next() -> PendingEntry? {
        while true {
            if loadedIndex >= loaded.count {
                guard loadSegment() else { return nil }
            }
            let entry = loaded[loadedIndex]
            loadedIndex += 1
            if let skipped, skipped(entry) { continue }
            remaining -= 1
            return entry
        }
    }

    /// Entries `next()` passes over (removed by `remove(where:)`).
    private var skipped: ((PendingEntry) -> Bool)?

    /// Takes out every entry `isRemoved` says, handing each to `body` in list order (one segment
    /// in memory at a time); `next()` never returns them. Call once, after `finishWriting`.
    func remove(where isRemoved: @escaping (PendingEntry) -> Bool, _ body: (PendingEntry) -> Void) {
        let chosen = order
        order = .fifo
        nextSegment = 0
        while loadSegment() {
            for entry in loaded where isRemoved(entry) {
                remaining -= 1
                body(entry)
            }
        }
        order = chosen
        nextSegment = order == .fifo ? 0 : segmentStarts.count - 2
        loaded.removeAll(keepingCapacity: true)
        loadedIndex = 0
        skipped = isRemoved
    }

    private func loadSegment() -> Bool {
        let segments = segmentStarts.count - 1
        guard segments > 0, nextSegment >= 0, nextSegment < segments else { return false }
        let start = segmentStarts[nextSegment]
        let end = segmentStarts[nextSegment + 1]
        nextSegment += order == .fifo ? 1 : -1
        var bytes = [UInt8](repeating: 0, count: Int(end - start))
        var offset = 0
        while offset < bytes.count {
            let result = (try? descriptor.read(into: &bytes, from: offset, at: start + Int64(offset))) ?? 0
            if result <= 0 { return false }
            offset += result
        }
        loaded.removeAll(keepingCapacity: true)
        loadedIndex = 0
        var position = 0
        while position + 12 <= bytes.count {
            let (line, input, length) = bytes.withUnsafeBytes { raw in
                (
                    raw.loadUnaligned(fromByteOffset: position, as: UInt32.self),
                    raw.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self),
                    raw.loadUnaligned(fromByteOffset: position + 8, as: UInt32.self)
                )
            }
            position += 12
            let urlLength = Int(length & ~(EntrySpool.hasKey | EntrySpool.hasHeaders | EntrySpool.hasBody))
            let url = String(decoding: bytes[position..<(position + urlLength)], as: UTF8.self)
            position += urlLength
            var key: String?
            if length & EntrySpool.hasKey != 0 {
                let keyLength = Int(
                    bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: UInt32.self) })
                position += 4
                key = String(decoding: bytes[position..<(position + keyLength)], as: UTF8.self)
                position += keyLength
            }
            var entry = PendingEntry(line: Int(line), input: Int(input), url: url, key: key, priority: priority)
            if length & EntrySpool.hasHeaders != 0 { entry.headers = EntrySpool.strings(in: bytes, at: &position) }
            if length & EntrySpool.hasBody != 0 {
                let kind = bytes[position]
                position += 1
                entry.body = BodySource(spoolKind: kind, fields: EntrySpool.strings(in: bytes, at: &position))
            }
            loaded.append(entry)
        }
        if order == .lifo { loaded.reverse() }
        return !loaded.isEmpty
    }

    /// The strings `appendStrings` wrote at `position`, which moves past them.
    private static func strings(in bytes: [UInt8], at position: inout Int) -> [String] {
        let number = Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: UInt32.self) })
        position += 4
        var strings: [String] = []
        for _ in 0..<number {
            let length = Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: UInt32.self) })
            position += 4
            strings.append(String(decoding: bytes[position..<(position + length)], as: UTF8.self))
            position += length
        }
        return strings
    }
}
