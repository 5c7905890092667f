import ImgwarmSystem

/// Where a report goes: standard output (`-`), a file written atomically, or a device or FIFO
/// written into.
///
/// What the path names decides how (a symbolic link is followed, as `open` would):
/// - nothing: a new file, written to a temporary file in the same folder and renamed into place
///   when the report is complete (permissions 0644 less the umask);
/// - a regular file of this user: the same, the temporary file taking the file's permission
///   bits, renamed over the file the link leads to (the link stays);
/// - a regular file of another user: refused (`OpenError.Reason.ownedByAnotherUser`), so that a
///   report never hands someone's file to this user with other permissions;
/// - anything else (a character device such as `/dev/null`, a FIFO): opened for writing and
///   written into, never replaced, as `curl -o` and a shell's `>` do;
/// - a folder, or a link that leads nowhere: refused.
///
/// Opening checks all this at once, so a bad path is a usage error before any work is done.
public final class ReportFile {
    public let path: String
    /// What is written, for messages: `the report` by default (`the archive`, `the manifest`).
    public let what: String
    private let descriptor: FileDescriptor
    /// The temporary file and the name it takes on commit; nil when written in place.
    private let replacement: (temporary: String, target: String)?
    private var failed: SystemError?

    public struct OpenError: Error, CustomStringConvertible {
        public enum Reason: Sendable, Equatable {
            /// A system call failed (`SystemError` names it).
            case system(SystemError)
            case ownedByAnotherUser(UInt32)
            case danglingLink
        }

        public var path: String
        public var reason: Reason
        /// What was written, for the message: `the report` by default (`the archive`…).
        public var what = "the report"

        public init(path: String, error: SystemError) {
            self.path = path
            reason = .system(error)
        }

        public init(path: String, reason: Reason) {
            self.path = path
            self.reason = reason
        }

        public var description: String {
            switch reason {
            case .system(let error):
                return "cannot write \(what) to \(path): \(error)"
            case .ownedByAnotherUser(let owner):
                return
                    "cannot write \(what) to \(path): the file belongs to another user (uid \(owner)); imgwarm replaces only its own user's files: remove it or choose another path"
            case .danglingLink:
                return "cannot write \(what) to \(path): a symbolic link to a file that does not exist"
            }
        }
    }

    /// Opens `path` for writing; `-` is standard output. With `waitingForReader` false, a FIFO
    /// nobody reads fails at once (`SystemError.noReader`) instead of waiting for its reader.
    public init(path: String, what: String = "the report", waitingForReader: Bool = true) throws(OpenError) {
        self.path = path
        self.what = what
        if path == "-" {
            descriptor = .standardOutput
            replacement = nil
            return
        }
        do {
            (descriptor, replacement) = try ReportFile.open(path, waitingForReader: waitingForReader)
        } catch {
            var named = error
            named.what = what
            throw named
        }
    }

    /// Opens the destination `path` names, as the type's comment says.
    private static func open(_ path: String, waitingForReader: Bool) throws(OpenError) -> (
        FileDescriptor, (temporary: String, target: String)?
    ) {
        var status: FileStatus
        do {
            status = try FileSystem.status(ofPath: path)
        } catch {
            guard error.isNotFound else { throw OpenError(path: path, error: error) }
            if FileSystem.exists(path) { throw OpenError(path: path, reason: .danglingLink) }
            do {
                // A new report's folders are made as `mkdir -p` would (curl's --create-dirs): a
                // CI job's `--report artifacts/prefetch.json` needs no step of its own.
                try CacheLocation.makeParentFolders(of: path)
                return try temporary(replacing: path, permissions: nil)
            } catch {
                throw OpenError(path: path, error: error)
            }
        }
        do throws(SystemError) {
            if status.kind == .other {
                let descriptor =
                    waitingForReader
                    ? try FileDescriptor.openExistingForWriting(path)
                    : try FileDescriptor.openExistingForWritingNow(path)
                let opened = try? descriptor.status()
                if let opened, opened.kind != .file { return (descriptor, nil) }
                // Replaced by a regular file since it was checked: never written into in place.
                descriptor.close()
                guard let opened else { throw SystemError.notFound }
                status = opened
            }
            if status.kind == .directory { throw SystemError.isADirectory }
        } catch {
            throw OpenError(path: path, error: error)
        }
        if status.owner != FileSystem.userID {
            throw OpenError(path: path, reason: .ownedByAnotherUser(status.owner))
        }
        do {
            return try temporary(replacing: FileSystem.resolvedPath(path) ?? path, permissions: status.permissions)
        } catch {
            throw OpenError(path: path, error: error)
        }
    }

    /// A temporary file beside `target`, created readable by its owner only and then given
    /// `permissions` (those of the file it replaces), or 0644 less the umask for a new report
    /// (the permissions the finished file has). Its name has a random part nobody can guess
    /// beforehand, and it is created new (`O_CREAT | O_EXCL`, which never follows a link): a link
    /// planted at a predictable name is never written through.
    private static func temporary(replacing target: String, permissions: UInt32?) throws(SystemError) -> (
        FileDescriptor, (temporary: String, target: String)?
    ) {
        var attempt = 0
        var created: (FileDescriptor, String)?
        while created == nil {
            let temporary = target + ".tmp-\(FileSystem.processID)-\(UInt32.random(in: 0...UInt32.max))"
            do {
                created = (
                    try FileDescriptor.createFile(temporary, permissions: permissions == nil ? 0o644 : 0o600), temporary
                )
            } catch {
                attempt += 1
                guard error.isAlreadyThere && attempt < 16 else { throw error }
            }
        }
        let (descriptor, temporary) = created!
        if let permissions {
            do throws(SystemError) {
                try descriptor.setPermissions(permissions & 0o777)
            } catch {
                descriptor.close()
                try? FileSystem.removeFile(temporary)
                throw error
            }
        }
        return (descriptor, (temporary, target))
    }

    private var committed = false

    deinit {
        guard !committed, descriptor != .standardOutput else { return }
        descriptor.close()
        // A report that was never committed leaves nothing behind.
        if let replacement { try? FileSystem.removeFile(replacement.temporary) }
    }

    /// Appends `bytes`; the first failure is remembered and reported by `commit`.
    public func write(_ bytes: [UInt8]) {
        guard failed == nil else { return }
        do throws(SystemError) {
            try descriptor.writeAll(bytes)
        } catch {
            failed = error
        }
    }

    /// Finishes the report: a file appears under its name only now, complete.
    public func commit() throws(OpenError) {
        do {
            try finish()
        } catch {
            var named = error
            named.what = what
            throw named
        }
    }

    private func finish() throws(OpenError) {
        if let failed { throw OpenError(path: path, error: failed) }
        guard descriptor != .standardOutput, !committed else { return }
        committed = true
        do throws(SystemError) {
            try descriptor.closeAfterWriting()
            if let replacement { try FileSystem.rename(replacement.temporary, to: replacement.target) }
        } catch {
            if let replacement { try? FileSystem.removeFile(replacement.temporary) }
            throw OpenError(path: path, error: error)
        }
    }
}
