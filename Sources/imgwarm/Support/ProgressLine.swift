import ImgwarmKit

/// The self-updating line of `--progress bar`, fitted to the terminal, and the text of a
/// `--progress log` line:
///
///     [#########...........]  45% 4500/10000, 812/s, 12.3 MiB, 3 failed, ETA 0:07
///
/// The line leaves the terminal's last column free (where the cursor waits: a full line would
/// wrap, and every redraw would leave a stale line). Its bar's width follows the terminal's width
/// alone (`barWidth`), never the values of the moment, so the bar keeps its width from one redraw
/// to the next. Where the line is still too wide, whole fields go, in `Field.dropOrder` (the
/// bytes first); nothing is cut mid-value. A field that went stays away until the terminal's
/// width changes, so the line does not change shape each time a value gains or loses a digit.
struct ProgressLine {
    enum Field: CaseIterable {
        case bar, percent, count, rate, bytes, failed, eta

        /// The fields that go when the line is too wide, the first first. The count (done/total)
        /// stays as long as it fits alone.
        static let dropOrder: [Field] = [.bytes, .rate, .eta, .percent, .failed, .bar]
    }

    /// The width the last line was fitted to; a change starts again with every field.
    private(set) var columns = 0
    /// How many of `Field.dropOrder` the lines at `columns` leave out.
    private(set) var dropped = 0

    /// The bar's width in a terminal of `columns`: 20 from 80 columns up, 10 from 50, none below.
    static func barWidth(columns: Int) -> Int {
        columns >= 80 ? 20 : columns >= 50 ? 10 : 0
    }

    /// The fields in a line with `dropped` of them left out.
    static func fields(dropped: Int) -> Set<Field> {
        Set(Field.allCases).subtracting(Field.dropOrder.prefix(dropped))
    }

    /// The line for `progress` in a terminal `columns` wide: at most `columns - 1` characters.
    mutating func line(for progress: PrefetchJob.Progress, columns: Int) -> String {
        if columns != self.columns {
            self.columns = columns
            dropped = 0
        }
        let room = max(0, columns - 1)
        let barWidth = ProgressLine.barWidth(columns: columns)
        while true {
            let line = ProgressLine.render(progress, fields: ProgressLine.fields(dropped: dropped), barWidth: barWidth)
            if line.count <= room { return line }
            // Not even the count fits: nothing rather than a cut number.
            guard dropped < Field.dropOrder.count else { return "" }
            dropped += 1
        }
    }

    /// The line with `fields`, the bar `barWidth` wide (none when 0).
    static func render(_ progress: PrefetchJob.Progress, fields: Set<Field>, barWidth: Int) -> String {
        let fraction = ProgressLine.fraction(progress)
        var head: [String] = []
        if fields.contains(.bar) && barWidth > 0 {
            let filled = Int((fraction * Double(barWidth)).rounded(.down))
            head.append(
                "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]")
        }
        if fields.contains(.percent) {
            let percent = "\(Int((fraction * 100).rounded(.down)))%"
            head.append(String(repeating: " ", count: 4 - percent.count) + percent)
        }
        let values = ProgressLine.values(progress)
        let text = [Field.count, .rate, .bytes, .failed, .eta].compactMap { field in
            fields.contains(field) ? values[field] : nil
        }
        .joined(separator: ", ")
        return (head + [text]).filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// `4500/10000 (45%), 812/s, 12.3 MiB, 3 failed, ETA 0:07`: a log line's text, every field.
    static func status(_ progress: PrefetchJob.Progress) -> String {
        let values = ProgressLine.values(progress)
        let percent = Int((ProgressLine.fraction(progress) * 100).rounded(.down))
        return
            ([(values[.count] ?? "") + " (\(percent)%)"]
            + [Field.rate, .bytes, .failed, .eta].compactMap { values[$0] })
            .joined(separator: ", ")
    }

    /// The share of the lines done, 0 to 1.
    private static func fraction(_ progress: PrefetchJob.Progress) -> Double {
        progress.total > 0 ? min(1, Double(progress.totals.lines) / Double(progress.total)) : 0
    }

    /// Each text field's value; no ETA before there is a rate, nor once every line is done.
    private static func values(_ progress: PrefetchJob.Progress) -> [Field: String] {
        let totals = progress.totals
        let done = totals.lines
        let rate = progress.elapsed > 0 ? Double(done) / progress.elapsed : 0
        var values: [Field: String] = [
            .count: "\(done)/\(progress.total)",
            .rate: "\(Quantities.formatDecimal(rate, digits: 0))/s",
            .bytes: Quantities.formatBytes(UInt64(max(0, totals.bytesReceived))),
            .failed: "\(totals.failed) failed",
        ]
        if rate > 0 && done < progress.total {
            values[.eta] = "ETA \(clock(Double(progress.total - done) / rate))"
        }
        return values
    }

    /// `m:ss`.
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let minutes = total / 60
        let rest = total % 60
        return "\(minutes):\(rest < 10 ? "0" : "")\(rest)"
    }
}
