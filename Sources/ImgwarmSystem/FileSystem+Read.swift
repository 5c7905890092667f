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
}
