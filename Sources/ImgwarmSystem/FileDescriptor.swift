import CImgwarmSys

#if canImport(Glibc)
    import Glibc
#endif

/// An open file or folder: the one type through which the engine makes system calls on files.
///
/// A plain value (it does not close itself): the owner that opened it closes it, once, in its
/// own `deinit` or `defer`. Calls that name a file take it relative to a folder descriptor
/// (`openat`, `fstatat`, `renameat`, `unlinkat`…), so a folder renamed or replaced meanwhile
/// cannot redirect them, and never follow a symbolic link unless they say so. Interrupted
/// calls (`EINTR`) are retried.
public struct FileDescriptor: Sendable, Hashable {
    /// The descriptor number: not public API. Inside the package it is for the calls this layer
    /// makes and for handing the descriptor to a C library (libcurl's poll).
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The standard streams of the calling thread's `ProcessContext`: descriptors 0, 1 and 2 but
    /// for a command the tests run in-process.
    public static var standardInput: FileDescriptor {
        ProcessContext.current?.input ?? FileDescriptor(rawValue: STDIN_FILENO)
    }
    public static var standardOutput: FileDescriptor {
        ProcessContext.current?.output ?? FileDescriptor(rawValue: STDOUT_FILENO)
    }
    public static var standardError: FileDescriptor {
        ProcessContext.current?.error ?? FileDescriptor(rawValue: STDERR_FILENO)
    }

    /// True when the descriptor is a terminal (`isatty`).
    public var isTerminal: Bool { isatty(rawValue) == 1 }

    private static func check(_ result: Int32, _ call: String, _ path: String?) throws(SystemError) -> FileDescriptor {
        guard result >= 0 else { throw .last(call, path) }
        return FileDescriptor(rawValue: result)
    }

    // MARK: Opening

