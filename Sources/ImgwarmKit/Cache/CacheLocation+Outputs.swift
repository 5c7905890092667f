import ImgwarmSystem

/// Where a report or metrics file may not go (docs/hardening.md, "A cache folder is untrusted
/// input"): inside the cache folder the app would count a foreign file, and inside imgwarm's own
/// folder it would replace the state database or a lock.
extension CacheLocation {
    /// What `path` would land in, in words, when it is inside the cache folder, inside imgwarm's
    /// folder (`<parent>/.imgwarm`) or is the state database at `statePath` or one of its
    /// companion files; nil when it may be written. Symbolic links are resolved as far as they
    /// exist.
    public func forbiddenOutput(_ path: String, statePath: String) -> String? {
        let target = CacheLocation.canonical(path)
        let ownFolder = CacheLocation.split(privateFolder).parent
        for (folder, what) in [(folder, "the cache folder"), (ownFolder, "imgwarm's own folder")] {
            let inside = CacheLocation.canonical(folder)
            if inside != "/" && (target == inside || target.hasPrefix(inside + "/")) { return "\(what) \(folder)" }
        }
        let state = CacheLocation.canonical(statePath)
        if ["", "-wal", "-shm", "-journal"].contains(where: { target == state + $0 }) {
            return "imgwarm's state database \(statePath)"
        }
        return nil
    }

    /// `path` absolute, with the symbolic links of its longest existing part resolved.
    public static func canonical(_ path: String) -> String {
        let full = absolute(path)
        if let real = FileSystem.resolvedPath(full) { return real }
        let (parent, name) = split(full)
        if parent == full || name.isEmpty { return full }
        return join(canonical(parent), name)
    }
}
