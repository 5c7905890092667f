import Foundation
import TestSupport
import Testing

/// `--cache-format pinremoteimage` end to end, with the real binary and the loopback server
/// (docs/cache-formats.md, "PINRemoteImage"). The reader model, from `PINDiskCache.m`: the file
/// at the encoded key's name is read if it exists, and the read sets its modification date.
@Suite struct PINRemoteImageTests {
    static let folderName = "com.pinterest.PINDiskCache.PINRemoteImageManagerCache"

    /// PINDiskCache's default key encoder, written again here from its source: `.`, `:`, `/`, `%`
    /// and every UTF-8 byte of 0x80 and above become `%XX`, every other byte stays (keys here are
    /// short: no MD5).
    static func name(_ key: String) -> String {
        key.utf8.map { byte in
            byte >= 0x80 || ".:/%".utf8.contains(byte)
                ? String(format: "%%%02X", byte) : String(UnicodeScalar(byte))
        }.joined()
    }

    static func allocated(_ path: String) -> UInt64 {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt64(info.st_blocks) * 512 : 0
    }

    func keys(_ h: PrefetchHarness) -> [String] {
        [h.url("/img/photo.jpg"), h.url("/img/gradient.png?w=300&h=200"), h.url("/img/anim.gif")]
    }

    @Test func storesTheRawBytesUnderEncodedNamesAndAHitSetsTheModificationDate() throws {
        let h = try PrefetchHarness()
        let root = FormatPrefetchTests.Root(h: h)
        let keys = keys(h)
        let run = try root.prefetch(keys, ["--cache-format", "pinremoteimage"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.report["cacheFormat"] as? String == "pinremoteimage")
        #expect(try FormatPrefetchTests.schema("prefetch-report").validate(run.report) == [])
        let folder = root.folder(Self.folderName)
        let names = keys.map(Self.name)
        #expect(Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []) == Set(names))
        for (index, key) in keys.enumerated() {
            #expect(try run.entry(line: index + 1)["fileName"] as? String == names[index])
            let file = URL(string: key)!.lastPathComponent
            #expect(
                FileManager.default.contents(atPath: folder + "/" + names[index]).map([UInt8].init)
                    == h.routes.valid[file])
        }

        let path = folder + "/" + names[0]
        let yesterday = Date().timeIntervalSince1970.rounded(.down) - 86400
        try FormatPrefetchTests.setTimes(path, access: yesterday - 60, modification: yesterday)
        let before = Date().timeIntervalSince1970.rounded(.down)
        let again = try root.prefetch([keys[0]], ["--cache-format", "pinremoteimage"])
        #expect(again.status == 0)
        #expect(try again.entry(line: 1)["outcome"] as? String == "cached")
        let times = try #require(ReaderModel.times(path))
        #expect(times.modification >= before, "the hit set the modification date, the last use")
        #expect(h.server.requestCount("/img/photo.jpg") == 1)
    }

    /// The app trims itself above 50 MiB (so `clean` with no options removes nothing of a small
    /// cache), least recently used first, down to at most the limit.
    @Test func cleanIsTheByteLimitTrimByModificationDate() throws {
        let h = try PrefetchHarness()
        let root = FormatPrefetchTests.Root(h: h)
        let keys = keys(h)
        #expect(try root.prefetch(keys, ["--cache-format", "pinremoteimage"]).status == 0)
        let folder = root.folder(Self.folderName)
        let paths = keys.map { folder + "/" + Self.name($0) }
        let now = Date().timeIntervalSince1970.rounded(.down)
        // Least recently used: paths[1], then paths[0], then paths[2].
        for (path, age) in zip(paths, [200.0, 300.0, 100.0]) {
            try FormatPrefetchTests.setTimes(path, access: now, modification: now - age)
        }
        let untouched = try root.run(["clean", "--cache-format", "pinremoteimage"])
        #expect(untouched.status == 0, "\(untouched.stderr)")
        #expect(paths.allSatisfy { FileManager.default.fileExists(atPath: $0) })

        let limit = Self.allocated(paths[0]) + Self.allocated(paths[2])
        let trimmed = try root.run(["clean", "--cache-format", "pinremoteimage", "--max-size", "\(limit)"])
        #expect(trimmed.status == 0, "\(trimmed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: paths[1]), "the least recently used went")
        #expect(FileManager.default.fileExists(atPath: paths[0]) && FileManager.default.fileExists(atPath: paths[2]))

        let refused = try root.run(["clean", "--cache-format", "pinremoteimage", "--max-age", "30d"])
        #expect(refused.status == 2, "no age pass by default: \(refused.stderr)")
    }

