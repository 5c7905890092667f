#if canImport(Glibc)
    import Glibc
#endif

/// Calls on paths (rather than on names in an open folder), and facts about this process.
public enum FileSystem {
    /// `stat` of `path`, following a final symbolic link when `followingLinks`.
    public static func status(ofPath path: String, followingLinks: Bool = true) throws(SystemError) -> FileStatus {
        var info = stat()
        let result = followingLinks ? stat(path, &info) : lstat(path, &info)
        guard result == 0 else { throw .last(followingLinks ? "stat" : "lstat", path) }
        return FileStatus(info)
    }

    /// True when something (anything, a dangling link included) is at `path`.
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// True when this process may read the file at `path`.
    public static func isReadable(_ path: String) -> Bool {
        access(path, R_OK) == 0
    }

    /// True when this process may write the file at `path` (`access(W_OK)`).
    public static func isWritable(_ path: String) -> Bool {
        access(path, W_OK) == 0
    }

    /// Throws why this process may not read the file at `path` (`access(R_OK)`).
    public static func checkReadable(_ path: String) throws(SystemError) {
        guard access(path, R_OK) == 0 else { throw .last("access", path) }
    }

    /// True when `path` names something once symbolic links are followed (`access(F_OK)`): a
    /// dangling link does not count.
    public static func existsFollowingLinks(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The first of `path`'s leading paths, `path` itself last, that exists and is not a folder
    /// (links followed): what stands where a folder should be (`--cache-dir somefile` puts the
    /// cache folder under a file). Nil when there is none, or when a leading path is missing or
    /// cannot be examined: the callers' own calls then say what is wrong.
    public static func nonFolder(onPath path: String) -> String? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            var info = stat()
            guard stat(prefix, &info) == 0 else { return nil }
            if info.st_mode & S_IFMT != S_IFDIR { return path.hasPrefix("/") ? prefix : String(prefix.dropFirst(2)) }
        }
        return nil
    }

    /// Creates the folder at `path`; a folder already there is fine.
    public static func makeFolder(_ path: String, permissions: UInt32 = 0o755) throws(SystemError) {
        if mkdir(path, mode_t(permissions)) != 0 && errno != EEXIST { throw .last("mkdir", path) }
    }

    /// Sets the permission bits of the file at `path`.
    public static func setPermissions(ofPath path: String, to permissions: UInt32) throws(SystemError) {
        guard chmod(path, mode_t(permissions)) == 0 else { throw .last("chmod", path) }
    }

    /// Renames `path` to `newPath` (same file system).
    public static func rename(_ path: String, to newPath: String) throws(SystemError) {
        guard Glibc.rename(path, newPath) == 0 else { throw .last("rename", path) }
    }

    /// Deletes the file at `path`.
    public static func removeFile(_ path: String) throws(SystemError) {
        guard unlink(path) == 0 else { throw .last("unlink", path) }
    }

    /// `path` with every symbolic link resolved; nil when it cannot be (it does not exist).
    public static func resolvedPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The working directory; nil when it cannot be read (it was deleted).
    public static var currentFolder: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// This process's user id.
    public static var userID: UInt32 { geteuid() }

    /// This process's id.
    public static var processID: Int32 { getpid() }

    /// False only when no process `pid` exists (`kill(pid, 0)` fails with `ESRCH`).
    public static func processExists(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }
}
