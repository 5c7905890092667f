#if canImport(Glibc)
    import Glibc
#endif

/// Read-only memory maps of whole files: large downloads are validated from their temporary
/// file without reading them into memory.
public enum MappedFile {
    /// Calls `body` with the bytes of the file at `path`; nil when it cannot be mapped (missing,
    /// empty, unreadable).
    public static func withContents<T>(of path: String, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
        guard let file = try? FileDescriptor.openForReading(path) else { return nil }
        defer { file.close() }
        guard let info = try? file.status(), info.size > 0 else { return nil }
        let size = Int(info.size)
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, file.rawValue, 0), address != MAP_FAILED else {
            return nil
        }
        defer { munmap(address, size) }
        return body(UnsafeRawBufferPointer(start: address, count: size))
    }
}