    /// The first-launch trap is said by verify, under --quiet too; the folder's entries hit.
    @Test func verifySaysTheFirstLaunchTrap() throws {
        let h = try PrefetchHarness()
        let root = FormatPrefetchTests.Root(h: h)
        let keys = keys(h)
        #expect(try root.prefetch(keys, ["--cache-format", "pinremoteimage"]).status == 0)
        let list = try h.temp.write("verify.txt", Data((keys.joined(separator: "\n") + "\n").utf8))
        for quiet in [false, true] {
            let verify = try root.run(
                ["verify", "--cache-format", "pinremoteimage", list] + (quiet ? ["--quiet"] : []))
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stderr.contains("kPINRemoteImageDiskCacheVersionKey = 1"), "\(verify.stderr)")
            #expect(verify.stderr.contains("deletes this folder when the app launches"))
        }
        let other = try root.run(["verify", "--cache-format", "nuke", list])
        #expect(!other.stderr.contains("kPINRemoteImageDiskCacheVersionKey"))
    }

    /// Keys outside ASCII (a JSON Lines `"key"`: a processor's, an app's own) are named as
    /// PINDiskCache names them, every UTF-8 byte percent-encoded (issue 47): prefetch stores them
    /// there, verify finds them, path names them.
    @Test func nonASCIIKeysAreNamedAsPINDiskCacheNamesThem() throws {
        let h = try PrefetchHarness()
        let root = FormatPrefetchTests.Root(h: h)
        let keys = ["https://\u{4F8B}\u{3048}.jp/\u{732B}.png", "https://example.com/caf\u{E9} \u{1F600}.gif"]
        let lines = zip([h.url("/img/photo.jpg"), h.url("/img/anim.gif")], keys).map { url, key in
            "{\"url\": \"\(url)\", \"key\": \"\(key)\"}"
        }
        let run = try root.prefetch(lines, ["--cache-format", "pinremoteimage"], list: "keys.jsonl")
        #expect(run.status == 0, "\(run.stderr)")
        let folder = root.folder(Self.folderName)
        let names = keys.map(Self.name)
        #expect(names.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } })
        #expect(Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []) == Set(names))
        let verify = try root.run(["verify", "--json", "--cache-format", "pinremoteimage", h.temp.path("keys.jsonl")])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(try verify.entries.map { $0["fileName"] as? String } == names)
        let path = try root.run(["path", "--name-only", "--cache-format", "pinremoteimage", keys[0]])
        #expect(path.result.stdoutText == names[0] + "\n")
    }

    /// A key of at most 200 UTF-16 units whose encoded name passes 255 bytes is one PINDiskCache
    /// cannot write: refused before any request as an invalid line with the reason (never
    /// blacklisted), and verify and path say the same; the other lines go on.
    @Test func aNameTooLongForTheFileSystemIsRefusedBeforeAnyRequest() throws {
        let h = try PrefetchHarness()
        let root = FormatPrefetchTests.Root(h: h)
        let long = h.url("/img/photo.jpg?p=" + String(repeating: ".", count: 120))
        #expect(long.utf16.count <= 200 && Self.name(long).utf8.count > 255)
        let keys = [h.url("/img/anim.gif"), long]
        let run = try root.prefetch(keys, ["--cache-format", "pinremoteimage"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded")
        let refused = try run.entry(line: 2)
        #expect(refused["outcome"] as? String == "invalid", "\(refused)")
        let message = refused["errorMessage"] as? String ?? ""
        #expect(message.contains("more than the 255 a file name may have"), "\(message)")
        #expect(h.server.requestCount("/img/photo.jpg") == 0, "nothing was requested for it")
        let folder = root.folder(Self.folderName)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder)) == [Self.name(keys[0])])
        let blacklist = try root.run(["blacklist", "list", "--cache-format", "pinremoteimage"])
        #expect(blacklist.status == 0, "\(blacklist.stderr)")
        #expect(!blacklist.result.stdoutText.contains("photo.jpg"), "\(blacklist.result.stdoutText)")
        let again = try root.prefetch(keys, ["--cache-format", "pinremoteimage"])
        #expect(try again.entry(line: 2)["outcome"] as? String == "invalid")
        #expect(h.server.requestCount("/img/photo.jpg") == 0, "nor on the next run")

        let verify = try root.run(["verify", "--json", "--cache-format", "pinremoteimage", h.temp.path("list.txt")])
        #expect(verify.status == 1)
        let invalid = try verify.report["invalid"] as? [[String: Any]] ?? []
        #expect(invalid.count == 1 && invalid.first?["line"] as? Int == 2, "\(invalid)")
        #expect((invalid.first?["message"] as? String)?.contains("more than the 255 a file name may have") == true)
        #expect(try verify.entries.count == 1)
        let path = try root.run(["path", "--cache-format", "pinremoteimage", long])
        #expect(path.status == 1 && path.result.stdoutText.isEmpty)
        #expect(path.stderr.contains("invalid: PINDiskCache's file name for this key"), "\(path.stderr)")
    }
}
