import ArgumentParser
import ImgwarmKit

/// `--limit-rate` and `--max-rate-per-host`: how fast a prefetch may go, for runs that share a link
/// and for servers that ask for it (docs/usage.md, "How many transfers").
struct RateOptions: ParsableArguments {
    @Option(
        name: .customLong("limit-rate"), parsing: .unconditional,
        help: ArgumentHelp(
            "Body bytes received per second, all transfers together, e.g. 2M (K, M, G are powers of 1024 and 0 is no limit, as for curl; default \(Defaults.limitRate(Defaults.prefetch.fetch.limitRate))).",
            valueName: "rate"),
        transform: Parse.byteRate)
    var limitRate: UInt64?

    @Option(
        name: .customLong("max-rate-per-host"), parsing: .unconditional,
        help: ArgumentHelp(
            "Requests started per second to one host, at most, evenly spaced: \(Parse.requestRateRange), e.g. 10 or 0.5 (default \(Defaults.requestRate(Defaults.prefetch.slots.maxRatePerHost))).",
            valueName: "n"),
        transform: Parse.requestRate)
    var maxRatePerHost: Double?

    /// Puts the rates given into `configuration`; those left out keep the engine's (`--limit-rate 0`
    /// is the engine's own "no limit").
    func apply(to configuration: inout PrefetchJob.Configuration) {
        if let limitRate { configuration.fetch.limitRate = Int(clamping: limitRate) }
        if let maxRatePerHost { configuration.slots.maxRatePerHost = maxRatePerHost }
    }
}
