#if canImport(Glibc)
    import Glibc
#endif

/// A program imgwarm starts and waits for (`adb` for `push` and `pull`, the local `tar` that
/// `pull` extracts with), through `posix_spawnp`: found on `PATH` unless the name has a slash, the
/// environment inherited, the standard descriptors given.
public struct ChildProcess: Sendable {
    public let pid: Int32
    /// The program as it was named, for messages.
    public let program: String

    /// Starts `program` with `arguments`; its standard input reads `input` (`/dev/null` when
    /// nil), its output and errors go to `output` and `errors`.
    public static func spawn(
        _ program: String, _ arguments: [String], input: FileDescriptor?, output: FileDescriptor,
        errors: FileDescriptor
    ) throws(SystemError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input {
            posix_spawn_file_actions_adddup2(&actions, input.rawValue, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, output.rawValue, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.rawValue, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, program, &actions, nil, argv, environ)
        guard result == 0 else { throw SystemError(code: result, call: "posix_spawnp", path: program) }
        return ChildProcess(pid: pid, program: program)
    }

    /// Waits for the program to end: its exit status, or 128 + the signal that ended it.
    public func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return 127 }
        }
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }

    /// A pipe: what is written to `write` is read from `read`. Both close on exec; a child gets
    /// one end as a standard descriptor from `spawn`.
    public static func pipe() throws(SystemError) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw .last("pipe") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// What a finished program said.
    public struct Finished: Sendable {
        public var status: Int32
        public var output: [UInt8]
        public var errors: [UInt8]

        public init(status: Int32, output: [UInt8], errors: [UInt8]) {
            self.status = status
            self.output = output
            self.errors = errors
        }

        /// The errors (else the output) as text, last line first trimmed, for messages.
        public var message: String {
            let text = String(decoding: errors.isEmpty ? output : errors, as: UTF8.self)
            return String(text.split(whereSeparator: \.isNewline).last ?? "")
        }
    }

    /// Runs `program` to its end, its input from `input`, and returns what it wrote (kept in
    /// unlinked scratch files in `scratchFolder`, so neither stream can block the other).
    public static func run(
        _ program: String, _ arguments: [String], input: FileDescriptor? = nil, scratchFolder: String
    ) throws(SystemError) -> Finished {
        let output = try FileDescriptor.scratchFile(in: scratchFolder)
        defer { output.close() }
        let errors = try FileDescriptor.scratchFile(in: scratchFolder)
        defer { errors.close() }
        let child = try spawn(program, arguments, input: input, output: output, errors: errors)
        let status = child.wait()
        return Finished(status: status, output: try readAll(output), errors: try readAll(errors))
    }

    /// Everything in the file, from its start.
    private static func readAll(_ file: FileDescriptor) throws(SystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try file.read(into: &chunk, from: 0, at: Int64(bytes.count))
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }
}
