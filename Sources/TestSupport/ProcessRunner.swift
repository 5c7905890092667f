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
        let outPipe = Pipe()
        let errPipe = Pipe()
        let inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = stdin == nil ? FileHandle.nullDevice : inPipe

        let collected = Collected()
        let group = DispatchGroup()
        for (pipe, isOut) in [(outPipe, true), (errPipe, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(data, isOut: isOut)
                group.leave()
            }
        }
        try process.run()
        if let stdin {
            DispatchQueue.global().async {
                try? inPipe.fileHandleForWriting.write(contentsOf: stdin)
                try? inPipe.fileHandleForWriting.close()
            }
        }
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            process.waitUntilExit()
            finished.signal()
        }
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
            group.wait()
            throw Timeout(seconds: timeout)
        }
        group.wait()
        return ProcessResult(
            status: process.terminationStatus, stdout: collected.out, stderr: collected.err,
            signaled: process.terminationReason == .uncaughtSignal)
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var out = Data()
        private(set) var err = Data()
        func set(_ data: Data, isOut: Bool) {
            lock.lock()
            if isOut { out = data } else { err = data }
            lock.unlock()
        }
    }
}
