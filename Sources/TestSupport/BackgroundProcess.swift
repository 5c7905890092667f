import Foundation

/// A program running beside the test (for signals and `kill -9`), its output going to files so
/// that it can never block on a full pipe. Always waited for or killed.
public final class BackgroundProcess: @unchecked Sendable {
    public let process = Process()
    private let outURL: URL
    private let errURL: URL

    /// Starts `executable`; its standard input is `input` when given, else /dev/null.
    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String], folder: URL,
        input: FileHandle? = nil
    ) throws {
        let id = UUID().uuidString
        outURL = folder.appendingPathComponent("stdout-\(id)")
        errURL = folder.appendingPathComponent("stderr-\(id)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input ?? FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
    }

    public var pid: Int32 { process.processIdentifier }

    /// True while the process's main thread waits in `poll` (`/proc/PID/syscall`, proc(5)): for a
    /// test that must act only once the program has read what it was given and waits for more.
    public var isWaitingInPoll: Bool {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8),
            let number = text.split(separator: " ").first.flatMap({ Int($0) })
        else { return false }
        #if arch(x86_64)
            return number == 7 || number == 271  // poll, ppoll
        #else
            return number == 73  // ppoll (aarch64 has no poll)
        #endif
    }

    public func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// Waits (bounded) for the end; kills the process if it does not end in time.
    @discardableResult
    public func wait(timeout: Double = 60) -> (status: Int32, signaled: Bool, timedOut: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        let timedOut = process.isRunning
        if timedOut {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal, timedOut)
    }

    public var stdout: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// Polls `condition` every 10 ms for at most `timeout` seconds; true when it became true.
public func eventually(timeout: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
