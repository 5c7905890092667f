import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `imgwarm push`: the cache into a debuggable Android app's container (docs/pack.md, "Android").
struct Push: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put the cache into a debuggable Android app's container through adb.",
        discussion: """
            push takes Android's formats only, named with --cache-format (\(CacheFormats.names(on: .android).joined(separator: ", "))). \
            It packs the cache as imgwarm pack --platform android does, into a private scratch \
            folder of $TMPDIR (0700, removed at the end), then checks that adb sees the device, that the app is installed and that run-as works (a debuggable build), stops \
            the app (am force-stop), and extracts the archive as the app's user into a staging \
            folder of its container: streamed through adb exec-in (binary-safe), or, where adb has \
            no exec-in, through a file pushed to /data/local/tmp. The files are listed back and \
            compared with the manifest (count, sizes, modification times); only when all arrived \
            does the seed replace the app's cache folder (and flutter's database) as a whole, \
            after a message naming what it replaces. A refusal or a failure names the cause and \
            the fix (quoting what adb and the device said), exits with 3 and leaves the app's \
            cache as it was. --package, --user and --serial are checked by their grammar before \
            adb runs (exit 2), and every word imgwarm hands the device's shell is quoted. A stop \
            signal ends adb and what it started, removes the scratch folder and exits with 128+N.

            --root is for a release (non-debuggable) build on a rootable emulator image (one \
            without Play Store): push runs adb root and adb wait-for-device, reads the app's uid \
            from dumpsys package (userId=; for --user N, N * 100000 plus it), extracts the \
            archive as root into the staging folder of the app's container (/data/data/PKG, or \
            /data/user/N/PKG), gives it to the app's uid (chown -R) and relabels it (restorecon \
            -R), then checks and replaces as above. Where adb root is refused (adbd cannot run as \
            root in production builds) a debuggable app is still pushed through run-as; a release \
            build is refused with exit 3, naming the fix.

            \(AdbOptions.testedText)

            Examples:
              imgwarm push --package com.example.app --cache-format glide --cache-dir seed
              imgwarm push --package com.example.app --serial emulator-5554 \\
                --cache-format coil --cache-dir seed
              imgwarm push --root --package com.example.app \\
                --cache-format glide --cache-dir seed
            """)

    @OptionGroup var location: CacheLocationOptions
    @OptionGroup(title: "Device") var adbOptions: AdbOptions

    @Flag(help: "Push a release build as root (adb root, chown to the app's uid, restorecon): rootable emulators only.")
    var root = false

    @OptionGroup var lockTimeoutOption: LockTimeoutOption
    @OptionGroup var quietOption: QuietOption

    func run() throws {
        let given = location.givenFormat
        let location = try location.location()
        _ = try AdbOptions.androidFormat(given, command: "push")
        var device = try adbOptions.device()
        device.root = root
        let job = PushJob(location: location, device: device, lockTimeout: lockTimeoutOption.lockTimeout)
        let result: PushJob.Result
        do {
            result = try job.run { event in
                switch event {
                case .transferred(let viaExecIn, let files, let bytes):
                    guard !quietOption.quiet else { return }
                    Console.error(
                        "copied \(files) files (\(Quantities.formatBytes(bytes))) \(viaExecIn ? "through adb exec-in" : "through /data/local/tmp (this adb has no exec-in)")"
                    )
                case .replacing(let path):
                    guard !quietOption.quiet else { return }
                    Console.error("replacing the app's \(path) as a whole with the seed")
                case .root(let uid):
                    guard !quietOption.quiet else { return }
                    Console.error(
                        uid.map { "adb root granted: the files go to the app's uid \($0)" }
                            ?? "adb root was refused: pushing through run-as (the app is debuggable)")
                case .timeDiffers(let path, let packed, let found):
                    Console.error("\(path): modification time \(found) on the device, \(packed) packed")
                }
            }
        } catch {
            switch error {
            case .pack(.layout), .pack(.otherPlatform): throw CommandFailure.usage(error.description)
            case .pack(.stopped(let signal)), .device(.stopped(let signal)):
                throw AdbOptions.failure(error.description, stopped: signal)
            default: throw AdbOptions.failure(error.description, stopped: nil)
            }
        }
        if !quietOption.quiet { Console.error("pushed \(result.files) files into \(device.package)'s container") }
        if result.timeDifferences > 0 {
            throw CommandFailure(
                message: "\(result.timeDifferences) files arrived with another modification time than packed",
                status: .partial)
        }
    }
}
