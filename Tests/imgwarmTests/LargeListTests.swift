import Foundation
import ImgwarmKit
import TestSupport
import Testing

@Suite struct LargeListTests {
    /// 10,000 distinct URLs over loopback: every one stored, every file byte-identical to what the
    /// server sent, nothing else in the folder.
    @Test func tenThousandURLs() throws {
        let h = try PrefetchHarness()
        let names = h.routes.valid.keys.sorted()
        var expected: [String: [UInt8]] = [:]
        var lines: [String] = []
        for index in 0..<10_000 {
            let name = names[index % names.count]
            let key = h.url("/img/\(name)?n=\(index)")
            lines.append(key)
            expected[key] = h.routes.valid[name]
        }
        let run = try h.prefetch(lines, options: ["--concurrency", "16", "--quiet"], timeout: 600)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.totals["downloaded"] as? Int == 10_000)
        #expect(h.server.requests.count == 10_000)
        h.expectCache(exactly: expected)
    }
}
