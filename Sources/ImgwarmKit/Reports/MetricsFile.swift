/// `--metrics FILE`: what a run did, in the Prometheus text format that node_exporter's textfile
/// collector reads (one file per job; the collector reads every `*.prom` of its folder), written
/// atomically at the end of the run through `ReportFile` (a device or FIFO is written into).
///
/// Every sample is a gauge of the last run, labelled with the cache folder. The time of the last
/// successful run is carried over from the file's previous contents when this run did not
/// succeed, so an alert on its age works across failing runs.
public struct MetricsFile {
    public struct Sample: Equatable {
        public var name: String
        public var labels: [(String, String)]
        public var value: Double

        public static func == (a: Sample, b: Sample) -> Bool {
            a.name == b.name && a.value == b.value && a.labels.elementsEqual(b.labels) { $0 == $1 }
        }
    }

    /// The command (`prefetch`, `clean`): metric names start `imgwarm_<command>_`.
    public let command: String
    /// The cache folder, the `cache` label of every sample.
    public let cacheFolder: String
    private var families: [(name: String, help: String, samples: [Sample])] = []

    public init(command: String, cacheFolder: String) {
        self.command = command
        self.cacheFolder = cacheFolder
    }

    /// Adds the gauge `name` (`imgwarm_` and nothing more is prefixed) with one sample per entry
    /// of `values`, each labelled with the cache folder and its own `extra` labels.
    public mutating func gauge(_ name: String, _ help: String, _ values: [([(String, String)], Double)]) {
        let full = "imgwarm_" + name
        let samples = values.map { Sample(name: full, labels: [("cache", cacheFolder)] + $0.0, value: $0.1) }
        families.append((full, help, samples))
    }

    public mutating func gauge(_ name: String, _ help: String, _ value: Double) {
        gauge(name, help, [([], value)])
    }

    /// The file's text: `# HELP`, `# TYPE` and the samples of each family, in the order added.
    public var text: String { MetricsFile.text(of: [self]) }

    /// The text of one file holding `files`' figures (a command run on several formats'
    /// folders, each file labelled with its own): each family once, in the order it first
    /// appears, with the samples of every file that has it, in the order of `files` (the text
    /// format wants a family's samples together).
    public static func text(of files: [MetricsFile]) -> String {
        var order: [String] = []
        var merged: [String: (help: String, samples: [Sample])] = [:]
        for family in files.flatMap(\.families) {
            if merged[family.name] == nil { order.append(family.name) }
            merged[family.name, default: (family.help, [])].samples += family.samples
        }
        var lines: [String] = []
        for name in order {
            guard let family = merged[name] else { continue }
            lines.append("# HELP \(name) \(MetricsFile.escapeHelp(family.help))")
            lines.append("# TYPE \(name) gauge")
            for sample in family.samples {
                let labels = sample.labels.map { "\($0.0)=\"\(MetricsFile.escapeLabel($0.1))\"" }.joined(separator: ",")
                lines.append("\(sample.name){\(labels)} \(MetricsFile.format(sample.value))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The lines of `text` (a previous file) whose first label is `cache` = `folder`: that
    /// cache's samples, where the file holds several caches'.
    public static func lines(ofCache folder: String, in text: String) -> String {
        let label = "{cache=\"\(escapeLabel(folder))\""
        return text.split(separator: "\n").filter { line in
            guard let range = line.firstRange(of: label), line.firstIndex(of: "{") == range.lowerBound else {
                return false
            }
            return line[range.upperBound...].first.map { $0 == "}" || $0 == "," } ?? false
        }.joined(separator: "\n")
    }

    /// A label value with `\`, `"` and line feeds escaped, as the text format requires.
    static func escapeLabel(_ value: String) -> String {
        var result = ""
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    static func escapeHelp(_ value: String) -> String {
        value.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }

    /// Integers without a fraction, others as Swift prints a Double (a valid Go float).
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// The value of the first sample named `name` in `text` (a previous file), if any.
    public static func value(of name: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + "{") || line.hasPrefix(name + " ") {
            if let value = line.split(separator: " ").last.flatMap({ Double($0) }) { return value }
        }
        return nil
    }

    /// The run's end, its exit status and the last success (this run's end when `succeeded`,
    /// else what `previous`, the file's former text, said), then the cache after the run.
    public mutating func addRunAndCache(
        finishedAt: Timestamp, exitStatus: Int32, succeeded: Bool, previous: String?, cache: DiskTotals?
    ) {
        let prefix = command + "_"
        let now = Double(finishedAt.seconds) + Double(finishedAt.nanoseconds) / 1e9
        gauge(prefix + "last_run_timestamp_seconds", "When the last \(command) ended (Unix time).", now)
        gauge(
            prefix + "exit_status", "How the last \(command) ended: the status the process exited with (0 success).",
            Double(exitStatus))
        let lastSuccessName = "imgwarm_" + prefix + "last_success_timestamp_seconds"
        if let success = succeeded ? now : previous.flatMap({ MetricsFile.value(of: lastSuccessName, in: $0) }) {
            gauge(
                prefix + "last_success_timestamp_seconds", "When the last successful \(command) ended (Unix time).",
                success)
        }
        if let cache {
            // Labelled with the command too: prefetch and clean files side by side in one textfile
            // folder would otherwise hold the same series twice, which node_exporter refuses.
            let after = [("command", command)]
            gauge(
                "cache_files",
                "Entries in the cache folder after the run: files, folders and links at any depth, a format's layout folders (Fresco's version and shard folders) not counted; for sdwebimage, SDWebImage's totalDiskCount.",
                [(after, Double(cache.entries))])
            gauge(
                "cache_size_bytes",
                "Logical bytes (st_size) of those entries after the run; for sdwebimage, SDWebImage's totalDiskSize.",
                [(after, Double(cache.logicalBytes))])
        }
    }
}
