import Foundation
import ImgwarmKit
import ImgwarmSystem
import TestSupport
import Testing

/// `pack --cache-format a,b` (issue 54): one archive of every format's folder, each where its
/// library keeps it, regular files and folders only, one manifest listing them all; formats of
/// the other platform refused, naming them; every cache's lock taken in one order.
@Suite struct SeveralFormatsPackTests {
    /// `formats`' folders under one caches root, each filled by a prefetch of the fixture images.
    struct Seeded {
        let h: PrefetchHarness
        let root: String
        let list: String
        let locations: [CacheLocation]

        init(_ names: [String]) throws {
            h = try PrefetchHarness()
            root = h.temp.path("caches")
            let urls = FormatContractTests.paths.map(h.url)
            list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
            var locations: [CacheLocation] = []
            for name in names {
                let run = try h.run(["prefetch", "--cache-format", name, "--cache-dir", root, "--quiet", list])
                #expect(run.status == 0, "\(name): \(run.stderr)")
                locations.append(try CacheLocation(root: root, format: try #require(CacheFormats.named(name))))
            }
            self.locations = locations
        }

        func pack(_ formats: String, _ options: [String]) throws -> PrefetchHarness.Run {
            try h.run(["pack", "--cache-format", formats, "--cache-dir", root] + options)
        }
    }

    /// The archive of sdwebimage and kingfisher for iOS holds both folders, as packs of each alone
    /// place them, and nothing but files and folders; it extracts to caches verify finds whole.
    @Test func oneArchiveHoldsEveryFormatsFolder() throws {
        let s = try Seeded(["sdwebimage", "kingfisher"])
        let output = s.h.temp.path("seed.tar")
        var alone = ""
        var expected: [String: PackTests.File] = [:]
        for location in s.locations {
            let run = try s.pack(location.format.name, ["--platform", "ios", "--output", output])
            #expect(run.status == 0, "\(run.stderr)")
            alone += run.stderr
            expected.merge(try PackTests.tree(location.folder, as: try location.containerPath(on: .ios))) { a, _ in a }
        }
        let manifest = s.h.temp.path("manifest.json")
        let run = try s.pack(
            "sdwebimage,kingfisher", ["--platform", "ios", "--output", output, "--manifest", manifest])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == alone, "one line a cache, as a pack of it alone says it: \(run.stderr)")
        let archive = try Data(contentsOf: URL(fileURLWithPath: output))
        let again = try s.pack("sdwebimage,kingfisher", ["--platform", "ios", "--output", s.h.temp.path("again.tar")])
        #expect(again.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.h.temp.path("again.tar"))) == archive)

        // Every member is a regular file or a folder (GNU tar's listing: `-` or `d`).
        let listing = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/tar"), ["-t", "-v", "-f", output])
        #expect(listing.status == 0)
        let types = Set(listing.stdoutText.split(separator: "\n").compactMap(\.first))
        #expect(types.isSubset(of: ["-", "d"]) && types.contains("-"), "\(listing.stdoutText)")

        let target = s.h.temp.path("container")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let extract = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/tar"), ["-x", "-f", output, "-C", target])
        #expect(extract.status == 0, "\(extract.stderrText)")
        var extracted = try PackTests.tree(target, as: "")
        #expect(
            extracted.removeValue(forKey: PackJob.manifestName)?.bytes
                == (try Data(contentsOf: URL(fileURLWithPath: manifest))))
        #expect(Set(extracted.keys) == Set(expected.keys))
        for (path, file) in expected {
            #expect(extracted[path]?.bytes == file.bytes, "\(path)")
            #expect(extracted[path]?.modified == file.modified, "\(path)")
        }

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any])
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/pack-manifest.schema.json"))
        #expect(schema.validate(json) == [])
        #expect(json["format"] as? String == "sdwebimage")
        let caches = try #require(json["caches"] as? [[String: Any]])
        #expect(caches.map { $0["format"] as? String } == ["sdwebimage", "kingfisher"])
        #expect(caches.map { $0["folder"] as? String } == (try s.locations.map { try $0.containerPath(on: .ios) }))
        #expect((json["files"] as? [Any])?.count == expected.count)
        #expect(
            (json["files"] as? [[String: Any]])?.compactMap { $0["key"] }.count == 2 * FormatContractTests.paths.count)

        let verify = try s.h.run([
            "verify", "--cache-format", "sdwebimage,kingfisher", "--cache-dir", target + "/Library/Caches", s.list,
        ])
        #expect(verify.status == 0, "\(verify.stderr)")
    }

    /// A format of the other platform is refused before anything is read, naming it; --bundle-id
    /// applies to the formats that take it, and is refused only when none does.
    @Test func theOtherPlatformsFormatIsRefusedAndTheBundleIDGoesWhereItApplies() throws {
        let s = try Seeded(["sdwebimage", "pinremoteimage"])
        let output = s.h.temp.path("seed.tar")
        let glide = try s.pack("sdwebimage,glide", ["--platform", "ios", "--output", output])
        #expect(glide.status == 2)
        #expect(glide.stderr.contains("imgwarm: glide is a cache of android apps, not ios: "), "\(glide.stderr)")
        let android = try s.pack("glide,sdwebimage", ["--platform", "android", "--output", output])
        #expect(android.status == 2)
        #expect(
            android.stderr.contains("imgwarm: sdwebimage is a cache of ios apps, not android: "), "\(android.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))

        let none = try s.pack("sdwebimage,kingfisher", ["--platform", "ios", "--output", output, "--bundle-id", "a.b"])
        #expect(none.status == 2)
        #expect(
            none.stderr.contains(
                "--bundle-id applies to pinremoteimage only: the libraries of sdwebimage, kingfisher read nothing"),
            "\(none.stderr)")
        let pin = try s.pack(
            "sdwebimage,pinremoteimage", ["--platform", "ios", "--output", output, "--bundle-id", "com.example.app"])
        #expect(pin.status == 0, "\(pin.stderr)")
        let listing = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/tar"), ["-t", "-f", output])
        let names = listing.stdoutText.split(separator: "\n").map(String.init)
        #expect(names.contains("Library/Preferences/com.example.app.plist"), "\(names)")
        #expect(names.contains { $0.hasPrefix("Library/Caches/com.hackemist.SDImageCache/default/") })
    }

    /// The locks are taken in the order of their paths, whatever the order given: while the
    /// first is held elsewhere, a pack waits for it holding none (the second is free), and gives
    /// up after --lock-timeout naming it.
    @Test func theLocksAreTakenInOneOrder() throws {
        let s = try Seeded(["sdwebimage", "kingfisher"])
        let locks = try s.locations.map { try CacheLock(location: $0) }
        let byPath = s.locations.indices.sorted { locks[$0].path.utf8.lexicographicallyPrecedes(locks[$1].path.utf8) }
        let (first, second) = (locks[byPath[0]], locks[byPath[1]])
        // The list names the second lock's format first.
        let formats = [byPath[1], byPath[0]].map { s.locations[$0].format.name }.joined(separator: ",")
        try first.lockExclusive(timeout: 1)
        let output = s.h.temp.path("seed.tar")
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var run: PrefetchHarness.Run?
        nonisolated(unsafe) let seeded = s
        DispatchQueue.global().async {
            run = try? seeded.pack(formats, ["--platform", "ios", "--output", output, "--lock-timeout", "3"])
            done.signal()
        }
        usleep(500_000)
        var secondWasFree = false
        do {
            try second.lockExclusive(timeout: 0.1)
            secondWasFree = true
            second.unlock()
        } catch {}
        #expect(secondWasFree, "the pack held \(second.path) while it waited for \(first.path)")
        done.wait()
        first.unlock()
        let result = try #require(run)
        #expect(result.status == 3)
        #expect(result.stderr.contains("the cache lock \(first.path) is held"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        // Released: both locks can be taken at once.
        try second.lockExclusive(timeout: 0.1)
        second.unlock()
    }
}
