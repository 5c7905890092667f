import ImgwarmSystem

/// An Android app's container reached through the platform's `adb` (`imgwarm push` and `pull`,
/// docs/pack.md "Android"): every command on the device runs as the app's user through
/// `run-as`, which starts in the app's data folder (`/data/data/PKG`), the root of the archive's
/// layout. Tested against the stand-in `Tests/Fixtures/adb/adb` only (no device here).
public struct AndroidDevice: Sendable {
    /// The adb program: a path, or a name looked up on `PATH`.
    public var adb: String
    /// The device's serial (`adb -s`); nil: the one device attached.
    public var serial: String?
    /// The words that name the Android user whose copy of the app is meant, as `run-as`, `am`
    /// and `pm` take them (the host spells the device's option); empty: the current user.
    public var userWords: [String]
    /// The app's package name.
    public var package: String
    /// Where this machine's scratch files go (`$TMPDIR`, else `/tmp`).
    public var scratchFolder: String

    public init(adb: String, serial: String?, userWords: [String], package: String, scratchFolder: String) {
        self.adb = adb
        self.serial = serial
        self.userWords = userWords
        self.package = package
        self.scratchFolder = scratchFolder
    }

    /// Why the device side refused or failed; each names the cause and the fix.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case noAdb(String, SystemError)
        case noDevice
        case serialNotFound(String)
        case severalDevices([String])
        case notInstalled(String)
        case notDebuggable(String, String)
        /// The device went away during a step: which, and what adb said.
        case lost(String, String)
        /// A command on the device failed: which, and what it said.
        case failed(String, String)

        public var description: String {
            switch self {
            case .noAdb(let adb, let error):
                return
                    "cannot run \(adb) (\(error)): install Android's platform tools, or name adb with \(Setting.adbPath)"
            case .noDevice:
                return "adb lists no device: start the emulator or connect the device (and allow USB debugging)"
            case .serialNotFound(let serial):
                return "adb lists no device \(serial): check `adb devices` and \(Setting.serial)"
            case .severalDevices(let serials):
                return "adb lists several devices (\(serials.joined(separator: ", "))): name one with \(Setting.serial)"
            case .notInstalled(let package):
                return
                    "\(package) is not installed on the device (pm path finds nothing): install the app first, or check the package name and the Android user"
            case .notDebuggable(let package, let said):
                return
                    "run-as cannot run as \(package) (\(said)): push and pull need a debuggable build of the app (android:debuggable, a debug variant)"
            case .lost(let step, let said):
                return "the device went away during \(step) (\(said)): reconnect it and run the command again"
            case .failed(let step, let said):
                return "\(step) failed on the device (\(said))"
            }
        }
    }

    /// `word` quoted for the device's shell.
    public static func quote(_ word: String) -> String {
        "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// adb's arguments for `arguments` on this device.
    func adbArguments(_ arguments: [String]) -> [String] {
        (serial.map { ["-s", $0] } ?? []) + arguments
    }

    /// Runs adb with `arguments` (for this device unless `anyDevice`), its input from `input`.
    func run(_ arguments: [String], input: FileDescriptor? = nil, anyDevice: Bool = false) throws(Failure)
        -> ChildProcess.Finished
    {
        do {
            return try ChildProcess.run(
                adb, anyDevice ? arguments : adbArguments(arguments), input: input, scratchFolder: scratchFolder)
        } catch {
            throw .noAdb(adb, error)
        }
    }

    /// The words that run a command as the app's user: `run-as [--user U] PKG`.
    var runAsWords: [String] {
        ["run-as"] + userWords + [package]
    }

    /// Runs `script` with the device's `sh` as the app's user, in its data folder.
    func runAs(_ script: String) throws(Failure) -> ChildProcess.Finished {
        try run(["shell", (runAsWords + ["sh", "-c", AndroidDevice.quote(script)]).joined(separator: " ")])
    }

    /// Runs `script` as the app's user and fails with `step` unless it succeeds; a device that
    /// went away says so.
    @discardableResult
    func mustRunAs(_ script: String, step: String) throws(Failure) -> ChildProcess.Finished {
        let result = try runAs(script)
        guard result.status == 0 else { try failure(step, result) }
        return result
    }

    /// The failure of `step` that `result` shows: the device gone, or the step's own.
    func failure(_ step: String, _ result: ChildProcess.Finished) throws(Failure) -> Never {
        if (try? attachedSerials())?.contains(where: { serial == nil || $0 == serial }) != true {
            throw .lost(step, result.message)
        }
        throw .failed(step, result.message)
    }

    /// The serials `adb devices` lists as ready.
    func attachedSerials() throws(Failure) -> [String] {
        let listing = try ChildProcessOutput(run(["devices"], anyDevice: true))
        return listing.lines.dropFirst().compactMap { line in
            let words = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            return words.count >= 2 && words[1] == "device" ? String(words[0]) : nil
        }
    }

    /// The checks before anything is changed: the device is there, the app installed, `run-as`
    /// works (a debuggable build).
    public func check() throws(Failure) {
        let serials = try attachedSerials()
        if let serial {
            guard serials.contains(serial) else { throw serials.isEmpty ? .noDevice : .serialNotFound(serial) }
        } else {
            guard !serials.isEmpty else { throw .noDevice }
            guard serials.count == 1 else { throw .severalDevices(serials) }
        }
        let path = try run([
            "shell", (["pm", "path"] + userWords + [package]).joined(separator: " "),
        ])
        guard path.status == 0, ChildProcessOutput(path).lines.contains(where: { $0.hasPrefix("package:") }) else {
            throw .notInstalled(package)
        }
        let probe = try runAs("true")
        guard probe.status == 0 else { throw .notDebuggable(package, probe.message) }
    }

    /// Stops the app (`am force-stop`): the libraries read their journal or database when it opens
    /// its cache, and must not write while the folder is replaced.
    public func stopApp() throws(Failure) {
        let words = ["am", "force-stop"] + userWords + [package]
        let result = try run(["shell", words.joined(separator: " ")])
        guard result.status == 0 else { try failure("am force-stop", result) }
    }
}

/// A finished program's output as lines of text.
struct ChildProcessOutput {
    let lines: [String]

    init(_ finished: ChildProcess.Finished) {
        lines = String(decoding: finished.output, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
    }
}
