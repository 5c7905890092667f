import Foundation
import TestSupport
import Testing

/// The README's and the manual's archive recipe for a Kingfisher cache, with GNU tar: the
/// extraction warns that each entry's time stamp is "in the future" (it is the expiry date) and
/// keeps it; `--warning=no-timestamp` extracts the same files without a word.
@Suite struct KingfisherArchiveTests {
    static let gnuTar: Bool = {
        guard
            let result = try? ProcessRunner.run(
                URL(fileURLWithPath: "/bin/tar"), ["--version"], environment: ["LC_ALL": "C"], timeout: 10)
        else { return false }
        return result.status == 0 && result.stdoutText.hasPrefix("tar (GNU tar)")
    }()

    @Test(.enabled(if: gnuTar, "needs GNU tar at /bin/tar")) func gnuTarWarnsOfFutureTimesAndKeepsThem() throws {
        let h = try PrefetchHarness()
        let list = try h.temp.write(
            "list.txt", Data((h.url("/img/photo.jpg") + "\n" + h.url("/img/gradient.png") + "\n").utf8))
        let seed = h.temp.path("seed")
        let prefetch = try h.run(["prefetch", "--cache-format", "kingfisher", "--cache-dir", seed, "--quiet", list])
        #expect(prefetch.status == 0, "\(prefetch.stderr)")
        let tar = URL(fileURLWithPath: "/bin/tar")
        let environment = ["LC_ALL": "C", "PATH": "/usr/bin:/bin"]
        // As the recipe writes it.
        let archive = h.temp.path("image-cache.tar.gz")
        let create = try ProcessRunner.run(
            tar, ["-C", seed, "--exclude=.imgwarm", "-czf", archive, "."], environment: environment, timeout: 60)
        #expect(create.status == 0 && create.stderrText.isEmpty, "\(create.stderrText)")

        let folder = "com.onevcat.Kingfisher.ImageCache.default"
        let stored = try FileManager.default.contentsOfDirectory(atPath: seed + "/" + folder)
        #expect(stored.count == 2)
        func modified(_ path: String) throws -> Date {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
        }
        for (options, warns) in [([String](), true), (["--warning=no-timestamp"], false)] {
            let target = h.temp.path("extracted-\(warns)")
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            let extract = try ProcessRunner.run(
                tar, options + ["-xzf", archive, "-C", target], environment: environment, timeout: 60)
            #expect(extract.status == 0, "\(extract.stderrText)")
            let warnings = extract.stderrText.split(separator: "\n").filter { $0.contains("in the future") }
            #expect(warnings.count == (warns ? 2 : 0), "\(options): \(extract.stderrText)")
            #expect(warns || extract.stderrText.isEmpty, "\(options): \(extract.stderrText)")
            for name in stored {
                let original = try modified(seed + "/" + folder + "/" + name)
                #expect(original > Date().addingTimeInterval(6 * 86400), "a week ahead: the expiry date")
                #expect(
                    abs(try modified(target + "/" + folder + "/" + name).timeIntervalSince(original)) < 1,
                    "\(options): the expiry date is kept")
            }
        }
    }
}
