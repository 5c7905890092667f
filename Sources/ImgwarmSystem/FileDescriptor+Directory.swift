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
        // `d_name` is declared as 256 bytes, but a record holds only its name and the NUL: the
        // name is read where it lies. (`withUnsafePointer(to: record.pointee.d_name)` copied the
        // whole array first, which read past the end of readdir's buffer when the record was its
        // last and the buffer ended a mapping: a crash in FolderWalkTests, one run in five.)
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let record = readdir(directory) {
            let start = (UnsafeRawPointer(record) + nameOffset).assumingMemoryBound(to: UInt8.self)
            let length = strnlen(UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), 256)
            if length == 1 && start[0] == UInt8(ascii: ".") { continue }
            if length == 2 && start[0] == UInt8(ascii: ".") && start[1] == UInt8(ascii: ".") { continue }
            try body(UnsafeBufferPointer(start: start, count: length))
        }
    }
}
