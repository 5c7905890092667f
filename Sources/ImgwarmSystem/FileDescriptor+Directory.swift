#if canImport(Glibc)
    import Glibc
#endif

/// One name in a folder, as `readdir` returns it.
public struct DirectoryEntry: Sendable {
    /// The name, or nil when it is not valid UTF-8 (no name imgwarm or SDWebImage writes).
    public var name: String?
    /// The name with invalid UTF-8 repaired, for messages and counting.
    public var displayName: String
}

extension FileDescriptor {
    /// Calls `body` for every entry of this folder but `.` and `..`, in directory order, from the
    /// start (the iteration uses its own descriptor, so this one's position does not matter).
    public func forEachEntry(_ body: (DirectoryEntry) throws -> Void) throws {
        try forEachRawName { bytes in
            let name = String(validating: bytes, as: UTF8.self)
            try body(DirectoryEntry(name: name, displayName: name ?? String(decoding: bytes, as: UTF8.self)))
        }
    }

    /// Calls `body` with the bytes of every name but `.` and `..` (no String is made: for
    /// folders of hundreds of thousands of files).
    public func forEachRawName(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        guard let directory = fdopendir(try duplicate().rawValue) else { throw SystemError.last("fdopendir") }
        defer { closedir(directory) }
        rewinddir(directory)
        while let record = readdir(directory) {
            try withUnsafePointer(to: record.pointee.d_name) { pointer in
                try pointer.withMemoryRebound(to: UInt8.self, capacity: 256) { start in
                    let length = strnlen(UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), 256)
                    let bytes = UnsafeBufferPointer(start: start, count: length)
                    if length == 1 && start[0] == UInt8(ascii: ".") { return }
                    if length == 2 && start[0] == UInt8(ascii: ".") && start[1] == UInt8(ascii: ".") { return }
                    try body(bytes)
                }
            }
        }
    }
}
