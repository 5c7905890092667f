import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// `--metrics FILE`: the Prometheus text format node_exporter's textfile collector reads, written
/// at the end of `prefetch` and `clean` (issue 23).
@Suite struct MetricsTests {
    /// The samples of a text-format file, checked line by line as the format defines them: every
    /// family announced by `# HELP` and `# TYPE … gauge` before its samples, names and label
    /// names of the allowed characters, label values quoted with `\`, `"` and newlines escaped,
    /// values that are numbers. `promtool check metrics` checks it too where it is installed.
    static func parse(_ text: String) throws -> [String: Double] {
        var samples: [String: Double] = [:]
        var announced = Set<String>()
        let name = #/[a-zA-Z_:][a-zA-Z0-9_:]*/#
        let sample = #/([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*\})? (\S+)/#
        #expect(text.hasSuffix("\n"))
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# HELP ") {
                let family = line.dropFirst(7).split(separator: " ").first.map(String.init) ?? ""
                #expect(family.wholeMatch(of: name) != nil, "\(line)")
                announced.insert(family)
            } else if line.hasPrefix("# TYPE ") {
                #expect(line.hasSuffix(" gauge"), "\(line)")
            } else {
                let match = try #require(line.wholeMatch(of: sample), "not a sample: \(line)")
                #expect(announced.contains(String(match.1)), "\(match.1) has no HELP before it")
                let value = try #require(Double(match.3), "\(line)")
                samples[String(match.1) + String(match.2 ?? "")] = value
            }
        }
        return samples
    }

    static func promtoolAccepts(_ path: String) throws -> Bool? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") else { return nil }
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "/usr/bin/promtool check metrics < \"$0\"", path], timeout: 30)
        return result.status == 0
    }

    func value(_ samples: [String: Double], _ name: String, _ labels: String) -> Double? {
        samples["imgwarm_" + name + "{" + labels + "}"]
    }

    @Test func prefetchWritesItsFiguresAndKeepsTheLastSuccess() throws {
        let h = try PrefetchHarness()
        let metrics = h.temp.path("imgwarm.prom")
        let cache = "cache=\"\(h.folder)\""
        let good = try h.prefetch(
            [h.url("/img/photo.jpg"), h.url("/img/gradient.png")], options: ["--metrics", metrics, "--quiet"])
        #expect(good.status == 0, "\(good.stderr)")
        let first = try Self.parse(String(contentsOfFile: metrics, encoding: .utf8))
        #expect(value(first, "prefetch_lines", cache + ",outcome=\"downloaded\"") == 2)
        #expect(value(first, "prefetch_lines", cache + ",outcome=\"failed\"") == 0)
        #expect(value(first, "prefetch_exit_status", cache) == 0)
        let bytes = Double(h.routes.valid["photo.jpg"]!.count + h.routes.valid["gradient.png"]!.count)
        #expect(value(first, "prefetch_received_bytes", cache) == bytes)
        #expect(value(first, "cache_files", cache + ",command=\"prefetch\"") == 2)
        #expect(value(first, "cache_size_bytes", cache + ",command=\"prefetch\"") == bytes)
        let success = try #require(value(first, "prefetch_last_success_timestamp_seconds", cache))
        #expect(success == value(first, "prefetch_last_run_timestamp_seconds", cache))
        #expect(abs(success - Date().timeIntervalSince1970) < 600)
        if let accepted = try Self.promtoolAccepts(metrics) { #expect(accepted, "promtool check metrics") }

        // A failing run: its own exit status and end, the last success carried over.
        usleep(20_000)
        let bad = try h.prefetch([h.url("/status/404")], options: ["--metrics", metrics, "--quiet"])
        #expect(bad.status == 1)
        let second = try Self.parse(String(contentsOfFile: metrics, encoding: .utf8))
        #expect(value(second, "prefetch_exit_status", cache) == 1)
        #expect(value(second, "prefetch_lines", cache + ",outcome=\"failed\"") == 1)
        #expect(value(second, "prefetch_last_success_timestamp_seconds", cache) == success)
        #expect((value(second, "prefetch_last_run_timestamp_seconds", cache) ?? 0) > success)
    }

    @Test func cleanWritesItsFigures() throws {
        let h = try PrefetchHarness()
        _ = try h.prefetch([h.url("/img/photo.jpg"), h.url("/img/gradient.png"), h.url("/img/anim.gif")])
        let metrics = h.temp.path("clean.prom")
        let run = try h.run(["clean", "--disk-cache-path", h.folder, "--all", "--quiet", "--metrics", metrics])
        #expect(run.status == 0, "\(run.stderr)")
        let samples = try Self.parse(String(contentsOfFile: metrics, encoding: .utf8))
        let cache = "cache=\"\(h.folder)\""
        #expect(value(samples, "clean_removed_files", cache + ",reason=\"cleared\"") == 3)
        #expect(value(samples, "clean_exit_status", cache) == 0)
        #expect(value(samples, "cache_files", cache + ",command=\"clean\"") == 0)
        #expect(value(samples, "clean_last_success_timestamp_seconds", cache) != nil)
        if let accepted = try Self.promtoolAccepts(metrics) { #expect(accepted, "promtool check metrics") }
    }

    /// Label values are escaped as the format requires (a cache folder may hold any byte).
    @Test func labelValuesAreEscaped() throws {
        var file = MetricsFile(command: "prefetch", cacheFolder: "/tmp/a \"b\"\\c\nd")
        file.gauge("prefetch_duration_seconds", "How long.", 1.5)
        let samples = try Self.parse(file.text)
        #expect(samples.keys.first == #"imgwarm_prefetch_duration_seconds{cache="/tmp/a \"b\"\\c\nd"}"#)
        #expect(samples.values.first == 1.5)
    }
}
