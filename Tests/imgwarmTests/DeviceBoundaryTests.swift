import Foundation
import ImgwarmKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The device boundary (docs/hardening.md, "The device boundary"; issue 46): `pull`, `push` and
/// `pack` against the stand-in adb playing a hostile or broken device, and hostile option values.
/// Nothing outside the output is touched, no special file is made, no partial output is left, and
/// each ends with its exit code and a message naming the cause.
@Suite struct DeviceBoundaryTests {
    static let package = PushPullTests.package
    static let folder = "cache/image_manager_disk_cache"

    /// A device with the app installed, a folder to pull into, and a run of imgwarm.
    struct Device {
        let temp: TemporaryFolder
        let device: String
        let output: String

        init() throws {
            temp = try TemporaryFolder()
            device = temp.path("device")
            try FileManager.default.createDirectory(
                atPath: device + "/data/data/\(DeviceBoundaryTests.package)/\(DeviceBoundaryTests.folder)",
                withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: temp.path("out"), withIntermediateDirectories: true)
            output = temp.path("out/pulled")
        }

        func run(_ arguments: [String], env: [String: String] = [:]) throws -> ProcessResult {
            var environment = ["FAKE_ADB_DEVICE": device]
            for (key, value) in env { environment[key] = value }
            return try CLI.run(arguments, home: temp.path, env: environment, timeout: 60)
        }

        /// `pull` of glide's cache, the device sending `stream` (a file's bytes) when given.
        func pull(stream: [UInt8]? = nil, options: [String] = [], env: [String: String] = [:]) throws -> ProcessResult {
            var environment = env
            if let stream {
                environment["FAKE_ADB_STREAM"] = try temp.write("stream.tar", Data(stream))
            }
            return try run(
                [
                    "pull", "--cache-format", "glide", "--output", output, "--package", DeviceBoundaryTests.package,
                    "--adb", PushPullTests.adb,
                ] + options, env: environment)
        }

        var log: String { (try? String(contentsOfFile: device + "/.adb-log", encoding: .utf8)) ?? "" }

        /// What the pull left beside the output: nothing, when it failed.
        var leftInParent: [String] { (try? FileManager.default.contentsOfDirectory(atPath: temp.path("out"))) ?? [] }
    }

    static func stream(_ extra: @Sendable (inout TarBuilder) -> Void = { _ in }, finished: Bool = true) -> [UInt8] {
        var tar = TarBuilder()
        tar.add(folder + "/", kind: .directory)
        tar.add(folder + "/journal", data: Array("libcore.io.DiskLruCache\n1\n100\n1\n\n".utf8))
        extra(&tar)
        if finished { tar.finish() }
        return tar.bytes
    }

    /// Members a hostile device sends: each fails the pull naming the member, exit 3, with
    /// nothing created (as root GNU tar restored them all).
    static let hostile: [(String, @Sendable (inout TarBuilder) -> Void, String)] = [
        ("a device node", { $0.add(folder + "/mem", kind: .characterDevice, mode: 0o666, device: (1, 1)) }, "mem"),
        ("a FIFO", { $0.add(folder + "/fifo", kind: .fifo) }, "fifo"),
        ("a setuid file", { $0.add(folder + "/suid", data: [1], mode: 0o4755) }, "suid"),
        ("a link out", { $0.add("cache", kind: .symbolicLink, link: "/tmp") }, "a symbolic link"),
        ("a world-writable folder", { $0.add(folder + "/open/", kind: .directory, mode: 0o1777) }, "sticky"),
        ("a climbing name", { $0.add(folder + "/../../../../x", data: [1]) }, "'..'"),
    ]

    @Test(arguments: hostile.indices)
    func aHostileStreamFailsThePullAndCreatesNothing(index: Int) throws {
        let (what, add, words) = Self.hostile[index]
        let d = try Device()
        let pull = try d.pull(stream: Self.stream(add))
        #expect(pull.status == 3, "\(what): \(pull.stderrText)")
        #expect(pull.stderrText.contains("the device sent "), "\(what): \(pull.stderrText)")
        #expect(pull.stderrText.contains(words), "\(what): \(pull.stderrText)")
        #expect(pull.stderrText.contains("nothing was written to \(d.output)"), "\(what): \(pull.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: d.output), "\(what)")
        #expect(d.leftInParent.isEmpty, "\(what): \(d.leftInParent)")
    }

