import ImgwarmSystem

/// Reads a file descriptor line by line in large chunks, without holding more than one chunk and
/// one line in memory.
///
/// A line longer than `maxLineLength` is not accumulated: the reader hands it over cut to that
/// length with `truncated` set, and skips to the next line ending, so a hostile megabyte-long
/// line costs no more memory than the limit.
public struct LineReader {
    public let descriptor: FileDescriptor
    public let maxLineLength: Int
    /// The `errno` of a failed read, if one happened.
    public private(set) var readError: SystemError?
    /// Readable when reading must stop (a signal's pipe, `StopSource`): each read first waits for
    /// the input or this, whichever comes first. nil (never stops) by default.
    public var stop: FileDescriptor?
    /// True when reading ended because `stop` became readable, before the input's end.
    public private(set) var stopped = false
    /// Bytes already read from the descriptor (to tell the list's format, `OpenedList`), read
    /// first; at most 64 KiB.
    private var head: [UInt8]

    public init(
        descriptor: FileDescriptor, maxLineLength: Int = 1 << 20, stop: FileDescriptor? = nil, head: [UInt8] = []
    ) {
        self.descriptor = descriptor
        self.maxLineLength = maxLineLength
        self.stop = stop
        self.head = head
    }

    /// Calls `body` with each line and whether it was cut at `maxLineLength`.
    public mutating func forEachLine(_ body: (ArraySlice<UInt8>, _ truncated: Bool) -> Void) {
        let chunkSize = max(1 << 16, head.count)
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var pending: [UInt8] = []
        var truncated = false
        while true {
            let count: Int
            if !head.isEmpty {
                chunk.replaceSubrange(0..<head.count, with: head)
                count = head.count
                head = []
            } else {
                if let stop, !descriptor.waitReadable(unlessReadable: stop) {
                    stopped = true
                    break
                }
                do throws(SystemError) {
                    count = try descriptor.read(into: &chunk)
                } catch {
                    readError = error
                    break
                }
            }
            if count == 0 { break }
            var start = 0
            while start < count {
                guard let newline = chunk[start..<count].firstIndex(of: UInt8(ascii: "\n")) else {
                    append(chunk[start..<count], to: &pending, truncated: &truncated)
                    break
                }
                if pending.isEmpty && !truncated {
                    if newline - start > maxLineLength {
                        body(chunk[start..<(start + maxLineLength)], true)
                    } else {
                        body(chunk[start..<newline], false)
                    }
                } else {
                    append(chunk[start..<newline], to: &pending, truncated: &truncated)
                    body(pending[...], truncated)
                    pending.removeAll(keepingCapacity: pending.count <= chunkSize)
                    truncated = false
                }
                start = newline + 1
            }
        }
        // A line cut by a stop was not read whole: it is not handed over.
        if !stopped && (!pending.isEmpty || truncated) { body(pending[...], truncated) }
    }

    private func append(_ bytes: ArraySlice<UInt8>, to pending: inout [UInt8], truncated: inout Bool) {
        let room = maxLineLength - pending.count
        if bytes.count > room {
            pending.append(contentsOf: bytes.prefix(max(0, room)))
            truncated = true
        } else {
            pending.append(contentsOf: bytes)
        }
    }
}