    /// Opens the folder at `path`, following a symbolic link to it.
    public static func openFolder(_ path: String) throws(SystemError) -> FileDescriptor {
        try check(open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), "open", path)
    }

    /// Opens the subfolder `name`, never through a symbolic link.
    public func openFolder(_ name: String) throws(SystemError) -> FileDescriptor {
        try FileDescriptor.check(
            openat(rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), "openat", name)
    }

    /// Opens the file at `path` for reading (following links: lists are the user's files).
    public static func openForReading(_ path: String) throws(SystemError) -> FileDescriptor {
        try check(open(path, O_RDONLY | O_CLOEXEC), "open", path)
    }

    /// Opens the file `name` for reading, never through a link. With `keepingAccessTime`
    /// (`O_NOATIME`) reading does not move its access time; that needs the file's owner, and
    /// fails with `EPERM` otherwise. Without `waiting` (`O_NONBLOCK`) a FIFO opens at once.
    public func openForReading(_ name: String, keepingAccessTime: Bool = false, waiting: Bool = true)
        throws(SystemError) -> FileDescriptor
    {
        let options = (keepingAccessTime ? imgwarm_o_noatime() : 0) | (waiting ? 0 : O_NONBLOCK)
        let flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | options
        return try FileDescriptor.check(openat(rawValue, name, flags), "openat", name)
    }

    /// Creates the file `name` for writing; fails with `EEXIST` when it exists.
    public func createFile(_ name: String, permissions: UInt32 = 0o644) throws(SystemError) -> FileDescriptor {
        try FileDescriptor.check(
            openat(rawValue, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions)), "openat", name)
    }

    /// Creates the file at `path` for writing; fails with `EEXIST` when it exists.
    public static func createFile(_ path: String, permissions: UInt32 = 0o644) throws(SystemError) -> FileDescriptor {
        try check(open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions)), "open", path)
    }

    /// Opens the file at `path` for writing, creating it or emptying what it held.
    public static func createOrTruncate(_ path: String, permissions: UInt32 = 0o644) throws(SystemError)
        -> FileDescriptor
    {
        try check(open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(permissions)), "open", path)
    }

    /// Opens the existing file at `path` for writing, following links, never creating or
    /// emptying it and never making it the controlling terminal: devices and FIFOs (opening a
    /// FIFO waits for a reader, as a shell's `>` does, but no longer than until a stop signal
    /// (`StopSignals`): then it fails with `EINTR`).
    public static func openExistingForWriting(_ path: String) throws(SystemError) -> FileDescriptor {
        try check(imgwarm_open_writer(path), "open", path)
    }

    /// `openExistingForWriting` that never waits: a FIFO nobody reads fails at once with `ENXIO`
    /// (`SystemError.noReader`).
    public static func openExistingForWritingNow(_ path: String) throws(SystemError) -> FileDescriptor {
        let file = try check(open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK), "open", path)
        let flags = fcntl(file.rawValue, F_GETFL)
        if flags >= 0 { _ = fcntl(file.rawValue, F_SETFL, flags & ~O_NONBLOCK) }
        return file
    }

    /// Opens (creating when missing) the file at `path` for reading and writing: lock files.
    public static func openOrCreate(_ path: String, permissions: UInt32 = 0o644) throws(SystemError) -> FileDescriptor {
        try check(open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode_t(permissions)), "open", path)
    }

    /// An unnamed file in this folder (`O_TMPFILE`), open for writing: invisible until linked
    /// with `link(anonymous:as:)`, and gone by itself if the process dies first. Fails where
    /// the file system has no `O_TMPFILE` (`SystemError.isUnsupported`).
    public func createAnonymousFile(permissions: UInt32 = 0o644) throws(SystemError) -> FileDescriptor {
        try FileDescriptor.check(imgwarm_open_anonymous(rawValue, Int32(permissions)), "openat", "O_TMPFILE")
    }

    /// A private scratch file in the folder at `path`, open for reading and writing and already
    /// unlinked (`O_TMPFILE`, or `mkstemp` then `unlink` where that is missing).
    public static func scratchFile(in path: String) throws(SystemError) -> FileDescriptor {
        let temporaryFile: Int32 = 0o20000000  // O_TMPFILE without O_DIRECTORY (a GNU macro Swift cannot see)
        let anonymous = open(path, O_RDWR | O_CLOEXEC | temporaryFile | O_DIRECTORY, 0o600)
        if anonymous >= 0 { return FileDescriptor(rawValue: anonymous) }
        var template = Array("\(path)/imgwarm-spool-XXXXXX".utf8CString)
        let named = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard named >= 0 else { throw .last("mkstemp", path) }
        _ = fcntl(named, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return FileDescriptor(rawValue: named)
    }

    /// A second descriptor on the same open file.
    public func duplicate() throws(SystemError) -> FileDescriptor {
        try FileDescriptor.check(fcntl(rawValue, F_DUPFD_CLOEXEC, 0), "fcntl", nil)
    }

    /// Closes the descriptor, ignoring errors (reads, locks, folders).
    public func close() {
        _ = Glibc.close(rawValue)
    }

    /// Closes a descriptor that was written to: a late write error (NFS, quota) shows here.
    public func closeAfterWriting() throws(SystemError) {
        if Glibc.close(rawValue) != 0 { throw .last("close") }
    }

    /// Flushes the file's data and metadata to the disk (`fsync`).
    public func synchronize() throws(SystemError) {
        if fsync(rawValue) != 0 { throw .last("fsync") }
    }

    /// Writes every byte of `bytes`, flushes them to the disk and closes the descriptor: the one
    /// way a journal or its replacement is written. The descriptor is closed whether or not a
    /// step fails. Returns the file's status once written (nil when it cannot be had).
    @discardableResult
    public func writeAllSynchronizedAndClose(_ bytes: [UInt8]) throws(SystemError) -> FileStatus? {
        let written: FileStatus?
        do {
            try writeAll(bytes)
            try synchronize()
            written = try? status()
        } catch {
            close()
            throw error
        }
        try closeAfterWriting()
        return written
    }

    // MARK: Reading and writing

    /// Reads up to `buffer.count` bytes; 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        while true {
            let count = Glibc.read(rawValue, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw .last("read") }
        }
    }

    /// Reads up to `buffer.count` bytes at `offset` (`pread`); 0 past the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemError) -> Int {
        while true {
            let count = pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { throw .last("pread") }
        }
    }

    /// Writes every byte of `bytes`.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = write(rawValue, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .last("write")
            }
            offset += written
        }
    }

    /// Writes every byte of `bytes` at `offset` (`pwrite`).
    public func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let written = pwrite(rawValue, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if written < 0 {
                if errno == EINTR { continue }
                throw .last("pwrite")
            }
            done += written
        }
    }

    /// Reads into `buffer[start...]`; 0 at the end of the file.
    public func read(into buffer: inout [UInt8], from start: Int = 0) throws(SystemError) -> Int {
        var result: Result<Int, SystemError> = .success(0)
        buffer.withUnsafeMutableBytes { bytes in
            do throws(SystemError) {
                result = .success(try read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[start...])))
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads into `buffer[start...]` from the file at `offset` (`pread`); 0 past the end.
    public func read(into buffer: inout [UInt8], from start: Int = 0, at offset: Int64) throws(SystemError) -> Int {
        var result: Result<Int, SystemError> = .success(0)
        buffer.withUnsafeMutableBytes { bytes in
            do throws(SystemError) {
                result = .success(try read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[start...]), at: offset))
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    /// Writes every byte of `bytes`.
    public func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        var failure: SystemError?
        bytes.withUnsafeBytes { raw in
            do throws(SystemError) { try writeAll(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Writes every byte of `bytes` at `offset` (`pwrite`).
    public func writeAll(_ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        var failure: SystemError?
        bytes.withUnsafeBytes { raw in
            do throws(SystemError) { try writeAll(raw, at: offset) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    // MARK: Status and dates

    /// `fstat` of the open file.
    public func status() throws(SystemError) -> FileStatus {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw .last("fstat") }
        return FileStatus(info)
    }

    /// Sets the permission bits of the open file (`fchmod`).
    public func setPermissions(_ permissions: UInt32) throws(SystemError) {
        guard fchmod(rawValue, mode_t(permissions)) == 0 else { throw .last("fchmod") }
    }

    /// `fstatat` of `name` in this folder, not following a link.
    public func status(of name: String) throws(SystemError) -> FileStatus {
        var info = stat()
        guard fstatat(rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { throw .last("fstatat", name) }
        return FileStatus(info)
    }

    /// The birth (creation) time of `name` in this folder (`statx`), not following a link; nil
    /// when the file system records none.
    public func birthTime(of name: String) throws(SystemError) -> Timestamp? {
        var birth = timespec()
        switch imgwarm_birth_time(rawValue, name, &birth) {
        case 0: return Timestamp(birth)
        case 1: return nil
        default: throw .last("statx", name)
        }
    }

    /// Sets the access and modification times of the open file as `times` says.
    public func setTimes(_ times: FileTimes) throws(SystemError) {
        let (atime, amode) = times.access.cValue
        let (mtime, mmode) = times.modification.cValue
        guard imgwarm_set_times(rawValue, atime, amode, mtime, mmode) == 0 else { throw .last("futimens") }
    }

    /// Sets the times of `name` in this folder (not following a link) as `times` says. A read
    /// counts as a read whatever the mount's atime policy.
    public func setTimes(of name: String, _ times: FileTimes) throws(SystemError) {
        let (atime, amode) = times.access.cValue
        let (mtime, mmode) = times.modification.cValue
        guard imgwarm_set_times_at(rawValue, name, atime, amode, mtime, mmode) == 0 else {
            throw .last("utimensat", name)
        }
    }

    /// Sets only the access time of the open file: to `time`, or to now when nil.
    public func setAccessTime(_ time: Timestamp?) throws(SystemError) {
        try setTimes(FileTimes(access: time.map { .set($0) } ?? .now))
    }

    /// Sets only the access time of `name` in this folder (not following a link): to `time`, or
    /// to now when nil.
    public func setAccessTime(of name: String, to time: Timestamp?) throws(SystemError) {
        try setTimes(of: name, FileTimes(access: time.map { .set($0) } ?? .now))
    }

    // MARK: Names

    /// Deletes the file (or link) `name` from this folder.
    public func removeFile(_ name: String) throws(SystemError) {
        guard unlinkat(rawValue, name, 0) == 0 else { throw .last("unlinkat", name) }
    }

    /// Renames `name` in this folder to `newName` in `destination`, replacing what is there
    /// atomically (`renameat`).
    public func rename(_ name: String, to newName: String, in destination: FileDescriptor) throws(SystemError) {
        guard renameat(rawValue, name, destination.rawValue, newName) == 0 else { throw .last("renameat", name) }
    }

    /// Gives the unnamed file `file` (from `createAnonymousFile`) the name `name` in this
    /// folder. Fails with `EEXIST` when the name is taken: it never replaces a file.
    public func link(anonymous file: FileDescriptor, as name: String) throws(SystemError) {
        guard imgwarm_link_anonymous(file.rawValue, rawValue, name) == 0 else { throw .last("linkat", name) }
    }

    // MARK: Locks

    /// Takes the `flock` lock, shared or exclusive, waiting at most `timeout` seconds
    /// (`EWOULDBLOCK` when it runs out).
    public func lock(exclusive: Bool, timeout: Double) throws(SystemError) {
        let milliseconds = Int32(clamping: Int((timeout * 1000).rounded(.up)))
        guard imgwarm_flock_timeout(rawValue, exclusive ? LOCK_EX : LOCK_SH, milliseconds) == 0 else {
            throw .last("flock")
        }
    }

    public func unlock() {
        _ = flock(rawValue, LOCK_UN)
    }
}
