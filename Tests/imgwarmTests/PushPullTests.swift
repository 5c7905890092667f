import Foundation
import ImgwarmKit
import ImgwarmSystem
import TestSupport
import Testing

/// `imgwarm push` and `pull` (docs/pack.md, "Android") against the stand-in adb
/// (`Tests/Fixtures/adb/adb`: a local folder as the device, busybox as its toybox): a round trip
/// of every format ends in a pulled cache `verify` finds all hits; each refusal names its cause
/// and fix, exits 3 and leaves the app's folder as it was.
@Suite struct PushPullTests {
    static let package = "com.example.app"
    static let adb = Fixtures.root.appendingPathComponent("adb/adb").path

    /// A prefetched cache and a device with the app installed, its cache holding a file of its own.
    struct Setup {
        let s: FormatContractTests.Prefetched
        let device: String
        let appCache: String

        init(_ format: any CacheFormat) throws {
            s = try FormatContractTests.Prefetched(format)
            device = s.h.temp.path("device")
            let app = device + "/data/data/" + PushPullTests.package
            appCache = app + "/" + (try s.location.containerPath(on: .android))
            try FileManager.default.createDirectory(atPath: appCache, withIntermediateDirectories: true)
            try Data("the app's own".utf8).write(to: URL(fileURLWithPath: appCache + "/app-own-file"))
        }

        func run(_ command: [String], env: [String: String] = [:]) throws -> PrefetchHarness.Run {
            var environment = ["FAKE_ADB_DEVICE": device]
            for (key, value) in env { environment[key] = value }
            return try s.h.run(
                command + ["--package", PushPullTests.package, "--adb", PushPullTests.adb], env: environment)
        }

        func push(env: [String: String] = [:]) throws -> PrefetchHarness.Run {
            try run(["push"] + s.options, env: env)
        }

        /// The app's cache folder, by relative path, with bytes and modification times.
        func appFiles() throws -> [String: PackTests.File] { try PackTests.tree(appCache, as: "") }

        var log: String { (try? String(contentsOfFile: device + "/.adb-log", encoding: .utf8)) ?? "" }
    }

    /// push and pull are Android's: its formats (flutter too).
    static func formatNames() -> [String] { CacheFormats.names(on: .android) }

