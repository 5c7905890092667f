import CArchive

#if canImport(Glibc)
    import Glibc
#endif

/// Where a `TarReader` gets its bytes: a pipe from a device, a file. `read` fills `buffer` and
/// returns how many bytes it put there, 0 at the end of the stream; what it throws ends the
/// reading and is what `TarReader` throws.
public protocol TarSource: AnyObject {
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// One member of a tar stream, as its header (and any pax or GNU header before it) describes it.
public struct TarMember: Sendable {
    public enum Kind: Sendable, Equatable {
        case file
        case directory
        case symbolicLink
        /// A member that names an earlier one (a hard link).
        case hardLink
        /// A device node, a FIFO, a socket: its type bits (`S_IFMT`).
        case other(UInt32)
    }

    /// The member's name as the archive spells it (bytes: a name need not be UTF-8).
    public var path: [UInt8]
    public var kind: Kind
    /// The permission bits, with the setuid, setgid and sticky bits (`07777`).
    public var mode: UInt32
    /// The size its header gives for its data.
    public var size: Int64
    /// Its modification and access times (seconds and nanoseconds since 1970), when recorded.
    public var modified: (seconds: Int64, nanoseconds: Int64)?
    public var accessed: (seconds: Int64, nanoseconds: Int64)?
}

/// A tar stream read member by member with libarchive's tar reader (Debian's libarchive13),
/// the tar format alone: no filter, so no compressed stream is ever inflated. libarchive only
/// parses; what to do with each member is the caller's (`pull` creates every file itself).
///
/// libarchive reports the end of a stream that simply stops at a block boundary as a clean end
/// ("some writers omit the block of nulls", archive_read_support_format_tar.c), so a copy cut
/// between two members would look whole. `next()` therefore measures what the reader consumed
/// to find the end: the two 512-byte blocks of zeros that end every archive GNU tar, busybox and
/// toybox write (`endedWithTrailer`).
public final class TarReader {
    /// Why the stream could not be read.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// libarchive's own word: a truncated member, a damaged header.
        case format(String)

        public var description: String {
            switch self {
            case .format(let said): return said
            }
        }
    }

    private let archive: OpaquePointer
    private let client: Client
    private var entry: OpaquePointer?
    /// True once `next()` returned nil after the stream's end-of-archive blocks.
    public private(set) var endedWithTrailer = false

    /// The bytes of one read of the source, kept alive between libarchive's calls.
    final class Client {
        let source: any TarSource
        let buffer: UnsafeMutableRawBufferPointer
        var error: (any Error)?

        init(source: any TarSource, size: Int) {
            self.source = source
            buffer = .allocate(byteCount: size, alignment: 16)
        }

        deinit { buffer.deallocate() }
    }

    /// Opens the stream; `blockSize` bytes are asked of `source` at a time. 64 KiB by default.
    public init(source: any TarSource, blockSize: Int = 64 << 10) throws {
        guard let archive = archive_read_new() else { throw Failure.format("libarchive could not start a reader") }
        self.archive = archive
        client = Client(source: source, size: blockSize)
        archive_read_support_format_tar(archive)
        let opened = archive_read_open(
            archive, Unmanaged.passUnretained(client).toOpaque(), nil,
            { _, data, buffer in
                let client = Unmanaged<TarReader.Client>.fromOpaque(data!).takeUnretainedValue()
                do {
                    let count = try client.source.read(into: client.buffer)
                    buffer?.pointee = UnsafeRawPointer(client.buffer.baseAddress)
                    return la_ssize_t(count)
                } catch {
                    client.error = error
                    return -1
                }
            }, nil)
        if opened != ARCHIVE_OK { throw failure() }
    }

    deinit { archive_read_free(archive) }

    /// What went wrong: the source's own error first, else libarchive's message. (Returned, not
    /// thrown by a `Never` function: the optimizer warned of code after such a call in `init`.)
    private func failure() -> any Error {
        if let error = client.error { return error }
        let said = archive_error_string(archive).map { String(cString: $0) } ?? "the stream cannot be read as tar"
        return Failure.format(said)
    }

    /// The next member; nil at the end of the stream (`endedWithTrailer` says how it ended).
    /// What is left of the previous member's data is skipped.
    public func next() throws -> TarMember? {
        if entry != nil, archive_read_data_skip(archive) != ARCHIVE_OK { throw failure() }
        entry = nil
        let before = archive_filter_bytes(archive, 0)
        var found: OpaquePointer?
        let result = archive_read_next_header(archive, &found)
        if result == ARCHIVE_EOF {
            // Both blocks of zeros consumed: 1024 bytes (libarchive stops after the second).
            endedWithTrailer = archive_filter_bytes(archive, 0) - before >= 1024
            return nil
        }
        guard result >= ARCHIVE_WARN, let found else { throw failure() }
        entry = found
        return member(found)
    }

    private func member(_ entry: OpaquePointer) -> TarMember {
        let name = archive_entry_pathname_utf8(entry) ?? archive_entry_pathname(entry)
        let path = name.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
        let type = UInt32(archive_entry_filetype(entry))
        let kind: TarMember.Kind
        if archive_entry_hardlink(entry) != nil {
            kind = .hardLink
        } else if type == 0o100000 {
            kind = .file
        } else if type == 0o040000 {
            kind = .directory
        } else if type == 0o120000 {
            kind = .symbolicLink
        } else {
            kind = .other(type)
        }
        let modified =
            archive_entry_mtime_is_set(entry) != 0
            ? (Int64(archive_entry_mtime(entry)), Int64(archive_entry_mtime_nsec(entry))) : nil
        let accessed =
            archive_entry_atime_is_set(entry) != 0
            ? (Int64(archive_entry_atime(entry)), Int64(archive_entry_atime_nsec(entry))) : nil
        return TarMember(
            path: path, kind: kind, mode: UInt32(archive_entry_mode(entry)) & 0o7777,
            size: archive_entry_size_is_set(entry) != 0 ? Int64(archive_entry_size(entry)) : 0,
            modified: modified.map { (seconds: $0.0, nanoseconds: $0.1) },
            accessed: accessed.map { (seconds: $0.0, nanoseconds: $0.1) })
    }

    /// Reads the current member's data into `buffer`: the count, 0 at its end.
    public func readData(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = archive_read_data(archive, buffer.baseAddress, buffer.count)
        if count < 0 { throw failure() }
        return Int(count)
    }
}
