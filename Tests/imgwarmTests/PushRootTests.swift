import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `imgwarm push --root` (docs/pack.md, "Android") against the stand-in adb: a release build's
/// push as root, its files given to the uid `dumpsys package` shows; a production build refuses
/// and leaves the app's folder as it was; a debuggable app goes through run-as all the same.
@Suite struct PushRootTests {
    @Test func aRootPushGivesTheFilesToTheAppsUID() throws {
        let setup = try PushPullTests.Setup(try #require(CacheFormats.named("glide")))
        let push = try setup.run(
            ["push", "--root"] + setup.s.options,
            env: ["FAKE_ADB_NOT_DEBUGGABLE": PushPullTests.package, "FAKE_ADB_UID": "10234"])
        #expect(push.status == 0, "\(push.stderr)")
        #expect(push.stderr.contains("adb root granted: the files go to the app's uid 10234"), "\(push.stderr)")
        let log = setup.log
        #expect(log.contains("\nroot\n") || log.hasPrefix("root\n"), "\(log)")
        #expect(log.contains("wait-for-device"), "\(log)")
        #expect(log.contains("dumpsys package"), "\(log)")
        #expect(log.contains("device: chown -R 10234:10234 .imgwarm-push"), "\(log)")
        #expect(log.contains("device: restorecon -R .imgwarm-push"), "\(log)")
        #expect(!log.contains("run-as"), "\(log)")
        let seed = try PackTests.tree(setup.s.location.folder, as: "")
        let pushed = try setup.appFiles()
        #expect(Set(pushed.keys) == Set(seed.keys))
        for (path, file) in seed {
            #expect(pushed[path]?.bytes == file.bytes, "\(path)")
            #expect(pushed[path]?.modified.seconds == file.modified.seconds, "\(path)")
        }
        let container = setup.device + "/data/data/" + PushPullTests.package
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: container)).contains(PushJob.staging))
    }

    @Test func aRootPushWithoutExecInGoesThroughDataLocalTmp() throws {
        let setup = try PushPullTests.Setup(try #require(CacheFormats.named("glide")))
        let push = try setup.run(
            ["push", "--root"] + setup.s.options,
            env: ["FAKE_ADB_NOT_DEBUGGABLE": PushPullTests.package, "FAKE_ADB_NO_EXEC_IN": "1"])
        #expect(push.status == 0, "\(push.stderr)")
        #expect(setup.log.contains("device: chown -R 10123:10123 .imgwarm-push"), "\(setup.log)")
        #expect(Set(try setup.appFiles().keys) == Set(try PackTests.tree(setup.s.location.folder, as: "").keys))
    }

    /// `--user N` as root: the container `/data/user/N/PKG`, the uid N × 100000 + the app's id.
    @Test func aRootPushForAnotherUserUsesItsContainerAndUID() throws {
        let setup = try PushPullTests.Setup(try #require(CacheFormats.named("glide")))
        // The stand-in keeps every user's copy in /data/data: user 10's folder points there.
        try FileManager.default.createDirectory(
            atPath: setup.device + "/data/user", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: setup.device + "/data/user/10", withDestinationPath: setup.device + "/data/data")
        let push = try setup.run(
            ["push", "--root", "--user", "10"] + setup.s.options,
            env: ["FAKE_ADB_NOT_DEBUGGABLE": PushPullTests.package, "FAKE_ADB_UID": "10234"])
        #expect(push.status == 0, "\(push.stderr)")
        #expect(setup.log.contains("cd /data/user/10/\(PushPullTests.package) &&"), "\(setup.log)")
        #expect(setup.log.contains("device: chown -R 1010234:1010234 .imgwarm-push"), "\(setup.log)")
        #expect(Set(try setup.appFiles().keys) == Set(try PackTests.tree(setup.s.location.folder, as: "").keys))
    }

    /// flutter's database lives outside its folder: as root its parent, made by the push, is the
    /// app's too, and a pull of what arrived verifies all hits.
    @Test func aRootPushOfFlutterVerifiesAllHits() throws {
        let setup = try PushPullTests.Setup(try #require(CacheFormats.named("flutter")))
        let push = try setup.run(["push", "--root"] + setup.s.options)
        #expect(push.status == 0, "\(push.stderr)")
        #expect(setup.log.contains("device: chown 10123:10123 "), "\(setup.log)")
        #expect(setup.log.contains("device: restorecon "), "\(setup.log)")
        let pulled = setup.s.h.temp.path("pulled")
        let pull = try setup.run(["pull", "--cache-format", "flutter", "--output", pulled])
        #expect(pull.status == 0, "\(pull.stderr)")
        try PackTests.verifyAllHits(setup.s, extractedInto: pulled, platform: .android)
    }

    /// Each refusal under --root of a release build: its switches, what the message must say.
    static let refusals: [(String, [String: String], [String])] = [
        (
            "production build", ["FAKE_ADB_PRODUCTION": "1"],
            [
                "adb root was refused (adbd cannot run as root in production builds)",
                "a rootable emulator image (one without Play Store)", "a debuggable build of the app without --root",
                "the app's cache was left as it was",
            ]
        ),
        (
            "no uid", ["FAKE_ADB_NO_UID": "1"],
            ["dumpsys package \(PushPullTests.package) shows no userId", "the app's cache was left as it was"]
        ),
    ]

    @Test(arguments: refusals.indices)
    func aRootRefusalLeavesTheAppsCache(index: Int) throws {
        let (what, env, words) = Self.refusals[index]
        let setup = try PushPullTests.Setup(try #require(CacheFormats.named("glide")))
        let before = try setup.appFiles()
        var environment = env
        environment["FAKE_ADB_NOT_DEBUGGABLE"] = PushPullTests.package
        let push = try setup.run(["push", "--root"] + setup.s.options, env: environment)
        #expect(push.status == 3, "\(what): \(push.stderr)")
        for word in words { #expect(push.stderr.contains(word), "\(what): \(push.stderr)") }
        #expect(try setup.appFiles() == before, "\(what): the app's cache changed")
        let container = setup.device + "/data/data/" + PushPullTests.package
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: container)).contains(PushJob.staging))
    }

    /// A production build with a debuggable app: adb root refused, the push goes through run-as.
    @Test func aDebuggableAppIsPushedThroughRunAsWhereRootIsRefused() throws {
        let setup = try PushPullTests.Setup(try #require(CacheFormats.named("glide")))
        let push = try setup.run(["push", "--root"] + setup.s.options, env: ["FAKE_ADB_PRODUCTION": "1"])
        #expect(push.status == 0, "\(push.stderr)")
        #expect(push.stderr.contains("adb root was refused: pushing through run-as"), "\(push.stderr)")
        #expect(setup.log.contains("exec-in run-as \(PushPullTests.package) tar -x"), "\(setup.log)")
        #expect(!setup.log.contains("device: chown"), "\(setup.log)")
        #expect(Set(try setup.appFiles().keys) == Set(try PackTests.tree(setup.s.location.folder, as: "").keys))
    }

    /// push's help says what --root does.
    @Test func pushHelpSaysWhatRootDoes() throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run(["push", "--help"], home: temp.path).stdoutText.replacingOccurrences(
            of: "\\s+", with: " ", options: .regularExpression)
        for words in [
            "--root is for a release (non-debuggable) build on a rootable emulator image",
            "adb root and adb wait-for-device", "from dumpsys package", "chown -R", "restorecon -R",
            "a debuggable app is still pushed through run-as",
        ] {
            #expect(help.contains(words), "\(words): \(help)")
        }
    }
}
