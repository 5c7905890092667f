import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// The device options of `push` and `pull` (docs/pack.md, "Android").
struct AdbOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The app's package name, e.g. com.example.app.", valueName: "package"))
    var package: String

    @Option(help: ArgumentHelp("The adb program (default: adb on PATH).", valueName: "path"), completion: .file())
    var adb: String = "adb"

    @Option(
        help: ArgumentHelp(
            "The device's serial, as adb devices lists it (needed when several are attached).", valueName: "serial"))
    var serial: String?

    @Option(help: ArgumentHelp("The Android user whose copy of the app is meant (run-as --user).", valueName: "id"))
    var user: String?

    /// The device, with scratch files in $TMPDIR (else /tmp).
    func device() throws -> AndroidDevice {
        guard !package.isEmpty, !package.contains("/"), !package.contains("'") else {
            throw CommandFailure.usage("--package needs an app's package name, e.g. com.example.app")
        }
        let scratch = CurrentProcess.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return AndroidDevice(
            adb: adb, serial: serial, userWords: user.map { ["--user", $0] } ?? [], package: package,
            scratchFolder: scratch)
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
