import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// A hostile `<key>.0` (issue 47): every count and line of OkHttp's metadata is bounded, so
/// `verify` calls such an entry a `bad-metadata` miss with the reason instead of looping, and
/// `stats`, `clean` and `keys detect` (which never read it) finish on the same folder.
@Suite struct OkHttpMetadataBoundsTests {
    @Test func hostileMetadataIsAMissWithTheReasonEverywhere() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/picasso-cache")
        let urls = ["photo.jpg", "gradient.png", "anim.gif", "sticker.webp"].map { h.url("/max-age/3600/\($0)") }
        let list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let stored = try h.run(["prefetch", "--cache-format", "picasso", "--disk-cache-path", folder, list])
        #expect(stored.status == 0, "\(stored.stderr)")
        let hostile: [String] = [
            urls[0] + "\nGET\n9223372036854775807\n",
            urls[1] + "\nGET\n0\nHTTP/1.1 200 OK\n2147483647\nA: b\n",
            urls[2] + "\nGET\n0\nHTTP/1.1 200 OK\n1\nX: " + String(repeating: "x", count: 100_000) + "\n",
        ]
        for (url, text) in zip(urls, hostile) {
            let key = MD5.digest(Array(url.utf8)).hex
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/\(key).0"))
        }
        let verify = try h.run(
            ["verify", "--json", "--cache-format", "picasso", "--disk-cache-path", folder, list], timeout: 60)
        #expect(verify.status == 1, "\(verify.stderr)")
        let entries = try verify.entries
        #expect(entries.count == 4)
        let expected = [
            "the count of Vary request headers is \"9223372036854775807\", outside the 0…2147483647 OkHttp reads",
            "the count of response headers is 2147483647, more than the 1024 imgwarm reads",
            "a response header is longer than the 65536 bytes imgwarm reads of a line",
        ]
        for (entry, words) in zip(entries, expected) {
            #expect(entry["verdict"] as? String == "miss" && entry["reason"] as? String == "bad-metadata", "\(entry)")
            #expect((entry["message"] as? String)?.contains(words) == true, "\(entry)")
        }
        #expect(entries[3]["verdict"] as? String == "hit", "the untouched entry still hits: \(entries[3])")
        let totals = try verify.totals
        #expect(totals["missesByReason"] as? [String: Int] == ["bad-metadata": 3], "\(totals)")
        let text = try h.run(["verify", "--cache-format", "picasso", "--disk-cache-path", folder, list], timeout: 60)
        #expect(text.result.stdoutText.contains(": miss: "), "\(text.result.stdoutText)")
        #expect(text.result.stdoutText.contains("OkHttp cannot read its metadata (<key>.0)"))
        #expect(text.result.stdoutText.contains("4 keys: 1 hit, 3 missing (3 bad-metadata)"))
        // Without lists too.
        let walk = try h.run(
            ["verify", "--json", "--cache-format", "picasso", "--disk-cache-path", folder], timeout: 60)
        let walked = try walk.totals["missesByReason"] as? [String: Int]
        #expect(walked == ["bad-metadata": 3], "\(walk.stderr)")
        // A FIFO at an entry's `<key>.0` is never opened nor waited on: a not-a-file miss.
        let fifoKey = MD5.digest(Array(urls[3].utf8)).hex
        try FileManager.default.removeItem(atPath: folder + "/\(fifoKey).0")
        #expect(mkfifo(folder + "/\(fifoKey).0", 0o644) == 0)
        let fifo = try h.run(
            ["verify", "--json", "--cache-format", "picasso", "--disk-cache-path", folder, list], timeout: 60)
        let last = try fifo.entries.last
        #expect(last?["verdict"] as? String == "miss" && last?["reason"] as? String == "not-a-file", "\(last ?? [:])")
        let options = ["--cache-format", "picasso", "--disk-cache-path", folder]
        for command in [
            ["stats", "--json"] + options, ["clean", "--dry-run", "--max-size", "1"] + options,
            ["keys", "detect", "--json"] + options + [list],
        ] {
            let run = try h.run(command, timeout: 60)
            #expect(run.status == 0, "\(command): \(run.stderr)")
        }
    }
}