    @Test(arguments: formatNames())
    func aPushThenAPullVerifiesAllHits(name: String) throws {
        let setup = try Setup(try #require(CacheFormats.named(name)))
        let push = try setup.push()
        #expect(push.status == 0, "\(name): \(push.stderr)")
        #expect(push.stderr.contains("replacing the app's cache/"), "\(push.stderr)")
        #expect(push.stderr.contains("through adb exec-in"), "\(push.stderr)")
        #expect(setup.log.contains("am force-stop \(Self.package)"))
        // Replaced as a whole: the seed's files only, with their bytes and modification times.
        let seed = try PackTests.tree(setup.s.location.folder, as: "")
        let pushed = try setup.appFiles()
        #expect(Set(pushed.keys) == Set(seed.keys), "\(name)")
        for (path, file) in seed {
            #expect(pushed[path]?.bytes == file.bytes, "\(name): \(path)")
            #expect(pushed[path]?.modified.seconds == file.modified.seconds, "\(name): \(path)")
        }
        let container = setup.device + "/data/data/" + Self.package
        let left = try FileManager.default.contentsOfDirectory(atPath: container)
        #expect(!left.contains(PushJob.staging), "\(left)")

        let pulled = setup.s.h.temp.path("pulled")
        let pull = try setup.run(["pull", "--cache-format", name, "--output", pulled])
        #expect(pull.status == 0, "\(name): \(pull.stderr)")
        try PackTests.verifyAllHits(setup.s, extractedInto: pulled, platform: .android)
    }

    @Test func withoutExecInTheArchiveGoesThroughDataLocalTmp() throws {
        let setup = try Setup(try #require(CacheFormats.named("glide")))
        let push = try setup.push(env: ["FAKE_ADB_NO_EXEC_IN": "1"])
        #expect(push.status == 0, "\(push.stderr)")
        #expect(push.stderr.contains("through /data/local/tmp (this adb has no exec-in)"), "\(push.stderr)")
        #expect(setup.log.contains("push "))
        let seed = try PackTests.tree(setup.s.location.folder, as: "")
        #expect(Set(try setup.appFiles().keys) == Set(seed.keys))
        let tmp = (try? FileManager.default.contentsOfDirectory(atPath: setup.device + "/data/local/tmp")) ?? []
        #expect(tmp.isEmpty, "left in /data/local/tmp: \(tmp)")
    }

    /// Each refusal of the device side: its switch, what the message must say (cause and fix).
    static let refusals: [(String, [String: String], [String])] = [
        (
            "no device", ["FAKE_ADB_NO_DEVICE": "1"],
            ["adb lists no device", "start the emulator or connect the device"]
        ),
        (
            "not debuggable", ["FAKE_ADB_NOT_DEBUGGABLE": package],
            ["package not debuggable", "need a debuggable build of the app"]
        ),
        (
            "device gone mid-stream", ["FAKE_ADB_DROP_AFTER": "2000"],
            ["the device went away during the copy", "reconnect it", "the app's cache was left as it was"]
        ),
    ]

    @Test(arguments: refusals.indices)
    func aRefusalNamesItsCauseAndLeavesTheAppsCache(index: Int) throws {
        let (what, env, words) = Self.refusals[index]
        let setup = try Setup(try #require(CacheFormats.named("glide")))
        let before = try setup.appFiles()
        let push = try setup.push(env: env)
        #expect(push.status == 3, "\(what): \(push.stderr)")
        for word in words { #expect(push.stderr.contains(word), "\(what): \(push.stderr)") }
        #expect(try setup.appFiles() == before, "\(what): the app's cache changed")
    }

    @Test func anAppThatIsNotInstalledIsNamed() throws {
        let setup = try Setup(try #require(CacheFormats.named("glide")))
        let s = try setup.s.h.run(
            ["push", "--package", "com.other", "--adb", Self.adb] + setup.s.options,
            env: ["FAKE_ADB_DEVICE": setup.device])
        #expect(s.status == 3)
        #expect(s.stderr.contains("com.other is not installed on the device"), "\(s.stderr)")
        #expect(s.stderr.contains("install the app first"), "\(s.stderr)")
    }

    /// `--serial` goes to adb (`-s`), `--user` to run-as, am and pm; a serial adb does not list
    /// is named.
    @Test func serialAndUserReachTheDevice() throws {
        let setup = try Setup(try #require(CacheFormats.named("glide")))
        let push = try setup.run(["push", "--serial", "emulator-5554", "--user", "10"] + setup.s.options)
        #expect(push.status == 0, "\(push.stderr)")
        #expect(setup.log.contains("-s emulator-5554 exec-in run-as --user 10 \(Self.package) tar -x"), "\(setup.log)")
        #expect(setup.log.contains("am force-stop --user 10 \(Self.package)"))
        let other = try setup.run(["push", "--serial", "emulator-9999"] + setup.s.options)
        #expect(other.status == 3)
        #expect(other.stderr.contains("adb lists no device emulator-9999"), "\(other.stderr)")
    }

    /// A device that goes away while pull reads leaves the output folder empty.
    @Test func aPullCutShortLeavesNothing() throws {
        let setup = try Setup(try #require(CacheFormats.named("glide")))
        #expect(try setup.push().status == 0)
        let out = setup.s.h.temp.path("out")
        let pull = try setup.run(
            ["pull", "--cache-format", "glide", "--output", out], env: ["FAKE_ADB_DROP_AFTER": "1500"])
        #expect(pull.status == 3)
        #expect(pull.stderr.contains("the device went away during the copy (adb exec-out)"), "\(pull.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).isEmpty)
    }

    /// push's and pull's help say how the device side was tested and how to check a first push.
    @Test(arguments: ["push", "pull"]) func helpSaysHowTheDeviceSideWasTested(command: String) throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run([command, "--help"], home: temp.path).stdoutText.replacingOccurrences(
            of: "\\s+", with: " ", options: .regularExpression)
        #expect(help.contains("tested here against a stand-in adb (Tests/Fixtures/adb/adb"), "\(help)")
        #expect(help.contains("imgwarm pull --package PKG --cache-format FORMAT --output pulled, then imgwarm verify"))
    }

    @Test func pullRefusesAFolderTheAppDoesNotHave() throws {
        let setup = try Setup(try #require(CacheFormats.named("glide")))
        let pull = try setup.run(["pull", "--cache-format", "coil", "--output", setup.s.h.temp.path("out")])
        #expect(pull.status == 3)
        #expect(pull.stderr.contains("the app has no cache/coil3_disk_cache in its container"), "\(pull.stderr)")
        let out = (try? FileManager.default.contentsOfDirectory(atPath: setup.s.h.temp.path("out"))) ?? []
        #expect(out.isEmpty)
    }
}

/// `--quiet` on the commands that move a cache: nothing on standard error on success, the work
/// done all the same; the line without it (the default) says what was moved.
@Suite struct QuietMoveTests {
    @Test func packPushAndPullAreSilentUnderQuiet() throws {
        let setup = try PushPullTests.Setup(try #require(CacheFormats.named("glide")))
        let archive = setup.s.h.temp.path("seed.tar")
        let loud = try setup.s.h.run(["pack", "--platform", "android", "--output", archive] + setup.s.options)
        #expect(loud.status == 0 && loud.stderr.contains("packed "), "\(loud.stderr)")
        let quiet = try setup.s.h.run(
            ["pack", "--quiet", "--platform", "android", "--output", archive + "2"] + setup.s.options)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        #expect(FileManager.default.contents(atPath: archive + "2") == FileManager.default.contents(atPath: archive))

        let push = try setup.run(["push", "-q"] + setup.s.options)
        #expect(push.status == 0 && push.stderr.isEmpty, "\(push.stderr)")
        #expect(Set(try setup.appFiles().keys) == Set(try PackTests.tree(setup.s.location.folder, as: "").keys))

        let pulled = setup.s.h.temp.path("pulled")
        let pull = try setup.run(["pull", "--quiet", "--cache-format", "glide", "--output", pulled])
        #expect(pull.status == 0 && pull.stderr.isEmpty, "\(pull.stderr)")
        #expect(FileManager.default.fileExists(atPath: pulled + "/cache/image_manager_disk_cache/journal"))
    }
}
