import ImgwarmSystem

/// An Android app's container reached through the platform's `adb` (`imgwarm push` and `pull`,
/// docs/pack.md "Android"): every command on the device runs as the app's user through
/// `run-as`, which starts in the app's data folder (`/data/data/PKG`), the root of the archive's
/// layout. With `root` (push on a release build, docs/pack.md "Android") the commands run as
/// root after `adb root` in the app's container, and the files are given to the app's uid
/// afterwards. Tested against the stand-in `Tests/Fixtures/adb/adb` only (no device here).
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
    /// Whether to work as root (`adb root`) where the device allows it: for release builds,
    /// whose `run-as` refuses.
    public var root: Bool
    /// The app's uid once `check` found root granted; nil: commands run through `run-as`.
    public internal(set) var rootUID: Int?
    /// What ends adb early: a stop signal ends its process group and the step fails with
    /// `Failure.stopped`. Never by default.
    public var stop: StopSource = .never

    public init(
        adb: String, serial: String?, userWords: [String], package: String, scratchFolder: String,
        root: Bool = false
    ) {
        self.adb = adb
        self.serial = serial
        self.userWords = userWords
        self.package = package
        self.scratchFolder = scratchFolder
        self.root = root
    }

    /// Why the device side refused or failed; each names the cause and the fix.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case noAdb(String, SystemError)
        case noDevice
        case serialNotFound(String)
        case severalDevices([String])
        case notInstalled(String)
        case notDebuggable(String, String)
        /// `adb root` refused (a production build) and `run-as` too: what each said.
        case rootRefused(String, String)
        /// `dumpsys package` shows no uid for the app.
        case uidNotFound(String)
        /// The device went away during a step: which, and what adb said.
        case lost(String, String)
        /// A command on the device failed: which, and what it said.
        case failed(String, String)
        /// A stop signal ended adb (its number).
        case stopped(Int32)

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
            case .rootRefused(let said, let runAs):
                return
                    "adb root was refused (\(said)) and run-as too (\(runAs)): \(Setting.root) needs a rootable emulator image (one without Play Store), or use a debuggable build of the app without \(Setting.root)"
            case .uidNotFound(let package):
                return
                    "dumpsys package \(package) shows no userId: check the package name and the Android user, or push a debuggable build without \(Setting.root)"
            case .lost(let step, let said):
                return "the device went away during \(step) (\(said)): reconnect it and run the command again"
            case .failed(let step, let said):
                return "\(step) failed on the device (\(said))"
            case .stopped(let signal):
                return "stopped by \(StopSignals.name(of: signal)): adb and what it started were ended"
            }
        }
    }

    /// `word` as one word for the device's shell (`sh -c`): itself when it holds only
    /// characters no shell acts on, else in single quotes (each `'` written `'\''`). Every word
    /// imgwarm hands the device goes through here, validated or not (the second wall).
    public static func quote(_ word: String) -> String {
        let plain = word.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "_@%+=:,./-".utf8.contains(byte)
        }
        if plain && !word.isEmpty { return word }
        return "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// `words` as one command line for the device's shell, each word quoted.
    public static func commandLine(_ words: [String]) -> String {
        words.map(quote).joined(separator: " ")
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
                adb, anyDevice ? arguments : adbArguments(arguments), input: input, scratchFolder: scratchFolder,
                stop: stop.descriptor)
        } catch {
            if error.isInterrupted && stop.signal != 0 { throw .stopped(stop.signal) }
            throw .noAdb(adb, error)
        }
    }

    /// The command line that runs what follows it as the app's user in its data folder:
    /// `run-as [--user U] PKG`; as root, a `cd` into the container (adb hands the command line
    /// to the device's sh).
    var asApp: String {
        rootUID == nil
            ? AndroidDevice.commandLine(["run-as"] + userWords + [package])
            : "cd \(AndroidDevice.quote(container)) &&"
    }

    /// `words` run as the app's user, as one command line for `adb exec-in` and `exec-out`.
    func asAppCommand(_ words: [String]) -> String {
        asApp + " " + AndroidDevice.commandLine(words)
    }

    /// The app's container: `/data/data/PKG`, or `/data/user/N/PKG` for Android user N.
    var container: String {
        user.map { "/data/user/\($0)/\(package)" } ?? "/data/data/\(package)"
    }

    /// The Android user named by `userWords` (`--user N`); nil: the current one.
    var user: String? {
        userWords.count == 2 ? userWords[1] : nil
    }

    /// Runs `script` with the device's `sh` as the app's user (or root), in its data folder.
    func runAs(_ script: String) throws(Failure) -> ChildProcess.Finished {
        guard rootUID == nil else {
            return try run([
                "shell", "sh -c " + AndroidDevice.quote("cd \(AndroidDevice.quote(container)) && " + script),
            ])
        }
        return try run(["shell", asAppCommand(["sh", "-c", script])])
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
    /// works (a debuggable build). With `root`, `adb root` first: granted, the device checked
    /// is returned with the app's uid (`rootUID`); refused, `run-as` must work instead.
    @discardableResult
    public func check() throws(Failure) -> AndroidDevice {
        let serials = try attachedSerials()
        if let serial {
            guard serials.contains(serial) else { throw serials.isEmpty ? .noDevice : .serialNotFound(serial) }
        } else {
            guard !serials.isEmpty else { throw .noDevice }
            guard serials.count == 1 else { throw .severalDevices(serials) }
        }
        let path = try run(["shell", AndroidDevice.commandLine(["pm", "path"] + userWords + [package])])
        guard path.status == 0, ChildProcessOutput(path).lines.contains(where: { $0.hasPrefix("package:") }) else {
            throw .notInstalled(package)
        }
        if root {
            let granted = try run(["root"])
            let said = (String(decoding: granted.output, as: UTF8.self) + " " + granted.message)
            if granted.status == 0 && !said.contains("cannot run as root") {
                _ = try run(["wait-for-device"])
                var checked = self
                checked.rootUID = try appUID()
                return checked
            }
            let probe = try runAs("true")
            guard probe.status == 0 else {
                throw .rootRefused(ChildProcessOutput(granted).lines.first ?? granted.message, probe.message)
            }
            return self
        }
        let probe = try runAs("true")
        guard probe.status == 0 else { throw .notDebuggable(package, probe.message) }
        return self
    }

    /// The app's uid for this device's user: `userId=` of `dumpsys package` is the app's id,
    /// and user N's copy runs as N × 100000 + that id.
    func appUID() throws(Failure) -> Int {
        let dump = try run(["shell", AndroidDevice.commandLine(["dumpsys", "package", package])])
        let ids = ChildProcessOutput(dump).lines.lazy.compactMap { line -> Int? in
            guard let range = line.firstRange(of: "userId=") else { return nil }
            return Int(line[range.upperBound...].prefix(while: \.isNumber))
        }
        guard dump.status == 0, let id = ids.first else { throw .uidNotFound(package) }
        return (user.flatMap { Int($0) } ?? 0) * 100_000 + id % 100_000
    }

    /// As root: gives `paths` (in the container) to the app's uid and relabels them for SELinux
    /// (`chown -R`, `restorecon -R`); files written by root are otherwise not the app's. Through
    /// `run-as` they already are: nothing to do.
    func giveToApp(_ paths: [String], step: String) throws(Failure) {
        guard let uid = rootUID, !paths.isEmpty else { return }
        let quoted = paths.map(AndroidDevice.quote).joined(separator: " ")
        try mustRunAs("chown -R \(uid):\(uid) \(quoted) && restorecon -R \(quoted)", step: step)
    }

    /// Stops the app (`am force-stop`): the libraries read their journal or database when it opens
    /// its cache, and must not write while the folder is replaced.
    public func stopApp() throws(Failure) {
        let result = try run(["shell", AndroidDevice.commandLine(["am", "force-stop"] + userWords + [package])])
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
