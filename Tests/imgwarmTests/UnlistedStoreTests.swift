import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// An entry the library's index does not list is not in the cache for the app (Glide and Coil
/// read only what their journal lists; flutter_cache_manager only its rows): when the index
/// cannot be written, the run reports those downloads as failed, not as in the cache (issue 31).
@Suite struct UnlistedStoreTests {
    /// The journal cannot be written (its temporary file's name is taken by a folder, the way a
    /// full disk fails the same write): every download is stored but unlisted.
    @Test(arguments: ["glide", "coil"])
    func downloadsTheIndexDoesNotListAreNotInTheCache(format: String) throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("android/\(format)")
        try FileManager.default.createDirectory(
            atPath: folder + "/journal.tmp", withIntermediateDirectories: true)
        let urls = (0..<5).map { h.url("/img/photo.jpg?n=\($0)") }
        let list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let run = try h.run([
            "prefetch", "--cache-format", format, "--disk-cache-path", folder, "--report", "-", list,
        ])
        #expect(run.status == 3, "\(run.stderr)")
        let totals = try run.totals
        #expect(totals["downloaded"] as? Int == 0, "\(totals)")
        #expect(totals["failed"] as? Int == 5)
        #expect((totals["errorClasses"] as? [String: Int])?["write-failed"] == 5)
        for entry in try run.entries {
            #expect(entry["outcome"] as? String == "failed")
            #expect(
                (entry["errorMessage"] as? String)?.contains("index could not be written: the app does not see it")
                    == true, "\(entry)")
        }
        #expect(run.stderr.contains("imgwarm prefetch: 0 of 5 URLs in the cache"), "\(run.stderr)")
    }

    /// The index written: every download is in the cache, as before.
    @Test func listedDownloadsAreInTheCache() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("android/glide")
        let urls = (0..<5).map { h.url("/img/photo.jpg?n=\($0)") }
        let list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
        let run = try h.run(["prefetch", "--cache-format", "glide", "--disk-cache-path", folder, "--report", "-", list])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.totals["downloaded"] as? Int == 5)
        let journal = try String(contentsOfFile: folder + "/journal", encoding: .utf8)
        #expect(journal.components(separatedBy: "\nCLEAN ").count - 1 == 5)
    }
}
