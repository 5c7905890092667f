import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// Most command lines of this target run in-process (`CLI.run`); these check that a command
/// line gives there what the binary gives: the same exit status, the same standard output and
/// errors, the same files. If the standard streams or the environment leaked to the test
/// process's own, or the exit status were lost, the two would differ here.
@Suite struct InProcessAgreementTests {
    func bothWays(_ arguments: [String], stdin: Data? = nil, home: String, env: [String: String] = [:]) throws -> (
        ProcessResult, ProcessResult
    ) {
        let inside = try CLI.run(arguments, stdin: stdin, home: home, env: env)
        let binary = try CLI.runBinary(arguments, stdin: stdin, home: home, env: env)
        return (inside, binary)
    }

    @Test(arguments: [
        ["--help"], ["version"], ["prefetch", "--no-such-option"], ["clean"], ["help", "nothing"],
        ["path", "--name-only", "https://example.com/a.png"], ["stats", "--json"], ["blacklist", "list"],
    ])
    func theSameWordsAndStatus(arguments: [String]) throws {
        let temp = try TemporaryFolder()
        let (inside, binary) = try bothWays(arguments, home: temp.path)
        #expect(inside.status == binary.status)
        #expect(inside.stdoutText == binary.stdoutText)
        #expect(inside.stderrText == binary.stderrText)
        #expect(!inside.stdout.isEmpty || !inside.stderr.isEmpty, "something was said")
    }

    /// Standard input, the environment (IMGWARM_CACHE_DIR names the cache) and a prefetch with
    /// its report on standard output: the same cache files and the same totals.
    @Test func aPrefetchFromStandardInputStoresTheSameFiles() throws {
        let h = try PrefetchHarness()
        let list = Data((h.url("/img/photo.jpg") + "\n" + h.url("/status/404") + "\n").utf8)
        var caches: [Set<String>] = []
        var totals: [NSDictionary] = []
        for (index, binary) in [false, true].enumerated() {
            let root = h.temp.path("root\(index)")
            let arguments = ["prefetch", "--report", "-", "--retries", "0", "-"]
            let env = ["IMGWARM_CACHE_DIR": root]
            let result =
                binary
                ? try CLI.runBinary(arguments, stdin: list, home: h.temp.path, env: env)
                : try CLI.run(arguments, stdin: list, home: h.temp.path, env: env)
            #expect(result.status == 1, "one URL failed: \(result.stderrText)")
            let report = try CLI.json(result)
            totals.append(try #require(report["totals"] as? NSDictionary))
            let folder = root + "/com.hackemist.SDImageCache/default"
            caches.append(Set(try FileManager.default.contentsOfDirectory(atPath: folder)))
        }
        #expect(caches[0] == caches[1] && caches[0].count == 1)
        #expect(totals[0] == totals[1])
    }
}
