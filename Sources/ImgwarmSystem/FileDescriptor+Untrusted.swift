/// A file of a cache folder someone else wrote (docs/hardening.md, "A cache folder is untrusted
/// input"), opened by a name that may name a subfolder (Fresco's shard folders).
extension FileDescriptor {
    /// The regular file `name` (plain names joined by `/`) of this folder: every folder of the
    /// name opened without following a link, the file only when it is a regular file
    /// (`openRegularFileUntouched`: its access time left as it was, or to put back after
    /// reading). `.absent` when a folder of the name or the file is missing; `.other` with why, in
    /// words (`it is a FIFO, not a regular file`), for a name that is not plain, a link or
    /// something else than a folder on the way, or a file that is not regular.
    public func openUntrustedFile(_ name: String) throws(SystemError) -> (
        RegularFileOpening, restoreAccessTime: Timestamp?
    ) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.allSatisfy(FileDescriptor.isPlainName) else {
            return (.other("its name is not a plain name of the folder"), nil)
        }
        var opened: [FileDescriptor] = []
        defer { for descriptor in opened { descriptor.close() } }
        var current = self
        for part in parts.dropLast() {
            do {
                current = try current.openFolder(part)
                opened.append(current)
            } catch {
                if error.isNotFound { return (.absent, nil) }
                // O_NOFOLLOW on a link (ELOOP), or not a folder (ENOTDIR).
                if error.code == 40 || error.code == 20 { return (.other("\(part) is not a folder"), nil) }
                throw error
            }
        }
        let (opening, restore) = try current.openRegularFileUntouched(parts[parts.count - 1])
        if case .other(let kind) = opening { return (.other("it is \(kind), not a regular file"), nil) }
        return (opening, restore)
    }
}
