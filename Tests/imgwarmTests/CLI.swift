import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import imgwarm

/// Runs `imgwarm` command lines the way a user does: in this process (`run`: the parser, the
/// command and its exit status, through `Imgwarm.execute`, which the executable's `main` runs
/// too) or as the built binary (`runBinary`), only where the process itself is what a test looks
/// at: signals, a terminal, a pipe's reader going away, memory, several processes at once.
enum CLI {
    /// True in a suite marked `.startsTheBinary`: `run` starts the binary there too.
    @TaskLocal static var startsTheBinary = false

    /// The built binary's path; each use is a start, counted (`BinaryStarts`).
    static var binary: URL {
        BinaryStarts.record()
        return path
    }

    private static let path = Fixtures.product("imgwarm")

    /// A clean environment: no inherited cache variables, HOME in a temporary folder.
    static func environment(home: String, extra: [String: String] = [:]) -> [String: String] {
        var env = ["PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8"]
        for (key, value) in extra { env[key] = value }
        return env
    }

    /// Runs `arguments` in-process, in a `ProcessContext` of its own: pipes for the standard
    /// streams (standard input is /dev/null without `stdin`, as for the binary) and the
    /// environment `environment(home:extra:)` makes. Falls back to the binary where the libraries
    /// would read the real environment instead (a proxy or TLS variable: libcurl and OpenSSL
    /// read `environ` themselves), and everywhere when `IMGWARM_TESTS_BINARY_ONLY` is set (how
    /// the suite ran before, for comparing the two).
    static func run(
        _ arguments: [String], stdin: Data? = nil, home: String, env: [String: String] = [:], timeout: Double = 120
    ) throws -> ProcessResult {
        let environment = environment(home: home, extra: env)
        guard !startsTheBinary, InProcess.isFaithful(for: environment, arguments: arguments) else {
            return try runBinary(arguments, stdin: stdin, home: home, env: env, timeout: timeout)
        }
        return try InProcess.run(arguments, stdin: stdin, environment: environment, timeout: timeout)
    }

    /// Starts the built binary with `arguments`; it is killed after `timeout` seconds.
    static func runBinary(
        _ arguments: [String], stdin: Data? = nil, home: String, env: [String: String] = [:], timeout: Double = 120
    ) throws -> ProcessResult {
        try ProcessRunner.run(
            binary, arguments, stdin: stdin, environment: environment(home: home, extra: env), timeout: timeout)
    }

    /// Parses standard output as one JSON object.
    static func json(_ result: ProcessResult) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        return object
    }
}

/// Marks a suite whose subject is the command-line surface a user meets (help, usage errors,
/// defaults, exit codes, what a cron job or a pipe sees): its command lines run as the binary.
struct StartsTheBinary: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await CLI.$startsTheBinary.withValue(true) { try await function() }
    }
}

extension Trait where Self == StartsTheBinary {
    static var startsTheBinary: Self { Self() }
}

/// Which tests start the binary: with `IMGWARM_TESTS_BINARY_STARTS` naming a file, each start
/// appends the running test's name to it (`scripts/test-share.sh` counts them).
enum BinaryStarts {
    static func record() {
        guard let path = ProcessInfo.processInfo.environment["IMGWARM_TESTS_BINARY_STARTS"], !path.isEmpty else {
            return
        }
        let name = Test.current.map { "\($0.id)" } ?? "(outside a test)"
        guard let handle = FileHandle(forWritingAtPath: path) ?? create(path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data((name + "\n").utf8))
    }

    private static func create(_ path: String) -> FileHandle? {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }
}

/// A command line run in this process.
enum InProcess {
    /// libcurl's proxy variables: libcurl reads them from the process's own environment, which
    /// a `ProcessContext` cannot give it.
    static let proxyVariables: Set<String> = [
        "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ]

    /// OpenSSL's certificate paths, also read from the process's own environment. The test
    /// process may have them (this machine sets them to the system's certificates, which the
    /// binary reads by default too: a test that trusts another authority passes `--cacert`);
    /// a test that sets them needs the binary.
    static let certificateVariables: Set<String> = ["SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE"]

    /// Options that set what is process-wide: ImageMagick's limits are set once per process,
    /// from the first run's `--max-pixels` (`ImageValidator.startMagick`), so a run that sets
    /// them would set them for every later run of the test process.
    static let processWideOptions = ["--max-pixels"]

    /// True when running `arguments` in-process behaves as the binary would with `environment`.
    static func isFaithful(for environment: [String: String], arguments: [String]) -> Bool {
        let own = ProcessInfo.processInfo.environment
        if let only = own["IMGWARM_TESTS_BINARY_ONLY"], !only.isEmpty { return false }
        let setsProcessWide = arguments.contains { argument in
            processWideOptions.contains { argument == $0 || argument.hasPrefix($0 + "=") }
        }
        if setsProcessWide { return false }
        return proxyVariables.allSatisfy { environment[$0] == nil && own[$0] == nil }
            && certificateVariables.allSatisfy { environment[$0] == nil }
    }

    static func run(_ arguments: [String], stdin: Data?, environment: [String: String], timeout: Double) throws
        -> ProcessResult
    {
        let streams = StreamPipes(stdin: stdin)
        streams.feedInput()
        let nullInput = stdin == nil ? FileHandle(forReadingAtPath: "/dev/null") : nil
        let context = ProcessContext(
            input: FileDescriptor(rawValue: (nullInput ?? streams.input.fileHandleForReading).fileDescriptor),
            output: FileDescriptor(rawValue: streams.output.fileHandleForWriting.fileDescriptor),
            error: FileDescriptor(rawValue: streams.errors.fileHandleForWriting.fileDescriptor),
            environment: environment, settingNames: SettingFlags.byName)
        let watchdog = Watchdog(arguments: arguments, seconds: timeout)
        let status = ProcessContext.run(in: context) { Imgwarm.execute(arguments) }
        watchdog.finish()
        try streams.output.fileHandleForWriting.close()
        try streams.errors.fileHandleForWriting.close()
        let (stdout, stderr) = streams.collected()
        try? nullInput?.close()
        try? streams.input.fileHandleForReading.close()
        return ProcessResult(status: status.rawValue, stdout: stdout, stderr: stderr, signaled: false)
    }

    /// A run that does not end within its time ends the test process with a message naming it:
    /// a thread cannot be killed as the binary can, and a hung suite says nothing.
    private final class Watchdog: @unchecked Sendable {
        private let lock = NSLock()
        private var finished = false

        init(arguments: [String], seconds: Double) {
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                lock.lock()
                let done = finished
                lock.unlock()
                if !done { fatalError("imgwarm \(arguments.joined(separator: " ")) did not end within \(seconds) s") }
            }
        }

        func finish() {
            lock.lock()
            finished = true
            lock.unlock()
        }
    }
}
