import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// A loopback server with the fixture routes, a temporary cache, and the real binary.
final class PrefetchHarness {
    let temp: TemporaryFolder
    let fixtures: FixtureServer
    var routes: FixtureRoutes { fixtures.routes }
    var server: LoopbackServer { fixtures.server }
    let folder: String

    init() throws {
        temp = try TemporaryFolder()
        fixtures = try FixtureServer()
        folder = temp.path("caches/com.hackemist.SDImageCache/default")
    }

    func url(_ path: String) -> String { fixtures.url(path) }

    /// Writes `lines` to a list file and runs `imgwarm prefetch` on it with a JSON report on
    /// standard output (in-process; as the binary with `binary`: see `CLI`).
    func prefetch(
        _ lines: [String], options: [String] = [], listName: String = "list.txt", env: [String: String] = [:],
        stdin: Data? = nil, timeout: Double = 120, binary: Bool = false
    ) throws -> Run {
        let list = try temp.write(listName, Data((lines.joined(separator: "\n") + "\n").utf8))
        return try run(
            ["prefetch", "--disk-cache-path", folder, "--report", "-"] + options + [list], env: env, stdin: stdin,
            timeout: timeout, binary: binary)
    }

    func run(
        _ arguments: [String], env: [String: String] = [:], stdin: Data? = nil, timeout: Double = 120,
        binary: Bool = false
    ) throws -> Run {
        let result =
            binary
            ? try CLI.runBinary(arguments, stdin: stdin, home: temp.path, env: env, timeout: timeout)
            : try CLI.run(arguments, stdin: stdin, home: temp.path, env: env, timeout: timeout)
        return Run(result: result)
    }

    /// The names in the cache folder (none when it does not exist).
    func cacheContents() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    }

    /// Asserts the cache holds exactly the files of `keys`, byte-identical to `bodies`, and that
    /// no temporary file is left in imgwarm's private folder.
    func expectCache(exactly expected: [String: [UInt8]], sourceLocation: SourceLocation = #_sourceLocation) {
        let names = Set(expected.keys.map(SDFileName.forKey))
        #expect(cacheContents() == names, sourceLocation: sourceLocation)
        for (key, body) in expected {
            let data = FileManager.default.contents(atPath: folder + "/" + SDFileName.forKey(key))
            let same = data.map([UInt8].init) == body
            #expect(
                same, "bytes of \(key): \(data?.count ?? -1) stored, \(body.count) expected",
                sourceLocation: sourceLocation)
        }
        let temporary = temp.path("caches/com.hackemist.SDImageCache/.imgwarm/default/tmp")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)", sourceLocation: sourceLocation)
    }

    struct Run {
        let result: ProcessResult
        var status: Int32 { result.status }
        var stderr: String { result.stderrText }

        var report: [String: Any] {
            get throws {
                guard let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
                    throw CocoaError(.propertyListReadCorrupt)
                }
                return object
            }
        }

        var entries: [[String: Any]] {
            get throws { try report["entries"] as? [[String: Any]] ?? [] }
        }

        var totals: [String: Any] {
            get throws { try report["totals"] as? [String: Any] ?? [:] }
        }

        /// The entry for `line` (1-based) of the first list.
        func entry(line: Int) throws -> [String: Any] {
            try #require(try entries.first { $0["line"] as? Int == line })
        }
    }
}
