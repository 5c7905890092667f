import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// A cached file the app cannot decode is a miss for the app (SDWebImage's disk read gives no
/// image and it downloads again): prefetch takes it for a miss too, and says so (issue 31).
@Suite struct DamagedHitTests {
    func storedFile(_ h: PrefetchHarness, _ url: String) throws -> String {
        let first = try h.prefetch([url])
        #expect(first.status == 0, "\(first.stderr)")
        return h.folder + "/" + SDFileName.forKey(url)
    }

    @Test func aFileCutShortIsRequestedAgain() throws {
        let h = try PrefetchHarness()
        let url = h.url("/img/photo.jpg")
        let path = try storedFile(h, url)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(100).write(to: URL(fileURLWithPath: path))
        let requests = h.server.requests.count

        let dry = try h.prefetch([url], options: ["--dry-run"])
        #expect(try dry.entry(line: 1)["outcome"] as? String == "would-fetch")
        #expect(dry.stderr.contains("1 cached file was damaged, a miss for the app"), "\(dry.stderr)")

        let run = try h.prefetch([url])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(run.stderr.contains("1 cached file was damaged"), "\(run.stderr)")
        #expect(run.stderr.contains("the JPEG data"), "\(run.stderr)")
        #expect(h.server.requests.count == requests + 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == whole)
    }

    @Test func aForeignFileOfTheSameNameIsRequestedAgain() throws {
        let h = try PrefetchHarness()
        let url = h.url("/img/gradient.png")
        let path = try storedFile(h, url)
        try Data("<html>an error page a proxy saved</html>".utf8).write(to: URL(fileURLWithPath: path))
        let run = try h.prefetch([url])
        #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(run.stderr.contains("not an image of a known format"), "\(run.stderr)")
    }

    /// A whole file stays a hit, also one with bytes after its end marker, so nothing imgwarm
    /// stored is downloaded again on every run.
    @Test func wholeFilesStayHits() throws {
        let h = try PrefetchHarness()
        let urls = [h.url("/img/photo.jpg"), h.url("/img/anim.gif"), h.url("/img/sticker.webp")]
        _ = try h.prefetch(urls)
        let jpeg = h.folder + "/" + SDFileName.forKey(urls[0])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: jpeg))
        handle.seekToEndOfFile()
        handle.write(Data(repeating: 0, count: 300))
        try handle.close()
        let requests = h.server.requests.count
        let run = try h.prefetch(urls)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.totals["cached"] as? Int == 3)
        #expect(!run.stderr.contains("damaged"), "\(run.stderr)")
        #expect(h.server.requests.count == requests)
    }

    /// verify's miss line says what repairs it.
    @Test func verifyNamesTheRepair() throws {
        let h = try PrefetchHarness()
        let url = h.url("/img/photo.jpg")
        let path = try storedFile(h, url)
        try Data([0xFF, 0xD8, 0xFF, 0xE0]).write(to: URL(fileURLWithPath: path))
        let list = try h.temp.write("verify.txt", Data((url + "\n").utf8))
        let run = try h.run(["verify", "--disk-cache-path", h.folder, list])
        #expect(run.status == 1)
        #expect(
            run.result.stdoutText.contains(
                "(imgwarm prefetch of the same list with the same cache options stores it again)"),
            "\(run.result.stdoutText)")
    }
}
