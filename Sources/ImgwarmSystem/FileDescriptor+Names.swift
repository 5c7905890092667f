import CImgwarmSys

#if canImport(Glibc)
    import Glibc
#endif

/// What stands at a name that is to be read as a regular file (a library's journal or database).
public enum RegularFileOpening {
    /// A regular file, open for reading, with its `fstat`.
    case opened(FileDescriptor, FileStatus)
    /// Nothing is at the name.
    case absent
    /// Something else is there, in words ("a FIFO", "a symbolic link"): it was not read, and
    /// nothing waited on it.
    case other(String)
}

/// Names in a cache folder come from files someone else wrote (a journal's keys, a database's
/// rows): the calls here take a name only when it is one plain name in this folder
/// (docs/hardening.md, "A cache folder is untrusted input").
extension FileDescriptor {
    /// True when `name` is a single plain name: not empty, not `.` or `..`, without `/` or NUL.
    /// Only such a name means a file in the folder it is taken in.
    public static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".."
            && !name.utf8.contains { $0 == UInt8(ascii: "/") || $0 == 0 }
    }

    /// The error of a name that is not plain: `EINVAL`, naming the call that was refused.
    static func refusedName(_ call: String, _ name: String) -> SystemError {
        SystemError(code: EINVAL, call: call, path: name)
    }

    /// Deletes the file, link, FIFO… `name` of this folder (`unlinkat`, which never follows a
    /// link); `EINVAL` without a call when `name` is not a plain name.
    public func removeEntry(_ name: String) throws(SystemError) {
        guard FileDescriptor.isPlainName(name) else { throw FileDescriptor.refusedName("unlinkat", name) }
        try removeFile(name)
    }

    /// Deletes `name` (`removeEntry`); nothing there is fine.
    public func removeEntryIfPresent(_ name: String) throws(SystemError) {
        do { try removeEntry(name) } catch  where error.isNotFound {}
    }

    /// Opens `name` of this folder for reading only when it is a regular file: what is there is
    /// looked at first (`fstatat`, not following a link), then opened with `O_NOFOLLOW` and
    /// `O_NONBLOCK` and checked again (`fstat`), so a FIFO, a device or a link put there
    /// meanwhile is never read and never waited on. `EINVAL` when `name` is not a plain name.
    /// With `keepingAccessTime`, reading it does not move its access time (`O_NOATIME`) where
    /// this user owns it; elsewhere it opens as without (the caller may put the time back).
    public func openRegularFile(_ name: String, keepingAccessTime: Bool = false) throws(SystemError)
        -> RegularFileOpening
    {
        guard FileDescriptor.isPlainName(name) else { throw FileDescriptor.refusedName("openat", name) }
        let folder = rawValue
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY
        return try FileDescriptor.openRegular(
            name, status: { path, info in fstatat(folder, path, &info, AT_SYMLINK_NOFOLLOW) },
            open: { path in
                guard keepingAccessTime else { return openat(folder, path, flags) }
                let descriptor = openat(folder, path, flags | imgwarm_o_noatime())
                // O_NOATIME is the owner's (EPERM otherwise).
                return descriptor < 0 && errno == EPERM ? openat(folder, path, flags) : descriptor
            })
    }

    /// `openRegularFile` for appending (`O_WRONLY | O_APPEND`): every write lands at the file's end,
    /// whatever another process appended meanwhile. Never a link, a FIFO or a device.
    public func openRegularFileForAppending(_ name: String) throws(SystemError) -> RegularFileOpening {
        guard FileDescriptor.isPlainName(name) else { throw FileDescriptor.refusedName("openat", name) }
        let folder = rawValue
        return try FileDescriptor.openRegular(
            name, status: { path, info in fstatat(folder, path, &info, AT_SYMLINK_NOFOLLOW) },
            open: { path in
                openat(folder, path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            })
    }

    /// `openRegularFile` for a path (a database beside the cache folder): its last component is
    /// not followed if it is a link.
    public static func openRegularFile(atPath path: String) throws(SystemError) -> RegularFileOpening {
        try openRegular(
            path, status: { path, info in lstat(path, &info) },
            open: { path in open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) })
    }

    private static func openRegular(
        _ name: String, status: (String, inout stat) -> Int32, open: (String) -> Int32
    ) throws(SystemError) -> RegularFileOpening {
        var info = stat()
        guard status(name, &info) == 0 else {
            if errno == ENOENT { return .absent }
            throw .last("fstatat", name)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return .other(kindDescription(info.st_mode)) }
        var descriptor: Int32
        repeat { descriptor = open(name) } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            if errno == ELOOP { return .other("a symbolic link") }
            if errno == ENOENT { return .absent }
            throw .last("openat", name)
        }
        var opened = stat()
        guard fstat(descriptor, &opened) == 0 else {
            let error = SystemError.last("fstat", name)
            _ = Glibc.close(descriptor)
            throw error
        }
        guard opened.st_mode & S_IFMT == S_IFREG else {
            _ = Glibc.close(descriptor)
            return .other(kindDescription(opened.st_mode))
        }
        // Reads of a regular file never wait; the flag goes so that they behave as usual anyway.
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return .opened(FileDescriptor(rawValue: descriptor), FileStatus(opened))
    }

    /// "a FIFO", "a folder"…: what a mode's file type is, for messages.
    static func kindDescription(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    /// Writes `bytes` to a new file `temporaryName` of this folder and renames it over `name`
    /// (`renameat`): whatever stood at `temporaryName` (a file left by a crash, a planted link or
    /// FIFO) is removed first, never followed or opened, and the new file is created exclusively
    /// (`O_EXCL`), flushed to disk, then renamed. Both names must be plain.
    public func replaceFile(_ name: String, with bytes: [UInt8], through temporaryName: String) throws(SystemError) {
        try replaceFile(name, through: temporaryName) { (file: FileDescriptor) throws(SystemError) in
            try file.writeAll(bytes)
        }
    }

    /// `replaceFile(_:with:through:)` with the new file's bytes written by `write` (in as many
    /// writes as it likes: a large file need not be held whole), then flushed to disk and renamed.
    public func replaceFile(
        _ name: String, through temporaryName: String, write: (FileDescriptor) throws(SystemError) -> Void
    ) throws(SystemError) {
        guard FileDescriptor.isPlainName(name) else { throw FileDescriptor.refusedName("renameat", name) }
        try removeEntryIfPresent(temporaryName)
        let file = try createFile(temporaryName)
        do throws(SystemError) {
            do throws(SystemError) { try write(file) } catch {
                file.close()
                throw error
            }
            try file.writeAllSynchronizedAndClose([])
            try rename(temporaryName, to: name, in: self)
        } catch {
            try? removeEntry(temporaryName)
            throw error
        }
    }
}
