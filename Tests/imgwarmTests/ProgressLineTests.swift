import Testing

@testable import ImgwarmKit
@testable import imgwarm

/// `--progress bar`'s line at several terminal widths, over the updates of a run: it fits,
/// leaving the last column free; its fields are whole (a value was once cut mid-number with
/// an ellipsis); its bar keeps one width (it once narrowed and went as values grew, and came
/// back); and fields that went do not come back at the same width.
@Suite struct ProgressLineTests {
    static func progress(done: Int, total: Int = 10000, bytes: Int, failed: Int, elapsed: Double)
        -> PrefetchJob.Progress
    {
        var totals = PrefetchTotals()
        totals.lines = done
        totals.failed = failed
        totals.bytesReceived = Int64(bytes)
        return PrefetchJob.Progress(total: total, totals: totals, elapsed: elapsed, inFlight: 16, isFinal: false)
    }

    static let example = progress(done: 4500, bytes: 12_900_000, failed: 3, elapsed: 5.5)

    /// The fields each width keeps of the example, the least useful going first.
    @Test(arguments: [
        (200, "[#########...........]  45% 4500/10000, 818/s, 12.3 MiB, 3 failed, ETA 0:07"),
        (80, "[#########...........]  45% 4500/10000, 818/s, 12.3 MiB, 3 failed, ETA 0:07"),
        (79, "[####......]  45% 4500/10000, 818/s, 12.3 MiB, 3 failed, ETA 0:07"),
        (60, "[####......]  45% 4500/10000, 818/s, 3 failed, ETA 0:07"),
        (50, "[####......]  45% 4500/10000, 3 failed, ETA 0:07"),
        (40, " 45% 4500/10000, 3 failed, ETA 0:07"),
        (30, " 45% 4500/10000, 3 failed"),
        (24, "4500/10000, 3 failed"),
        (12, "4500/10000"),
        (11, "4500/10000"),
        (10, ""),
        (1, ""),
    ])
    func wholeFieldsAtEachWidth(columns: Int, expected: String) {
        var line = ProgressLine()
        #expect(line.line(for: Self.example, columns: columns) == expected, "\(columns)")
    }

    /// A run's updates (values growing, the rate going up and down): at each width every line
    /// fits, is made of whole fields (it equals the line rendered with some fields left out),
    /// leaves out no fewer fields than the line before, and has a bar of one width throughout.
    @Test(arguments: [200, 100, 80, 79, 70, 60, 50, 49, 40, 30, 24, 20, 12, 2])
    func steadyWholeFieldsOverARun(columns: Int) {
        var line = ProgressLine()
        var lastDropped = 0
        var barWidths: Set<Int> = []
        for step in 0...150 {
            let done = min(10000, step * 67)
            let elapsed = 0.1 + Double(step) * (step % 7 == 0 ? 0.09 : 0.05)
            let progress = Self.progress(done: done, bytes: done * 2900 + step, failed: done / 150, elapsed: elapsed)
            let text = line.line(for: progress, columns: columns)
            #expect(text.count <= max(0, columns - 1), "\(columns): '\(text)'")
            let barWidth = ProgressLine.barWidth(columns: columns)
            let whole = (0...ProgressLine.Field.dropOrder.count).contains { dropped in
                ProgressLine.render(progress, fields: ProgressLine.fields(dropped: dropped), barWidth: barWidth)
                    == text
            }
            #expect(whole || text.isEmpty, "\(columns): '\(text)' is not made of whole fields")
            #expect(line.dropped >= lastDropped, "\(columns): a field came back: '\(text)'")
            lastDropped = line.dropped
            if text.hasPrefix("[") {
                barWidths.insert(
                    text.firstIndex(of: "]").map { text.distance(from: text.startIndex, to: $0) - 1 } ?? -1)
            }
        }
        #expect(barWidths.count <= 1, "\(columns): bar widths \(barWidths)")
        if columns >= 50 { #expect(barWidths == [ProgressLine.barWidth(columns: columns)], "\(columns)") }
        if columns >= 100 { #expect(lastDropped == 0, "\(columns): everything fits") }
    }

    /// A field that went stays away at that width (a shorter value does not bring it back), and
    /// comes back when the terminal is widened.
    @Test func fieldsComeBackOnlyWithTheWidth() {
        var line = ProgressLine()
        let long = Self.progress(done: 4500, bytes: 1_000_000_000, failed: 3, elapsed: 5.5)  // 953.7 MiB
        let short = Self.progress(done: 4501, bytes: 1000, failed: 3, elapsed: 5.5)  // 1000 B
        let columns = 64
        let first = line.line(for: long, columns: columns)
        #expect(!first.contains("MiB"), "'\(first)'")
        #expect(ProgressLine.render(short, fields: ProgressLine.fields(dropped: 0), barWidth: 10).count <= columns - 1)
        let second = line.line(for: short, columns: columns)
        #expect(!second.contains("1000 B"), "the bytes stay away: '\(second)'")
        let wide = line.line(for: short, columns: 120)
        #expect(wide.contains("1000 B"), "'\(wide)'")
    }

    /// The log line has every field, with the percentage after the count.
    @Test func logLine() {
        let progress = Self.progress(done: 45, total: 100, bytes: 0, failed: 3, elapsed: 9)
        #expect(ProgressLine.status(progress) == "45/100 (45%), 5/s, 0 B, 3 failed, ETA 0:11")
        let done = Self.progress(done: 100, total: 100, bytes: 0, failed: 0, elapsed: 10)
        #expect(ProgressLine.status(done) == "100/100 (100%), 10/s, 0 B, 0 failed", "no ETA once done")
    }
}