    /// A stream cut at a member boundary (adb exits 0: exec-out carries no exit status), cut
    /// inside a member, or that is not tar at all: incomplete, exit 3, nothing written; an
    /// empty output folder that was there stays, empty.
    @Test(arguments: ["at a boundary", "inside a member", "garbage"])
    func aCutStreamLeavesTheOutputAsItWas(cut: String) throws {
        let d = try Device()
        try FileManager.default.createDirectory(atPath: d.output, withIntermediateDirectories: false)
        var bytes = Self.stream(finished: false)
        if cut == "inside a member" { bytes = Array(bytes.dropLast(300)) }
        if cut == "garbage" { bytes = Array("<html>Service Unavailable</html>".utf8) }
        let pull = try d.pull(stream: bytes)
        #expect(pull.status == 3, "\(cut): \(pull.stderrText)")
        #expect(pull.stderrText.contains("the copy from the device is incomplete"), "\(cut): \(pull.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.output).isEmpty, "\(cut)")
        #expect(d.leftInParent == ["pulled"], "\(cut): \(d.leftInParent)")
    }

    /// An endless stream stops at --stream-limit, a silent one at --stall-timeout: exit 3, adb
    /// ended, nothing written.
    @Test(arguments: ["endless", "stalled"])
    func anEndlessOrSilentStreamIsBounded(kind: String) throws {
        let d = try Device()
        let pull =
            kind == "endless"
            ? try d.pull(options: ["--stream-limit", "2MiB"], env: ["FAKE_ADB_ENDLESS": "1"])
            : try d.pull(options: ["--stall-timeout", "1"], env: ["FAKE_ADB_STALL": "1"])
        #expect(pull.status == 3, "\(kind): \(pull.stderrText)")
        let words =
            kind == "endless"
            ? "the device sent more than 2MiB (--stream-limit)" : "sent nothing for 1 s (--stall-timeout)"
        #expect(pull.stderrText.contains(words), "\(kind): \(pull.stderrText)")
        let adb = try #require(Int32(String(contentsOfFile: d.device + "/.adb-exec-out-pid", encoding: .utf8)))
        #expect(kill(adb, 0) != 0, "\(kind): adb (\(adb)) still runs")
        #expect(!FileManager.default.fileExists(atPath: d.output))
        #expect(d.leftInParent.isEmpty, "\(d.leftInParent)")
    }

