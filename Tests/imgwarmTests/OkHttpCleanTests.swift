import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `clean` of an OkHttp cache (`okhttp`, `picasso`, `coil1`) without `--max-size` (issue 47): the
/// format has no default limit (the app's depends on the device), so its only pass trims nothing,
/// and the run says so in one line instead of leaving the user to wonder.
@Suite struct OkHttpCleanTests {
    @Test func cleanWithoutMaxSizeSaysWhyNothingWasTrimmed() throws {
        let h = try PrefetchHarness()
        let folder = h.temp.path("cache/http_cache")
        let list = try h.temp.write("list.txt", Data((h.url("/max-age/3600/photo.jpg") + "\n").utf8))
        let stored = try h.run(["prefetch", "--cache-format", "okhttp", "--disk-cache-path", folder, list])
        #expect(stored.status == 0, "\(stored.stderr)")
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        let options = ["--cache-format", "okhttp", "--disk-cache-path", folder]
        let line = "okhttp has no default size limit"
        for dryRun in [true, false] {
            let run = try h.run(["clean"] + options + (dryRun ? ["--dry-run"] : []))
            #expect(run.status == 0, "\(run.stderr)")
            let said = run.stderr.components(separatedBy: "\n").filter { $0.hasPrefix(line) }
            #expect(said.count == 1, "\(run.stderr)")
            #expect(said.first?.contains("nothing \(dryRun ? "would be" : "was") trimmed") == true, "\(run.stderr)")
            #expect(said.first?.contains("--max-size") == true)
        }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == before, "nothing was deleted")
        for extra in [["--max-size", "1G"], ["--quiet"], ["--all", "--dry-run"]] {
            let run = try h.run(["clean"] + options + extra)
            #expect(run.status == 0 && !run.stderr.contains(line), "\(extra): \(run.stderr)")
        }
    }
}
