import Foundation
import TestSupport
import Testing

/// The recipes of the README and the manual (docs/usage.md) run as written on a fresh machine: the folders their `--report` and
/// `--metrics` files go to need not exist (they exited 2 with "No such file or directory"
/// before; issue 23).
@Suite struct ReadmeRecipeTests {
    /// Every `--report PATH` and `--metrics PATH` of an `imgwarm prefetch` line of the README and the manual
    /// whose path is literal (no `$`, `{`), made relative to an empty folder (`/var/log/x` becomes
    /// `var/log/x` there).
    static func destinations() throws -> [String] {
        let readme = try ["README.md", "docs/usage.md"].map {
            try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
        var paths: [String] = []
        for line in readme.split(separator: "\n") where line.contains("imgwarm prefetch") {
            let words = line.split(separator: " ").map(String.init)
            for (index, word) in words.enumerated() where word == "--report" || word == "--metrics" {
                guard index + 1 < words.count else { continue }
                let path = words[index + 1]
                guard path != "-", !path.contains("$"), !path.contains("{"), !path.contains("`") else { continue }
                paths.append(path.hasPrefix("/") ? String(path.dropFirst()) : path)
            }
        }
        return paths
    }

    @Test func reportAndMetricsFoldersNeedNotExist() throws {
        let destinations = try Self.destinations()
        #expect(destinations.contains("artifacts/prefetch.json"), "the CI recipe's report: \(destinations)")
        #expect(destinations.contains("var/log/imgwarm/prefetch.json"), "the cron recipe's report: \(destinations)")
        let h = try PrefetchHarness()
        let list = try h.temp.write("list.txt", Data((h.url("/img/photo.jpg") + "\n").utf8))
        for destination in destinations {
            let root = try TemporaryFolder()
            let option = destination.hasSuffix(".prom") ? "--metrics" : "--report"
            let run = try ProcessRunner.run(
                CLI.binary,
                ["prefetch", "--disk-cache-path", root.path("cache"), "--quiet", option, destination, list],
                environment: CLI.environment(home: root.path), currentDirectory: root.url, timeout: 60)
            #expect(run.status == 0, "\(option) \(destination): \(run.stderrText)")
            #expect(FileManager.default.fileExists(atPath: root.path(destination)), "\(destination) was written")
        }
    }
}
