import Foundation
import ImgwarmKit
import ImgwarmSystem
import TestSupport
import Testing

/// `imgwarm pack` (docs/pack.md), on every format of `CacheFormats.all` filled by a real prefetch
/// from the loopback server: the archive extracted by GNU tar, Python's tarfile and busybox tar
/// gives the same names, bytes and modification times; two packs are the same bytes; the
/// extracted tree, read by `imgwarm verify`, is all hits; packing changes nothing.
@Suite struct PackTests {
    /// A file as the tests compare it: its bytes and times.
    struct File: Equatable {
        var bytes: Data
        var modified: Timestamp
        var accessed: Timestamp
    }

    /// What `s`'s cache should extract to, by path in the container: the folder's files under its
    /// container path, and the format's outside files under theirs.
    static func expected(_ s: FormatContractTests.Prefetched, platform: AppContainer.Platform) throws -> [String: File]
    {
        let base = try s.location.containerPath(on: platform)
        var files = try tree(s.location.folder, as: base)
        for outside in (s.location.format as? any OutsideFilesFormat)?.outsideFiles(of: s.location) ?? [] {
            files[AppContainer.path(of: outside.folder, on: platform) + "/" + outside.name] = try file(outside.path)
        }
        return files
    }

    /// `path`'s bytes and times, read without moving its access time (the check that packing
    /// changes nothing compares them).
    static func file(_ path: String) throws -> File {
        let info = try FileSystem.status(ofPath: path, followingLinks: false)
        let (parent, name) = ((path as NSString).deletingLastPathComponent, (path as NSString).lastPathComponent)
        let folder = try FileDescriptor.openFolder(parent)
        defer { folder.close() }
        let opened = try folder.openForReadingUntouched(name)
        defer {
            if let time = opened.restoreAccessTime { try? opened.file.setAccessTime(time) }
            opened.file.close()
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.size) + 1)
        var count = 0
        while true {
            let read = try opened.file.read(into: &bytes, from: count)
            if read == 0 || count + read == bytes.count {
                count += read
                break
            }
            count += read
        }
        return File(bytes: Data(bytes[0..<count]), modified: info.modified, accessed: info.accessed)
    }

    /// Every regular file below `folder`, by its path below it prefixed with `base`.
    static func tree(_ folder: String, as base: String) throws -> [String: File] {
        var files: [String: File] = [:]
        for relative in FileManager.default.subpaths(atPath: folder) ?? [] {
            let path = folder + "/" + relative
            guard try FileSystem.status(ofPath: path, followingLinks: false).kind == .file else { continue }
            files[(base.isEmpty ? "" : base + "/") + relative] = try file(path)
        }
        return files
    }

    /// Runs `pack` on `s`'s cache into `name` (in its temporary folder) and returns its bytes.
    static func pack(_ s: FormatContractTests.Prefetched, _ platform: AppContainer.Platform, into name: String)
        throws -> Data
    {
        let path = s.h.temp.path(name)
        let run = try s.h.run(["pack", "--platform", platform.rawValue, "--output", path] + s.options)
        #expect(run.status == 0, "\(s.location.format.name): \(run.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// The extractors, each with the precision of the modification times it restores (GNU tar
    /// reads the pax `mtime` to the nanosecond; Python keeps it as a float, to about 0.25 µs at
    /// today's dates; busybox reads only the ustar header's whole seconds).
    static let extractors: [(name: String, command: @Sendable (String, String) -> [String], nanoseconds: Int64)] = [
        ("GNU tar", { ["/usr/bin/tar", "-x", "-f", $0, "-C", $1] }, 0),
        (
            "Python tarfile",
            {
                [
                    "/usr/bin/python3", "-c", "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])",
                    $0, $1,
                ]
            },
            1000
        ),
        ("busybox tar", { ["/usr/bin/busybox", "tar", "-x", "-f", $0, "-C", $1] }, 1_000_000_000),
    ]

    /// Every format, on each platform whose apps use it (the registry's `platforms`).
    static func arguments() -> [(String, String)] {
        CacheFormats.all.flatMap { format in
            AppContainer.Platform.allCases.filter(format.platforms.contains).map { (format.name, $0.rawValue) }
        }
    }

    @Test(arguments: arguments())
    func theArchiveExtractsToTheCacheAndVerifiesAllHits(name: String, platformName: String) throws {
        let format = try #require(CacheFormats.named(name))
        let platform = try #require(AppContainer.Platform(rawValue: platformName))
        let s = try FormatContractTests.Prefetched(format)
        let before = try Self.expected(s, platform: platform)
        #expect(before.count >= 2, "\(name): \(before.keys.sorted())")
        let first = try Self.pack(s, platform, into: "first.tar")
        let second = try Self.pack(s, platform, into: "second.tar")
        #expect(first == second, "\(name): two packs of one cache differ")
        // Packing changed nothing: every file keeps its bytes and both its times.
        #expect(try Self.expected(s, platform: platform) == before, "\(name): packing changed the cache")

        for extractor in Self.extractors {
            let target = s.h.temp.path("x-\(extractor.name.split(separator: " ")[0])")
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            let command = extractor.command(s.h.temp.path("first.tar"), target)
            let run = try ProcessRunner.run(URL(fileURLWithPath: command[0]), Array(command.dropFirst()))
            #expect(run.status == 0, "\(name), \(extractor.name): \(run.stderrText)")
            var extracted = try Self.tree(target, as: "")
            let manifestFile = extracted.removeValue(forKey: PackJob.manifestName)
            let manifest = try #require(manifestFile, "\(extractor.name)")
            #expect(Set(extracted.keys) == Set(before.keys), "\(name), \(extractor.name)")
            for (path, file) in before {
                guard let got = extracted[path] else { continue }
                #expect(got.bytes == file.bytes, "\(name), \(extractor.name): bytes of \(path)")
                let want = file.modified
                let wanted = extractor.nanoseconds >= 1_000_000_000 ? Timestamp(seconds: want.seconds) : want
                let off =
                    (got.modified.seconds - wanted.seconds) * 1_000_000_000 + got.modified.nanoseconds
                    - wanted.nanoseconds
                #expect(abs(off) <= extractor.nanoseconds, "\(name), \(extractor.name): \(path) \(got.modified)")
            }
            try Self.checkManifest(manifest.bytes, against: before, format: format, keys: s.urls)
            try Self.verifyAllHits(s, extractedInto: target, platform: platform)
        }
    }

    /// The manifest follows its schema and lists every file with its size and times, as pax writes
    /// them, and the key of each prefetched entry.
    static func checkManifest(_ data: Data, against files: [String: File], format: any CacheFormat, keys: [String])
        throws
    {
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let schema = try JSONSchema(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/pack-manifest.schema.json"))
        #expect(schema.validate(json).isEmpty, "\(schema.validate(json))")
        #expect(json["format"] as? String == format.name)
        let listed = try #require(json["files"] as? [[String: Any]])
        #expect(listed.count == files.count)
        // Each prefetched key names one file: the entry its state records.
        #expect(listed.compactMap { $0["key"] as? String }.sorted() == keys.sorted(), "\(format.name)")
        for entry in listed {
            let path = try #require(entry["path"] as? String)
            let file = try #require(files[path], "\(path) is not in the cache")
            #expect(entry["size"] as? Int == file.bytes.count)
            let nanoseconds = String(format: "%09lld", file.modified.nanoseconds)
            #expect(entry["mtime"] as? String == "\(file.modified.seconds).\(nanoseconds)", "\(path)")
        }
    }

    /// `imgwarm verify` pointed at the extracted container finds every key of the list.
    static func verifyAllHits(
        _ s: FormatContractTests.Prefetched, extractedInto target: String, platform: AppContainer.Platform
    ) throws {
        let format = s.location.format
        var options = [
            "--cache-format", format.name, "--cache-dir", target + "/" + AppContainer.path(of: .caches, on: platform),
        ]
        let root = try CacheLocation(root: target + "/" + AppContainer.path(of: .caches, on: platform), format: format)
        if format is any ExternalDatabaseFormat {
            for outside in (format as? any OutsideFilesFormat)?.outsideFiles(of: root) ?? [] {
                options += [
                    "--database",
                    target + "/" + AppContainer.path(of: outside.folder, on: platform) + "/" + outside.name,
                ]
            }
        }
        let verify = try s.h.run(["verify", "--json"] + options + [s.list])
        #expect(verify.status == 0, "\(format.name): \(verify.stderr) \(verify.result.stdoutText)")
        let totals = try verify.report["totals"] as? [String: Any]
        #expect(totals?["hits"] as? Int == s.urls.count, "\(format.name): \(verify.result.stdoutText)")
    }

    /// `--output -` writes the same archive to standard output, and `--manifest` its manifest to a file.
    @Test func outputDashWritesTheArchiveToStandardOutput() throws {
        let s = try FormatContractTests.Prefetched(try #require(CacheFormats.named("glide")))
        let file = try Self.pack(s, .android, into: "file.tar")
        let manifest = s.h.temp.path("manifest.json")
        let run = try s.h.run(["pack", "--platform", "android", "--output", "-", "--manifest", manifest] + s.options)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.result.stdout == file)
        // --manifest writes the archive's first member beside it: its bytes follow its extended
        // header, that header's records (one block) and its ustar header.
        let beside = try Data(contentsOf: URL(fileURLWithPath: manifest))
        #expect(!beside.isEmpty && file.range(of: beside)?.lowerBound == 1536)
    }

    /// pack waits for the cache lock (a prefetch holds it shared around each change) and gives up
    /// after --lock-timeout, writing nothing; a link in the folder is refused.
    @Test func packTakesTheCacheLockAndRefusesALink() throws {
        let s = try FormatContractTests.Prefetched(try #require(CacheFormats.named("sdwebimage")))
        let output = s.h.temp.path("seed.tar")
        let lock = try CacheLock(location: s.location)
        try lock.lockShared(timeout: 1)
        let locked = try s.h.run(
            ["pack", "--platform", "ios", "--output", output, "--lock-timeout", "0.3"] + s.options)
        lock.unlock()
        #expect(locked.status == 3)
        #expect(locked.stderr.contains("the cache lock"), "\(locked.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))

        try FileManager.default.createSymbolicLink(
            atPath: s.location.folder + "/link", withDestinationPath: "/etc/passwd")
        let linked = try s.h.run(["pack", "--platform", "ios", "--output", output] + s.options)
        #expect(linked.status == 3)
        #expect(linked.stderr.contains("/link is neither a file nor a folder"), "\(linked.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A folder that does not exist is refused, naming it; nothing is written.
    @Test func aMissingFolderIsRefused() throws {
        let h = try PrefetchHarness()
        let output = h.temp.path("seed.tar")
        let run = try h.run(["pack", "--platform", "ios", "--cache-dir", h.temp.path("nowhere"), "--output", output])
        #expect(run.status == 3)
        #expect(run.stderr.contains("there is no cache folder at \(h.temp.path("nowhere"))"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A folder named as its library never names its folder cannot be placed in the container.
    @Test func aFolderOfAnotherNameIsRefused() throws {
        let h = try PrefetchHarness()
        try FileManager.default.createDirectory(atPath: h.temp.path("mine"), withIntermediateDirectories: true)
        let run = try h.run([
            "pack", "--platform", "android", "--cache-format", "glide", "--disk-cache-path", h.temp.path("mine"),
            "--output", h.temp.path("seed.tar"),
        ])
        #expect(run.status == 2)
        #expect(
            run.stderr.contains("is not named as its library names its folder (image_manager_disk_cache)"),
            "\(run.stderr)")
    }
}
