import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// The device options of `push` and `pull` (docs/pack.md, "Android").
struct AdbOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The app's package name, e.g. com.example.app.", valueName: "package"))
    var package: String

    /// Optional, so that --help prints the default once, in the help's own words.
    @Option(help: ArgumentHelp("The adb program (default: adb on PATH).", valueName: "path"), completion: .file())
    var adb: String?

    @Option(
        help: ArgumentHelp(
            "The device's serial, as adb devices lists it (needed when several are attached).", valueName: "serial"))
    var serial: String?

    @Option(help: ArgumentHelp("The Android user whose copy of the app is meant (run-as --user).", valueName: "id"))
    var user: String?

    /// The device, with scratch files in $TMPDIR (else /tmp), stopped by the stop signals. Each
    /// value is checked by its grammar first (docs/hardening.md, "The device boundary"): a usage
    /// error before adb runs.
    func device() throws -> AndroidDevice {
        if let problem = AndroidDevice.packageProblem(package) {
            throw CommandFailure.usage("--package '\(EscapedText.escaped(package))' is refused: \(problem)")
        }
        if let user, let problem = AndroidDevice.userProblem(user) {
            throw CommandFailure.usage("--user '\(EscapedText.escaped(user))' is refused: \(problem)")
        }
        if let serial, let problem = AndroidDevice.serialProblem(serial) {
            throw CommandFailure.usage("--serial '\(EscapedText.escaped(serial))' is refused: \(problem)")
        }
        let adb = self.adb ?? "adb"
        if adb.isEmpty { throw CommandFailure.usage("--adb '' names no program: give adb's path or name") }
        let scratch = CurrentProcess.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var device = AndroidDevice(
            adb: adb, serial: serial, userWords: user.map { ["--user", $0] } ?? [], package: package,
            scratchFolder: scratch)
        device.stop = StopSource.installSignalHandlers()
        return device
    }

    /// The format `push` and `pull` take: one of Android's, named (no default: SDWebImage's, the
    /// default elsewhere, is an iOS cache).
    static func androidFormat(_ format: (any CacheFormat)?, command: String) throws -> any CacheFormat {
        let names = CacheFormats.names(on: .android).joined(separator: ", ")
        guard let format else {
            throw CommandFailure.usage("\(command) needs --cache-format, one of Android's: \(names)")
        }
        guard format.platforms.contains(.android) else {
            throw CommandFailure.usage(
                "\(command) is for Android apps, and \(format.name) is a cache of iOS apps: use one of \(names)")
        }
        return format
    }

    /// A failure of the device side: its words escaped (the device's own are quoted in them),
    /// with its exit code (128 + N when a stop signal ended it).
    static func failure(_ message: String, stopped: Int32?) -> CommandFailure {
        CommandFailure(
            message: EscapedText.escaped(message), status: stopped.map { .stopped(by: $0) } ?? .cacheUnusable)
    }

    /// What --help says of the device path: how it was tested, and how to check a first real push.
    static let testedText = """
        The device side was tested here against a stand-in adb (Tests/Fixtures/adb/adb, a local \
        folder as the device, busybox as toybox), not a real device or emulator. Check a first \
        real push by pulling the cache back and verifying it: imgwarm pull --package PKG \
        --cache-format FORMAT --output pulled, then imgwarm verify --cache-format FORMAT \
        --cache-dir pulled/cache LIST.
        """
}
