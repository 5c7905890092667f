import Foundation

/// Runs a program to completion with a deadline, capturing its output: how tests drive the real
/// `imgwarm` binary the way a user does.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: Data
    /// True when the process ended by a signal rather than exit (then `status` is the signal).
    public var signaled: Bool

    public init(status: Int32, stdout: Data, stderr: Data, signaled: Bool) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.signaled = signaled
    }

    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

public enum ProcessRunner {
    public struct Timeout: Error, CustomStringConvertible {
        public var seconds: Double
        public var description: String { "the process did not finish within \(seconds) s and was killed" }
    }

    /// Runs `executable` with `arguments`, feeding `stdin`; kills it after `timeout` seconds.
    public static func run(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil,
        environment: [String: String]? = nil, currentDirectory: URL? = nil, timeout: Double = 120
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let streams = StreamPipes(stdin: stdin)
        process.standardOutput = streams.output
        process.standardError = streams.errors
        process.standardInput = stdin == nil ? FileHandle.nullDevice : streams.input
        try process.run()
        streams.feedInput()
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            process.waitUntilExit()
            finished.signal()
        }
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
            _ = streams.collected()
            throw Timeout(seconds: timeout)
        }
        let (stdout, stderr) = streams.collected()
        return ProcessResult(
            status: process.terminationStatus, stdout: stdout, stderr: stderr,
            signaled: process.terminationReason == .uncaughtSignal)
    }
}

/// Pipes for a program's standard streams: output and errors read to their end on threads of
/// their own (a full pipe never blocks the writer), input fed with `stdin` (`feedInput`). For
/// `ProcessRunner` and for the tests that run imgwarm's commands in-process.
public final class StreamPipes: @unchecked Sendable {
    public let output = Pipe()
    public let errors = Pipe()
    /// The pipe the program reads its input from (when there is `stdin`).
    public let input = Pipe()
    private let stdin: Data?
    private let readers = DispatchGroup()
    private let lock = NSLock()
    private var read: (output: Data, errors: Data) = (Data(), Data())

    public init(stdin: Data?) {
        self.stdin = stdin
        for (pipe, isOutput) in [(output, true), (errors, false)] {
            readers.enter()
            DispatchQueue.global().async { [self] in
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                lock.lock()
                if isOutput { read.output = data } else { read.errors = data }
                lock.unlock()
                readers.leave()
            }
        }
    }

    /// Writes `stdin` to the input pipe, then closes it, on a thread of its own.
    public func feedInput() {
        guard let stdin else { return }
        DispatchQueue.global().async { [input] in
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
    }

    /// What the program wrote, once both write ends are closed (by the program's end, or by the
    /// caller for a command run in-process).
    public func collected() -> (stdout: Data, stderr: Data) {
        readers.wait()
        lock.lock()
        defer { lock.unlock() }
        return (read.output, read.errors)
    }
}
