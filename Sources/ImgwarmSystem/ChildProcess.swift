import CImgwarmSys

#if canImport(Glibc)
    import Glibc
#endif

/// A program imgwarm starts and waits for (`adb` for `push` and `pull`), through `posix_spawnp`:
/// found on `PATH` unless the name has a slash, the environment inherited (the calling thread's
/// `ProcessContext`'s, for a command run in-process), the standard
/// descriptors given. Each runs in a process group of its own, with the default action for
/// every signal (imgwarm ignores SIGPIPE; its children must not), so that a stop ends it and
/// everything it started (`terminate`), and nothing it left behind keeps writing.
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
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let contextEnvironment: [UnsafeMutablePointer<CChar>?]? = ProcessContext.current.map { context in
            context.environment.map { strdup($0.key + "=" + $0.value) } + [nil]
        }
        defer { for pointer in contextEnvironment ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let result =
            contextEnvironment.map { envp in
                posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
            } ?? posix_spawnp(&pid, program, &actions, &attributes, argv, environ)
        guard result == 0 else { throw SystemError(code: result, call: "posix_spawnp", path: program) }
        return ChildProcess(pid: pid, program: program)
    }

    /// Waits for the program to end: its exit status, or 128 + the signal that ended it. What it
    /// left running in its group is ended too. When `stop` becomes readable first (a stop
    /// signal, `StopSignals`), the group is ended (`terminate`) and the wait fails with `EINTR`.
    public func wait(unlessReadable stop: FileDescriptor? = nil) throws(SystemError) -> Int32 {
        let exit = FileDescriptor(rawValue: imgwarm_pidfd_open(pid))
        defer { if exit.rawValue >= 0 { exit.close() } }
        while !hasEnded {
            var descriptors = [
                pollfd(fd: exit.rawValue, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stop?.rawValue ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            // Without a pidfd (a kernel before 5.3) the end is looked for every 20 ms.
            _ = poll(&descriptors, 2, exit.rawValue >= 0 ? -1 : 20)
            if descriptors[1].revents != 0 {
                terminate()
                throw SystemError(code: EINTR, call: "wait", path: program)
            }
        }
        return reap()
    }

    /// True once the program has ended (it is not reaped: its group stays its own).
    public var hasEnded: Bool { imgwarm_child_ended(pid) == 1 }

    /// The program's status as `wait` gives it when it ends within `seconds`; nil (still running,
    /// not touched) otherwise.
    public func wait(atMost seconds: Double) -> Int32? {
        let deadline = Monotonic.now() + seconds
        while !hasEnded {
            guard Monotonic.now() < deadline else { return nil }
            Monotonic.sleep(0.005)
        }
        return reap()
    }

    /// Ends the program and its group: SIGTERM, up to `grace` seconds to go, then SIGKILL; reaped.
    /// Returns its status as `wait` does. 2 seconds by default.
    @discardableResult
    public func terminate(grace: Double = 2) -> Int32 {
        _ = kill(-pid, SIGTERM)
        let deadline = Monotonic.now() + grace
        while !hasEnded && Monotonic.now() < deadline { Monotonic.sleep(0.01) }
        return reap()
    }

    /// Kills what is left of the group, then collects the program's status.
    private func reap() -> Int32 {
        // The ended leader is not reaped yet, so its group id cannot name another group.
        _ = kill(-pid, SIGKILL)
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

        /// What the program said, for messages: the last line of its errors, else of its output
        /// (at most 300 characters, as it said it: the caller escapes it for a terminal), else its
        /// exit status and that it said nothing.
        public var message: String {
            for stream in [errors, output] {
                let text = String(decoding: stream, as: UTF8.self)
                let lines = text.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }
                if let last = lines.last { return String(last.prefix(300)) }
            }
            return "exit status \(status), nothing said"
        }
    }

    /// Runs `program` to its end, its input from `input`, and returns what it wrote (kept in
    /// unlinked scratch files in `scratchFolder`, so neither stream can block the other).
    /// A stop (`stop` readable) ends it and fails with `EINTR`, as `wait` does.
    public static func run(
        _ program: String, _ arguments: [String], input: FileDescriptor? = nil, scratchFolder: String,
        stop: FileDescriptor? = nil
    ) throws(SystemError) -> Finished {
        let output = try FileDescriptor.scratchFile(in: scratchFolder)
        defer { output.close() }
        let errors = try FileDescriptor.scratchFile(in: scratchFolder)
        defer { errors.close() }
        let child = try spawn(program, arguments, input: input, output: output, errors: errors)
        let status = try child.wait(unlessReadable: stop)
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
