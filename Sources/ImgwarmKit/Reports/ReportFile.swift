import ImgwarmSystem

/// Where a report goes: standard output (`-`), or a file written atomically (a temporary file in
/// the same folder, renamed into place when the report is complete).
///
/// Opening checks at once that the destination is writable, so a bad path is a usage error
/// before any work is done.
public final class ReportFile {
    public let path: String
    private let descriptor: FileDescriptor
    private let temporaryPath: String?
    private var failed: SystemError?

    public struct OpenError: Error, CustomStringConvertible {
        public var path: String
        public var code: Int32
        public var description: String { "cannot write the report to \(path): \(SystemError.message(code))" }
    }

    /// Opens `path` for writing; `-` is standard output.
    public init(path: String) throws(OpenError) {
        self.path = path
        if path == "-" {
            descriptor = .standardOutput
            temporaryPath = nil
            return
        }
        if (try? FileSystem.status(ofPath: path))?.kind == .directory {
            throw OpenError(path: path, code: SystemError.isADirectory.code)
        }
        let temporary = path + ".tmp-\(FileSystem.processID)"
        do {
            descriptor = try FileDescriptor.createOrTruncate(temporary)
        } catch {
            throw OpenError(path: path, code: error.code)
        }
        temporaryPath = temporary
    }

    private var committed = false

    deinit {
        // A report that was never committed leaves nothing behind.
        if let temporaryPath, !committed {
            descriptor.close()
            try? FileSystem.removeFile(temporaryPath)
        }
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

    /// Finishes the report: the file appears under its name only now, complete.
    public func commit() throws(OpenError) {
        if let failed { throw OpenError(path: path, code: failed.code) }
        guard let temporaryPath, !committed else { return }
        committed = true
        do throws(SystemError) {
            try descriptor.closeAfterWriting()
            try FileSystem.rename(temporaryPath, to: path)
        } catch {
            try? FileSystem.removeFile(temporaryPath)
            throw OpenError(path: path, code: error.code)
        }
    }
}
