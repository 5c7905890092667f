#if canImport(Glibc)
    import Glibc
#endif

/// Standard error for people, standard output for results (paths, JSON), so `imgwarm … | jq` works.
enum Console {
    /// True when standard error is a terminal (progress lines and colour-free live updates).
    static let stderrIsTerminal = isatty(STDERR_FILENO) == 1

    /// Writes `imgwarm: message` to standard error.
    static func error(_ message: String) {
        writeError("imgwarm: " + message + "\n")
    }

    /// Writes `imgwarm: warning: message` to standard error.
    static func warning(_ message: String) {
        writeError("imgwarm: warning: " + message + "\n")
    }

    static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { writeAll(STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }

    /// Writes `text` to standard output at once (results).
    static func output(_ text: String) {
        var text = text
        text.withUTF8 { writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0)) }
    }

    static func output(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeAll(STDOUT_FILENO, $0) }
    }

    /// Output is written unbuffered (see `output`), so there is nothing to flush; kept for
    /// symmetry at exit.
    static func flush() {}

    /// Writes every byte, retrying after interruptions. Standard output's reader going away
    /// (`| head -1`: EPIPE) ends the process quietly with exit code 0, as it asked for no more;
    /// on standard error the text is dropped and the command goes on (nobody is left to tell).
    static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE && descriptor == STDOUT_FILENO { exit(ExitStatus.success.rawValue) }
                return
            }
            offset += written
        }
    }
}
