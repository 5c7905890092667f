extension FileSystem {
    /// The text of the regular file at `path` when it holds at most `limit` bytes; nil when it
    /// is missing, not a regular file (a device, a FIFO: reading would block or never end) or
    /// larger.
    public static func readSmallRegularFile(_ path: String, limit: Int) -> String? {
        guard let status = try? FileSystem.status(ofPath: path), status.kind == .file, status.size <= limit,
            let file = try? FileDescriptor.openForReading(path)
        else { return nil }
        defer { file.close() }
        var bytes = [UInt8](repeating: 0, count: Int(status.size))
        var offset = 0
        while offset < bytes.count {
            guard let count = try? file.read(into: &bytes, from: offset), count > 0 else { break }
            offset += count
        }
        return String(decoding: bytes[..<offset], as: UTF8.self)
    }

    /// What `readRegularFile(atPath:limit:)` found.
    public enum RegularFileRead: Sendable {
        case bytes([UInt8])
        case absent
        /// Something else is at the path ("a FIFO", "a symbolic link"): not opened, not waited on.
        case other(String)
        /// A regular file larger than the limit: not read.
        case tooLarge
        case unreadable(SystemError)
    }

    /// The bytes of the regular file at `path` when it holds at most `limit` bytes, opened only
    /// when it is one (`FileDescriptor.openRegularFile(atPath:)`: a FIFO or a device swapped in
    /// is never opened nor waited on, a link at the last component never followed).
    public static func readRegularFile(atPath path: String, limit: Int) -> RegularFileRead {
        let file: FileDescriptor
        let info: FileStatus
        do {
            switch try FileDescriptor.openRegularFile(atPath: path) {
            case .opened(let opened, let status): (file, info) = (opened, status)
            case .absent: return .absent
            case .other(let kind): return .other(kind)
            }
        } catch {
            return .unreadable(error)
        }
        defer { file.close() }
        guard info.size <= UInt64(limit) else { return .tooLarge }
        var bytes = [UInt8](repeating: 0, count: Int(info.size))
        var count = 0
        while count < bytes.count {
            do {
                let read = try file.read(into: &bytes, from: count)
                if read == 0 { break }
                count += read
            } catch {
                return .unreadable(error)
            }
        }
        return .bytes(Array(bytes[..<count]))
    }
}
