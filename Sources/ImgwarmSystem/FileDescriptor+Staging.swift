import CImgwarmSys

#if canImport(Glibc)
    import Glibc
#endif

/// A private folder for what is not finished yet (`pull`'s staging, `push`'s archive): made by
/// `mkdtemp` (mode 0700, a name nobody could guess beforehand), filled only through descriptors
/// relative to it, and removed as a whole.
extension FileSystem {
    /// Creates a new folder `<parent>/<prefix>XXXXXX` with a random suffix, mode 0700, and
    /// returns its path.
    public static func makePrivateFolder(in parent: String, prefix: String) throws(SystemError) -> String {
        var template = Array("\(parent)/\(prefix)XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .last("mkdtemp", parent)
        }
        return String(cString: made)
    }

    /// Removes the folder at `path` and everything in it, never following a link (what stands
    /// in it is removed, not what it points to). Nothing there is fine.
    public static func removeTree(_ path: String) throws(SystemError) {
        let (parent, name) = split(path)
        let folder = try FileDescriptor.openFolder(parent)
        defer { folder.close() }
        try folder.removeTree(name)
    }

    /// `path`'s folder and last name ("/a/b" gives "/a" and "b"; "b" gives "." and "b").
    static func split(_ path: String) -> (String, String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let parent = String(path[..<slash])
        return (parent.isEmpty ? "/" : parent, String(path[path.index(after: slash)...]))
    }
}

extension FileDescriptor {
    /// Creates the folder `name` here with `permissions` (`mkdirat`); fails with `EEXIST` when
    /// the name is taken.
    public func makeFolder(_ name: String, permissions: UInt32 = 0o700) throws(SystemError) {
        guard mkdirat(rawValue, name, mode_t(permissions)) == 0 else { throw .last("mkdirat", name) }
    }

    /// Removes `name` here: a file or link with `unlinkat`, a folder with everything in it
    /// first. Links are removed, never followed. A name that is not there is fine.
    public func removeTree(_ name: String) throws(SystemError) {
        let info: FileStatus
        do {
            info = try status(of: name)
        } catch {
            if error.isNotFound { return }
            throw error
        }
        guard info.kind == .directory else {
            try removeFile(name)
            return
        }
        let folder = try openFolder(name)
        defer { folder.close() }
        var names: [String] = []
        do {
            try folder.forEachRawName { names.append(String(decoding: $0, as: UTF8.self)) }
        } catch let error as SystemError {
            throw error
        } catch {
            throw SystemError(code: EIO)
        }
        for child in names { try folder.removeTree(child) }
        guard unlinkat(rawValue, name, AT_REMOVEDIR) == 0 else { throw .last("unlinkat", name) }
    }

    /// `lock(exclusive:timeout:)` that also gives up with `EINTR` once a stop signal was received
    /// (`StopSignals`): for the commands that end cleanly on a signal.
    public func lockUntilStop(exclusive: Bool, timeout: Double) throws(SystemError) {
        let milliseconds = Int32(clamping: Int((timeout * 1000).rounded(.up)))
        guard imgwarm_flock_until_stop(rawValue, exclusive ? LOCK_EX : LOCK_SH, milliseconds) == 0 else {
            throw .last("flock")
        }
    }
}
