import ImgwarmKit
import ImgwarmSystem

/// `prefetch --cache-format a,b` (docs/usage.md, "Several formats"): each format is filled in
/// turn by a run of its own, in `FormatFanOut.fillingOrder`, and they share the bodies: a URL is
/// requested once, by the first format that misses it, and stored into the others from its bytes
/// (`FormatFanOut` says when a format's copy is taken instead). Each format's run is today's
/// run of that format alone: its summary (named), its state database, its document in the
/// report (`caches`), its metrics; the exit status is the worst.
extension Prefetch {
    /// What one format's run of several shares with the others.
    struct SeveralPass {
        var fanOut: FormatFanOut
        /// The first format's run: it says the lists' problems and the run's warnings.
        var first: Bool
        /// `--report`: one document of every format's document.
        var documents: SeveralDocuments?
        /// The run's stop signals, installed once.
        var stop: StopSource
    }

    /// The fan-out of a run filling `locations`, seeded from `source` (`--from-cache`) if given.
    static func fanOut(_ locations: [CacheLocation], source: CacheLocation?) throws -> FormatFanOut {
        let spoolFolder = PrefetchJob.Configuration().spoolFolder
        do {
            return try FormatFanOut(
                locations: locations, sources: source.map { [$0] } ?? [], scratchFolder: spoolFolder)
        } catch {
            throw CommandFailure.cache("cannot make a scratch file in \(spoolFolder): \(error.message)")
        }
    }

    func prefetchSeveral(_ given: [CacheLocation], source: CacheLocation?) throws {
        try stateOptions.refuseWithSeveral(given)
        if (lists + highLists + lowLists).contains("-") {
            throw CommandFailure.usage(
                "standard input (-) is read once, and with several --cache-format each format's run reads the lists: save it to a file and name the file"
            )
        }
        let policies = try formatPolicies(for: given.map(\.format))
        var locations = given
        for index in locations.indices { locations[index].format = policies[index].format }
        for location in locations {
            try OutputTargets.check(report: report, metrics: metrics, location: location, statePath: nil)
        }
        let metricsOutput = try MetricsOutput.open(metrics)
        let fanOut = try Self.fanOut(locations, source: source)
        let reportFile = try report.map(ReportFile.openForCommand)
        let documents = reportFile.map {
            SeveralDocuments(file: $0, schemaVersion: PrefetchReport.schemaVersion, command: "prefetch")
        }
        let stop = StopSource.installSignalHandlers()
        var runs: [(metrics: MetricsFile, status: Int32, location: CacheLocation)] = []
        var worst = ExitStatus.success
        for (number, location) in fanOut.locations.enumerated() {
            let maxSize = policies[locations.firstIndex { $0.folder == location.folder } ?? 0].maxSize
            let outcome = RunOutcome()
            let pass = SeveralPass(fanOut: fanOut, first: number == 0, documents: documents, stop: stop)
            do {
                try prefetch(location: location, maxSize: maxSize, outcome: outcome, pass: pass)
            } catch let status as ExitStatus {
                runs.append((metricsFile(outcome.summary, location: location), status.rawValue, location))
                if status.rawValue > worst.rawValue { worst = status }
            } catch {
                // A run-level failure (the cache lock, the state database, a full disk): the
                // formats after it are not filled, and the report is not written.
                runs.append(
                    (metricsFile(outcome.summary, location: location), MetricsOutput.status(of: error), location))
                metricsOutput?.write(runs)
                throw error
            }
            // A stop signal ends the run: the formats after it are not filled.
            if outcome.summary?.interrupted ?? false { break }
        }
        metricsOutput?.write(runs)
        try ReportFile.finishForCommand { () throws(ReportFile.OpenError) in try documents?.finish() }
        throw worst
    }
}
