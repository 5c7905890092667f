import ImgwarmSystem

/// A POSIX pax archive (`pax` interchange format: ustar headers, each member preceded by an
/// extended header), written so that the same members give the same bytes (`imgwarm pack`,
/// docs/pack.md).
///
/// Written here rather than through libarchive (Debian's `libarchive-dev`): that would be a new C
/// library to install and link for some 200 lines, and its pax writer chooses the extended
/// headers' names and fields itself, which may change with its version. Determinism is the point
/// of the archive, so every byte is decided here: uid and gid 0, no owner names, no device
/// numbers, mode 0600 for files and 0700 for folders, each member's `path`, `mtime` and `atime`
/// (to the nanosecond) in its extended header, `size` there only when the ustar field cannot hold
/// it. The caller gives the members in the order they are to appear.
public struct PaxArchive {
    /// Where the archive's bytes go, in order.
    public typealias Sink = ([UInt8]) throws(SystemError) -> Void

    private let sink: Sink
    private var buffer: [UInt8] = []
    private static let block = 512
    private static let flushSize = 1 << 16

    public init(sink: @escaping Sink) {
        self.sink = sink
        buffer.reserveCapacity(PaxArchive.flushSize + PaxArchive.block)
    }

    /// A folder member (`path` without a trailing slash).
    public mutating func addFolder(path: String, modified: Timestamp, accessed: Timestamp) throws(SystemError) {
        try addHeaders(path: path + "/", size: 0, modified: modified, accessed: accessed, type: "5", mode: 0o700)
    }

    /// A file member whose bytes are `bytes`.
    public mutating func addFile(path: String, bytes: [UInt8], modified: Timestamp, accessed: Timestamp)
        throws(SystemError)
    {
        try addHeaders(path: path, size: UInt64(bytes.count), modified: modified, accessed: accessed, type: "0")
        buffer.append(contentsOf: bytes)
        try pad()
    }

    /// A file member of `size` bytes read from `file`, which must hold exactly that many.
    public mutating func addFile(
        path: String, size: UInt64, from file: FileDescriptor, modified: Timestamp, accessed: Timestamp
    ) throws(PackReadError) {
        do {
            try addHeaders(path: path, size: size, modified: modified, accessed: accessed, type: "0")
        } catch {
            throw .output(error)
        }
        var chunk = [UInt8](repeating: 0, count: PaxArchive.flushSize)
        var left = size
        while left > 0 {
            let count: Int
            do {
                count = try file.read(into: &chunk, from: 0)
            } catch {
                throw .input(path, error)
            }
            guard count > 0, UInt64(count) <= left else { throw .changedSize(path) }
            buffer.append(contentsOf: chunk[0..<count])
            left -= UInt64(count)
            do {
                try flushIfFull()
            } catch {
                throw .output(error)
            }
        }
        let extra: Int
        do {
            extra = try file.read(into: &chunk, from: 0)
        } catch {
            throw .input(path, error)
        }
        guard extra == 0 else { throw .changedSize(path) }
        do {
            try pad()
        } catch {
            throw .output(error)
        }
    }

    /// The two zero blocks that end the archive, then everything still buffered.
    public mutating func finish() throws(SystemError) {
        buffer.append(contentsOf: [UInt8](repeating: 0, count: 2 * PaxArchive.block))
        try sink(buffer)
        buffer.removeAll(keepingCapacity: false)
    }

    // MARK: - Headers

    private mutating func addHeaders(
        path: String, size: UInt64, modified: Timestamp, accessed: Timestamp, type: Character, mode: Int = 0o600
    ) throws(SystemError) {
        let ustarSizeLimit: UInt64 = 0o77777777777
        // Fixed key order (alphabetical, as the pax standard's examples list them).
        var records = [("atime", PaxArchive.time(accessed)), ("mtime", PaxArchive.time(modified)), ("path", path)]
        if size > ustarSizeLimit { records.append(("size", String(size))) }
        var extended: [UInt8] = []
        for (key, value) in records { extended += PaxArchive.record(key, value) }
        let base = path.split(separator: "/").last.map(String.init) ?? path
        buffer += PaxArchive.header(
            name: Array(("PaxHeaders/" + base).utf8.prefix(100)), size: UInt64(extended.count),
            modified: modified, type: "x", mode: 0o600)
        buffer += extended
        try pad()
        buffer += PaxArchive.header(
            name: Array(path.utf8.prefix(100)), size: min(size, ustarSizeLimit), modified: modified, type: type,
            mode: mode)
    }

    /// One ustar header block. Fields the archive leaves out (link name, owner names, device
    /// numbers, prefix) are all zero bytes.
    static func header(name: [UInt8], size: UInt64, modified: Timestamp, type: Character, mode: Int) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: PaxArchive.block)
        func put(_ bytes: [UInt8], at offset: Int) {
            for (index, byte) in bytes.enumerated() { block[offset + index] = byte }
        }
        func octal(_ value: UInt64, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8) + [0]
        }
        put(name, at: 0)
        put(octal(UInt64(mode), width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(size, width: 12), at: 124)
        put(octal(UInt64(max(0, modified.seconds)), width: 12), at: 136)
        put(Array("        ".utf8), at: 148)
        put([type.asciiValue ?? UInt8(ascii: "0")], at: 156)
        put(Array("ustar\u{0}00".utf8), at: 257)
        let sum = block.reduce(0) { $0 + UInt64($1) }
        put(octal(sum, width: 7) + [UInt8(ascii: " ")], at: 148)
        return block
    }

    /// A pax record, `"<length> <key>=<value>\n"`, whose length counts its own digits.
    static func record(_ key: String, _ value: String) -> [UInt8] {
        let body = " \(key)=\(value)\n".utf8.count
        var length = body + String(body).count
        if String(length).count != String(body).count { length = body + String(length).count }
        return Array("\(length) \(key)=\(value)\n".utf8)
    }

    /// A time as pax writes it: seconds, a point and always nine digits of nanoseconds (a time
    /// before 1970 is written as 1970: no cache file has one).
    static func time(_ time: Timestamp) -> String {
        guard time.seconds >= 0 else { return "0.000000000" }
        let nanoseconds = String(time.nanoseconds)
        return "\(time.seconds)." + String(repeating: "0", count: 9 - nanoseconds.count) + nanoseconds
    }

    private mutating func pad() throws(SystemError) {
        let remainder = buffer.count % PaxArchive.block
        if remainder != 0 { buffer += [UInt8](repeating: 0, count: PaxArchive.block - remainder) }
        try flushIfFull()
    }

    private mutating func flushIfFull() throws(SystemError) {
        guard buffer.count >= PaxArchive.flushSize else { return }
        // Whole blocks only leave the buffer until `finish`: the partial one is still being filled.
        let whole = buffer.count - buffer.count % PaxArchive.block
        try sink(Array(buffer[0..<whole]))
        buffer.removeFirst(whole)
    }
}

/// Why a member read from a file could not be archived.
public enum PackReadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Reading the member's file failed.
    case input(String, SystemError)
    /// The file held more or fewer bytes than its size said when it was listed.
    case changedSize(String)
    /// Writing the archive failed.
    case output(SystemError)

    public var description: String {
        switch self {
        case .input(let path, let error): return "cannot read \(path): \(error)"
        case .changedSize(let path): return "\(path) changed size while it was packed"
        case .output(let error): return "cannot write the archive: \(error)"
        }
    }
}
