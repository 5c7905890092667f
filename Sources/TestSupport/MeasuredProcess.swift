import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to completion like `ProcessRunner`, and also reports its peak resident set
/// size, from the `rusage` that `wait4` returns for that one process (getrusage(RUSAGE_CHILDREN)
/// would mix in every other child of the test process).
///
/// The program is started by `imgwarm-peak`, a small process that reports it: started straight
/// from the test process, its `ru_maxrss` would include the test process's own peak (Linux counts
/// the memory an `execve` replaces), which grows while other tests run.
///
/// The helper is started with `posix_spawn` in a process group of its own and its output goes to
/// files, so it never blocks on a full pipe; the group is killed (SIGKILL) when it outlives `timeout`.
public enum MeasuredProcess {
    public struct Result: Sendable {
        public var process: ProcessResult
        /// The child's peak resident set size in bytes (`ru_maxrss`).
        public var peakResidentBytes: Int
    }

    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String], folder: URL, timeout: Double = 120
    ) throws -> Result {
        let id = UUID().uuidString
        let outPath = folder.appendingPathComponent("measured-out-\(id)").path
        let errPath = folder.appendingPathComponent("measured-err-\(id)").path
        let peakPath = folder.appendingPathComponent("measured-peak-\(id)").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 3, peakPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing else of the test process (other tests' sockets) may live on in the child: a
        // connection a server closed would stay open while the child holds a copy. (glibc's
        // addclosefrom_np is not visible to Swift; a descriptor closed meanwhile is ignored.)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 3 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        let helper = Fixtures.product("imgwarm-peak").path
        let argv = ([helper, executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, helper, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }

        var status: Int32 = 0
        var usage = rusage()
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while true {
            let waited = wait4(pid, &status, WNOHANG, &usage)
            if waited == pid { break }
            if waited < 0 && errno != EINTR { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECHILD) }
            if Date() >= deadline {
                kill(-pid, SIGKILL)
                while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
                timedOut = true
                break
            }
            usleep(10_000)
        }
        if timedOut { throw ProcessRunner.Timeout(seconds: timeout) }
        let out = (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()
        let err = (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data()
        let peak = (try? String(contentsOfFile: peakPath, encoding: .utf8)).flatMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        unlink(outPath)
        unlink(errPath)
        unlink(peakPath)
        let signaled = status & 0x7F != 0
        let code = signaled ? status & 0x7F : (status >> 8) & 0xFF
        return Result(
            process: ProcessResult(status: code, stdout: out, stderr: err, signaled: signaled),
            peakResidentBytes: (peak ?? usage.ru_maxrss) * 1024)
    }
}