    /// A device that answers only on its standard error, with a failing status: its words are
    /// quoted, escaped (a terminal's escape sequence is not passed on).
    @Test func theDevicesOwnWordsAreQuotedEscaped() throws {
        let d = try Device()
        let pull = try d.pull(env: [
            "FAKE_ADB_STDERR": "run-as: couldn't stat /data/user/0: \u{1b}[31mPermission denied\n",
            "FAKE_ADB_STATUS": "1",
        ])
        #expect(pull.status == 3, "\(pull.stderrText)")
        #expect(
            pull.stderrText.contains(
                "the copy (adb exec-out) failed on the device (run-as: couldn't stat /data/user/0: \\x1b[31mPermission denied)"
            ), "\(pull.stderrText)")
        #expect(!pull.stderrText.contains("\u{1b}"))
        #expect(!FileManager.default.fileExists(atPath: d.output))
    }

    /// A whole stream whose adb exits non-zero is not taken either.
    @Test func aWholeStreamWithAFailedAdbIsNotTaken() throws {
        let d = try Device()
        let pull = try d.pull(stream: Self.stream(), env: ["FAKE_ADB_STATUS": "1", "FAKE_ADB_STDERR": "error: closed"])
        #expect(pull.status == 3, "\(pull.stderrText)")
        #expect(pull.stderrText.contains("(error: closed)"), "\(pull.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: d.output))
    }

    /// An app that has no such cache yet: said, exit 3, nothing created.
    @Test func anAppWithoutTheCacheIsSaidAndNothingIsCreated() throws {
        let d = try Device()
        let pull = try d.run(
            [
                "pull", "--cache-format", "flutter", "--output", d.output, "--package", Self.package, "--adb",
                PushPullTests.adb,
            ])
        #expect(pull.status == 3, "\(pull.stderrText)")
        #expect(
            pull.stderrText.contains("the app has no cache/libCachedImageData in its container"), "\(pull.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: d.output))
        #expect(d.leftInParent.isEmpty)
    }

    /// A flutter app whose cache folder is there but not its database: the pull names the
    /// database and creates nothing (it used to leave half a cache).
    @Test func aFlutterPullWithoutItsDatabaseCreatesNothing() throws {
        let d = try Device()
        let app = d.device + "/data/data/\(Self.package)"
        try FileManager.default.createDirectory(
            atPath: app + "/cache/libCachedImageData", withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: app + "/cache/libCachedImageData/a.png"))
        let pull = try d.run(
            [
                "pull", "--cache-format", "flutter", "--output", d.output, "--package", Self.package, "--adb",
                PushPullTests.adb,
            ])
        #expect(pull.status == 3, "\(pull.stderrText)")
        #expect(pull.stderrText.contains("files/libCachedImageData.db"), "\(pull.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: d.output))
        #expect(d.leftInParent.isEmpty)
    }

    /// An output that is not empty, whose folder is missing, or bounds of 0 are refused with
    /// exit 2 before adb runs; what is there stays as it was.
    @Test func anUnusableOutputOrBoundIsRefusedBeforeAdbRuns() throws {
        let d = try Device()
        try FileManager.default.createDirectory(atPath: d.output, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: d.output + "/notes.txt"))
        let base = ["pull", "--cache-format", "glide", "--package", Self.package, "--adb", PushPullTests.adb]
        let cases: [([String], String)] = [
            (["--output", d.output], "is not an empty folder"),
            (["--output", d.temp.path("missing/pulled")], "does not exist: create it first"),
            (["--output", d.temp.path("out/other"), "--stream-limit", "0"], "--stream-limit 0"),
            (["--output", d.temp.path("out/other"), "--stall-timeout", "0"], "--stall-timeout 0"),
        ]
        for (options, words) in cases {
            let pull = try d.run(base + options)
            #expect(pull.status == 2, "\(options): \(pull.stderrText)")
            #expect(pull.stderrText.contains(words), "\(options): \(pull.stderrText)")
        }
        #expect(d.log.isEmpty, "adb ran: \(d.log)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.output) == ["notes.txt"])
        #expect(!FileManager.default.fileExists(atPath: d.temp.path("missing")))
        #expect(!FileManager.default.fileExists(atPath: d.temp.path("out/other")))
    }

    /// Option values that would run on the device's shell are refused by their grammar, exit 2,
    /// before adb runs; nothing is created on the device.
    @Test(arguments: [
        ["--package", "com.ex.app;touch PWNED;true"], ["--package", "com.example.app'$(touch PWNED)'"],
        ["--user", "10;touch PWNED"], ["--user", "-1"], ["--serial", "-s"], ["--serial", "emulator 5554"],
        ["--namespace", "../.."], ["--package", "app"],
    ])
    func aHostileOptionValueIsRefusedBeforeAdbRuns(option: [String]) throws {
        let d = try Device()
        var arguments = ["pull", "--cache-format", "glide", "--output", d.output, "--adb", PushPullTests.adb] + option
        if option[0] != "--package" { arguments += ["--package", Self.package] }
        let pull = try d.run(arguments)
        #expect(pull.status == 2, "\(option): \(pull.stderrText)")
        #expect(pull.stderrText.contains(option[0]), "\(option): \(pull.stderrText)")
        #expect(d.log.isEmpty, "\(option): adb ran: \(d.log)")
        #expect(!FileManager.default.fileExists(atPath: d.device + "/PWNED"))
        #expect(!FileManager.default.fileExists(atPath: d.output))
    }

    /// The second wall: words that passed no grammar (the engine called directly, the app
    /// installed under such a name) still reach the device's shell as one word each, in every
    /// command of a pull: nothing the words say is run.
    @Test func everyWordForTheDevicesShellIsQuoted() throws {
        let d = try Device()
        let package = "com.example.app'$(touch PWNED1)';touch PWNED2;'"
        let app = d.device + "/data/data/" + package + "/" + Self.folder
        try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
        try Data("libcore.io.DiskLruCache\n".utf8).write(to: URL(fileURLWithPath: app + "/journal"))
        var device = AndroidDevice(
            adb: PushPullTests.adb, serial: nil, userWords: ["--user", "0;touch PWNED3"], package: package,
            scratchFolder: d.temp.path)
        device.root = false
        setenv("FAKE_ADB_DEVICE", d.device, 1)
        defer { unsetenv("FAKE_ADB_DEVICE") }
        try device.check()
        try device.stopApp()
        let folder = try PullJob(
            format: try #require(CacheFormats.named("glide")), namespace: nil, device: device, output: d.output
        ).run()
        #expect(FileManager.default.fileExists(atPath: folder + "/journal"))
        let made = try #require(FileManager.default.enumerator(atPath: d.device)).compactMap { $0 as? String }
            .filter { $0.contains("PWNED") && !$0.hasPrefix("data/data/com.example.app'") }
        #expect(made.isEmpty, "the device's shell ran a word: \(made)")
        #expect(d.log.contains("pm path --user '0;touch PWNED3'"), "\(d.log)")
    }

    /// SIGTERM during a pull ends adb (and what it started), removes the staging folder and
    /// exits 143; the output is not created.
    @Test func aSignalDuringAPullEndsAdbAndLeavesNothing() throws {
        let d = try Device()
        let run = try BackgroundProcess(
            CLI.binary,
            [
                "pull", "--cache-format", "glide", "--output", d.output, "--package", Self.package, "--adb",
                PushPullTests.adb,
            ],
            environment: CLI.environment(
                home: d.temp.path, extra: ["FAKE_ADB_DEVICE": d.device, "FAKE_ADB_STALL": "1"]),
            folder: d.temp.url)
        let pidFile = d.device + "/.adb-exec-out-pid"
        #expect(eventually { FileManager.default.fileExists(atPath: pidFile) && d.leftInParent.count == 1 })
        let adb = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8)))
        #expect(eventually { run.isWaitingInPoll })
        run.signal(SIGTERM)
        let end = run.wait(timeout: 20)
        #expect(end.status == 143, "\(run.stderr)")
        #expect(run.stderr.contains("stopped by SIGTERM"), "\(run.stderr)")
        #expect(kill(adb, 0) != 0, "adb (\(adb)) still runs")
        #expect(!FileManager.default.fileExists(atPath: d.output))
        #expect(d.leftInParent.isEmpty, "\(d.leftInParent)")
    }

    /// SIGTERM while push copies ends adb, removes the private scratch folder, exits 143, and
    /// leaves the app's cache as it was.
    @Test func aSignalDuringAPushEndsAdbAndRemovesTheScratch() throws {
        let setup = try PushPullTests.Setup(try #require(CacheFormats.named("glide")))
        let scratch = setup.s.h.temp.path("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let before = try setup.appFiles()
        let run = try BackgroundProcess(
            CLI.binary, ["push", "--package", PushPullTests.package, "--adb", PushPullTests.adb] + setup.s.options,
            environment: CLI.environment(
                home: setup.s.h.temp.path,
                extra: ["FAKE_ADB_DEVICE": setup.device, "FAKE_ADB_HANG_IN": "1", "TMPDIR": scratch]),
            folder: setup.s.h.temp.url)
        let pidFile = setup.device + "/.adb-exec-in-pid"
        #expect(eventually { FileManager.default.fileExists(atPath: pidFile) })
        let adb = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8)))
        run.signal(SIGTERM)
        let end = run.wait(timeout: 20)
        #expect(end.status == 143, "\(run.stderr)")
        #expect(run.stderr.contains("stopped by SIGTERM"), "\(run.stderr)")
        #expect(kill(adb, 0) != 0, "adb (\(adb)) still runs")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)
        #expect(try setup.appFiles() == before)
    }

    /// SIGTERM while pack waits for the cache lock removes its partial archive and exits 143.
    @Test func aSignalDuringAPackRemovesThePartialArchive() throws {
        let s = try FormatContractTests.Prefetched(try #require(CacheFormats.named("glide")))
        let output = s.h.temp.path("packed/seed.tar")
        try FileManager.default.createDirectory(atPath: s.h.temp.path("packed"), withIntermediateDirectories: true)
        let lock = try CacheLock(location: s.location)
        try lock.lockShared(timeout: 1)
        defer { lock.unlock() }
        let run = try BackgroundProcess(
            CLI.binary, ["pack", "--platform", "android", "--output", output, "--lock-timeout", "60"] + s.options,
            environment: CLI.environment(home: s.h.temp.path), folder: s.h.temp.url)
        let partial = { (try? FileManager.default.contentsOfDirectory(atPath: s.h.temp.path("packed"))) ?? [] }
        #expect(eventually { partial().contains { $0.hasPrefix("seed.tar.tmp-") } })
        run.signal(SIGTERM)
        let end = run.wait(timeout: 20)
        #expect(end.status == 143, "\(run.stderr)")
        #expect(run.stderr.contains("stopped by SIGTERM"), "\(run.stderr)")
        #expect(partial().isEmpty, "\(partial())")
    }

    /// A FIFO or a device node in the folder fails the pack (exit 3, naming it) without being
    /// opened or waited on; the lock is released (a second pack can take it).
    @Test(arguments: ["fifo", "device"])
    func aSpecialFileInTheFolderFailsThePack(kind: String) throws {
        let s = try FormatContractTests.Prefetched(try #require(CacheFormats.named("glide")))
        let special = s.location.folder + "/special.0"
        if kind == "fifo" {
            #expect(mkfifo(special, 0o600) == 0)
        } else if mknod(special, S_IFCHR | 0o600, dev_t(1 << 8 | 3)) != 0 {
            return  // not root: no device node can be made here
        }
        let run = try CLI.run(
            ["pack", "--platform", "android", "--output", s.h.temp.path("seed.tar"), "--lock-timeout", "5"] + s.options,
            home: s.h.temp.path, timeout: 30)
        #expect(run.status == 3, "\(kind): \(run.stderrText)")
        #expect(run.stderrText.contains("special.0 is neither a file nor a folder"), "\(kind): \(run.stderrText)")
        let lock = try CacheLock(location: s.location)
        #expect(throws: Never.self) { try lock.lockExclusive(timeout: 1) }
        lock.unlock()
    }

    /// push and pull are Android's: no silent default, no iOS format; pack refuses a format of the
    /// other platform. Each exits 2 naming what to use, before adb or the cache is touched.
    @Test func aFormatOfTheOtherPlatformIsRefused() throws {
        let s = try FormatContractTests.Prefetched(try #require(CacheFormats.named("glide")))
        let kingfisher = try FormatContractTests.Prefetched(try #require(CacheFormats.named("kingfisher")))
        let d = try Device()
        let device = ["--package", Self.package, "--adb", PushPullTests.adb]
        let cases: [([String], [String])] = [
            (["push", "--cache-dir", s.h.temp.path("caches")] + device, ["push needs --cache-format", "glide, coil"]),
            (
                ["push"] + kingfisher.options + device,
                ["push is for Android apps", "kingfisher is a cache of iOS apps"]
            ),
            (["pull", "--output", d.output] + device, ["pull needs --cache-format", "glide"]),
            (
                ["pull", "--cache-format", "sdwebimage", "--output", d.output] + device,
                ["sdwebimage is a cache of iOS apps"]
            ),
            (
                ["pack", "--platform", "android", "--output", d.temp.path("k.tar")] + kingfisher.options,
                ["kingfisher is a cache of ios apps, not android"]
            ),
            (
                ["pack", "--platform", "ios", "--output", d.temp.path("g.tar")] + s.options,
                ["glide is a cache of android apps, not ios"]
            ),
        ]
        for (arguments, words) in cases {
            let run = try d.run(arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderrText)")
            for word in words { #expect(run.stderrText.contains(word), "\(arguments): \(run.stderrText)") }
        }
        #expect(d.log.isEmpty, "adb ran: \(d.log)")
        #expect(!FileManager.default.fileExists(atPath: d.temp.path("k.tar")))
    }

    /// push checks the local cache before the device: a misspelled --cache-dir is named as such.
    @Test func pushChecksTheLocalCacheFirst() throws {
        let d = try Device()
        let push = try d.run(
            [
                "push", "--cache-format", "glide", "--cache-dir", d.temp.path("no-such"), "--package", Self.package,
                "--adb", PushPullTests.adb,
            ], env: ["FAKE_ADB_NO_DEVICE": "1"])
        #expect(push.status == 3, "\(push.stderrText)")
        #expect(push.stderrText.contains("there is no cache folder at"), "\(push.stderrText)")
        #expect(!push.stderrText.contains("adb lists no device"), "\(push.stderrText)")
        #expect(d.log.isEmpty, "adb ran: \(d.log)")
    }

    /// push's archive is written into a private folder (0700) as a new file (0600), never
    /// through a link planted at the name it used to have (`$TMPDIR/imgwarm-push-<pid>.tar`,
    /// the pid known to a `sh` that execs imgwarm), and the scratch is gone afterwards.
    @Test(arguments: [false, true])
    func pushsArchiveIsPrivateAndFollowsNoLink(noExecIn: Bool) throws {
        let setup = try PushPullTests.Setup(try #require(CacheFormats.named("glide")))
        let scratch = setup.s.h.temp.path("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let victim = setup.s.h.temp.path("victim")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let arguments = ["push", "--package", PushPullTests.package, "--adb", PushPullTests.adb] + setup.s.options
        let script = "ln -s \"$VICTIM\" \"$TMPDIR/imgwarm-push-$$.tar\"; exec \"$@\""
        var env = CLI.environment(
            home: setup.s.h.temp.path, extra: ["FAKE_ADB_DEVICE": setup.device, "TMPDIR": scratch, "VICTIM": victim])
        if noExecIn { env["FAKE_ADB_NO_EXEC_IN"] = "1" }
        let push = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", script, "sh", CLI.binary.path] + arguments, environment: env,
            timeout: 60)
        #expect(push.status == 0, "\(push.stderrText)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(setup.log.contains("mode 600, folder mode 700"), "\(setup.log)")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch)
        #expect(
            left.allSatisfy { $0.hasSuffix(".tar") && $0.contains("imgwarm-push-") && !$0.contains("XXXX") }, "\(left)")
        #expect(left.count == 1, "only the planted link is left: \(left)")
    }

    /// pack's partial archive is a new file with a random name: a link planted at
    /// `<output>.tmp-<pid>` is never written through.
    @Test func packsPartialArchiveFollowsNoLink() throws {
        let s = try FormatContractTests.Prefetched(try #require(CacheFormats.named("glide")))
        let victim = s.h.temp.path("victim")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let output = s.h.temp.path("seed.tar")
        let script = "ln -s \"$VICTIM\" \"$OUT.tmp-$$\"; exec \"$@\""
        let run = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", script, "sh", CLI.binary.path, "pack", "--platform", "android", "--output", output] + s.options,
            environment: CLI.environment(home: s.h.temp.path, extra: ["VICTIM": victim, "OUT": output]), timeout: 60)
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(FileManager.default.fileExists(atPath: output))
    }
}
