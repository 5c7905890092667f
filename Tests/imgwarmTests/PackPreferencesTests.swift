import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `pack --bundle-id` (docs/pack.md, docs/cache-formats.md "PINRemoteImage"): on iOS, for a format
/// whose library reads the app's preferences, the archive also holds the app's preferences file
/// with the key the library checks at launch; Python's plistlib reads it back.
@Suite struct PackPreferencesTests {
    /// The members of `archive` (Python's tarfile lists them) and the preferences file's values.
    static func read(_ archive: String, preferences: String) throws -> (names: [String], values: String) {
        let script = """
            import sys, tarfile, plistlib, json
            t = tarfile.open(sys.argv[1])
            names = t.getnames()
            print(json.dumps(names))
            print(json.dumps(plistlib.loads(t.extractfile(sys.argv[2]).read()) if sys.argv[2] in names else None))
            """
        let run = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, archive, preferences], stdin: nil)
        let lines = run.stdoutText.split(separator: "\n").map(String.init)
        #expect(run.status == 0 && lines.count == 2, "\(run.stderrText)")
        let names = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String] ?? []
        return (names, lines.count > 1 ? lines[1] : "")
    }

    @Test func theArchiveHoldsTheVersionKeyOnlyWhenABundleIDIsGiven() throws {
        let s = try FormatContractTests.Prefetched(try #require(CacheFormats.named("pinremoteimage")))
        let plist = "Library/Preferences/com.example.app.plist"
        let with = s.h.temp.path("with.tar")
        let run = try s.h.run(
            ["pack", "--platform", "ios", "--bundle-id", "com.example.app", "--output", with] + s.options)
        #expect(run.status == 0, "\(run.stderr)")
        let packed = try Self.read(with, preferences: plist)
        #expect(packed.names.contains(plist))
        #expect(packed.values == #"{"kPINRemoteImageDiskCacheVersionKey": 1}"#, "\(packed.values)")
        #expect(
            packed.names.contains {
                $0.hasPrefix("Library/Caches/com.pinterest.PINDiskCache.PINRemoteImageManagerCache/")
            })

        let without = s.h.temp.path("without.tar")
        #expect(try s.h.run(["pack", "--platform", "ios", "--output", without] + s.options).status == 0)
        #expect(!(try Self.read(without, preferences: plist).names.contains { $0.hasPrefix("Library/Preferences") }))
    }

    /// The option is refused (exit 2, nothing written) where it has no meaning: Android, a format
    /// whose library reads no preference, a value that is no bundle identifier.
    @Test func theOptionIsRefusedWhereItMeansNothing() throws {
        let s = try FormatContractTests.Prefetched(try #require(CacheFormats.named("pinremoteimage")))
        let output = s.h.temp.path("seed.tar")
        let cases: [([String], String)] = [
            (["--platform", "android", "--bundle-id", "com.example.app"], "--bundle-id is for --platform ios"),
            (["--platform", "ios", "--bundle-id", "../x"], "is not a bundle identifier"),
            (["--platform", "ios", "--bundle-id", "a/b"], "is not a bundle identifier"),
        ]
        for (arguments, message) in cases {
            let run = try s.h.run(["pack", "--output", output] + arguments + s.options)
            #expect(run.status == 2 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        let other = try FormatContractTests.Prefetched(try #require(CacheFormats.named("sdwebimage")))
        let run = try other.h.run(
            ["pack", "--platform", "ios", "--bundle-id", "com.example.app", "--output", output] + other.options)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("--bundle-id applies to pinremoteimage only"), "\(run.stderr)")
    }
}
