#if canImport(Glibc)
import Glibc
#endif

/// Where a report goes: standard output (`-`), or a file written atomically (a temporary file in
/// the same folder, renamed into place when the report is complete).
///
/// Opening checks at once that the destination is writable, so a bad path is a usage error
/// before any work is done.
public final class ReportFile {
    public let path: String
    private let descriptor: Int32
    private let temporaryPath: String?
    private var failed: Int32 = 0

    public struct OpenError: Error, CustomStringConvertible {
        public var path: String
        public var code: Int32
        public var description: String { "cannot write the report to \(path): \(SystemError.message(code))" }
    }

    /// Opens `path` for writing; `-` is standard output.
    public init(path: String) throws(OpenError) {
        self.path = path
        if path == "-" {
            descriptor = STDOUT_FILENO
            temporaryPath = nil
            return
        }
        var info = stat()
        if stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR { throw OpenError(path: path, code: EISDIR) }
        let temporary = path + ".tmp-\(getpid())"
        let file = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw OpenError(path: path, code: errno) }
        descriptor = file
        temporaryPath = temporary
    }

    private var committed = false

    deinit {
        // A report that was never committed leaves nothing behind.
        if let temporaryPath, !committed {
            close(descriptor)
            unlink(temporaryPath)
        }
    }

    /// Appends `bytes`; the first failure is remembered and reported by `commit`.
    public func write(_ bytes: [UInt8]) {
        guard failed == 0 else { return }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failed = errno
                    return
                }
                offset += written
            }
        }
    }

    /// Finishes the report: the file appears under its name only now, complete.
    public func commit() throws(OpenError) {
        guard failed == 0 else { throw OpenError(path: path, code: failed) }
        guard let temporaryPath, !committed else { return }
        committed = true
        if close(descriptor) != 0 {
            unlink(temporaryPath)
            throw OpenError(path: path, code: errno)
        }
        if rename(temporaryPath, path) != 0 {
            let code = errno
            unlink(temporaryPath)
            throw OpenError(path: path, code: code)
        }
    }
}
