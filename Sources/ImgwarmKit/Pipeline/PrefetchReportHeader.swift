extension PrefetchReport.Header {
    /// The header of a run of `configuration` on `inputs`, its options recorded as the report
    /// documents them (as `CleanReport` records a clean's); `severalFormats`: one format's document
    /// of several (`Header.severalFormats`); `copies`: entries may be copied from another cache.
    public init(
        location: CacheLocation, inputs: [ListSource], configuration: PrefetchJob.Configuration, startedAt: Timestamp,
        severalFormats: Bool = false, copies: Bool = false
    ) {
        // The User-Agent sent is the app client's where the format asks as it (`RequestProfile`).
        var configuration = configuration
        configuration.fetch.profile = (location.format as? any RequestProfileFormat)?.requestProfile
        self.init(
            cacheFolder: location.folder, cacheFormat: location.format.name, inputs: inputs,
            options: Self.recordedOptions(of: configuration) + [
                // The life a Kingfisher entry is stamped with; null where files carry no expiry.
                (
                    "expiresInSeconds",
                    (location.format as? any ExpiryStampingFormat).map { .int(Int($0.expiresIn)) } ?? .string(nil)
                )
            ],
            startedAt: startedAt, dryRun: configuration.dryRun, shard: configuration.shard)
        self.severalFormats = severalFormats
        self.copies = copies
    }

    /// The report's `options`: the settings that change what a run does, in the documented order
    /// (`docs/prefetch-report.schema.json`).
    static func recordedOptions(of configuration: PrefetchJob.Configuration) -> [(String, PrefetchReport.OptionValue)] {
        let fetch = configuration.fetch
        let slots = configuration.slots
        return [
            ("concurrency", concurrencyValue(slots.concurrency)),
            ("maxPerHost", .int(slots.maxPerHost)),
            ("maxRatePerHost", slots.maxRatePerHost > 0 ? .double(slots.maxRatePerHost) : .string(nil)),
            ("limitRate", fetch.limitRate > 0 ? .int(fetch.limitRate) : .string(nil)),
            ("order", .string(configuration.order.rawValue)),
            ("timeoutSeconds", .double(fetch.timeout)),
            ("maxTimeSeconds", .double(fetch.maxTime)),
            ("maxBytes", .int(fetch.maxBytes)),
            ("maxPixels", .int(configuration.validation.maxPixels)),
            ("maxRedirects", .int(fetch.maxRedirects)),
            ("validate", .string(configuration.validation.mode.rawValue)),
            ("maxDecodeMemory", .int(configuration.validation.maxDecodeMemory)),
            ("http1Only", .bool(fetch.http1Only)),
            ("insecure", .bool(fetch.insecure)),
            ("userAgent", .string(fetch.effectiveUserAgent)),
            // Header values can carry credentials: only their names are recorded.
            ("headers", .strings(fetch.headers.map { String($0.split(separator: ":", maxSplits: 1).first ?? "") })),
            ("retries", .int(configuration.retry.retries)),
            ("retryDelaySeconds", .double(configuration.retry.delay)),
            ("maxRetryWaitSeconds", .double(configuration.retry.maxWait)),
            ("retryFailed", .bool(configuration.retryFailed)),
            ("replayCredentials", .bool(configuration.fetch.replayCredentials)),
            ("offline", .bool(configuration.offline)),
            ("acceptSVG", .bool(configuration.validation.acceptSVG)),
            ("blacklistTTLSeconds", configuration.blacklistTTL.seconds.map { .double($0) } ?? .string(nil)),
            ("refresh", .bool(configuration.refresh)),
            ("lockTimeoutSeconds", .double(configuration.lockTimeout)),
            ("keyFilters", .strings(configuration.keyFilters.specs)),
            ("shard", .string(configuration.shard?.description)),
        ]
    }

    /// The report's `options.concurrency`: the string `auto` or the number.
    static func concurrencyValue(_ value: SlotPolicy.Configuration.Concurrency) -> PrefetchReport.OptionValue {
        switch value {
        case .auto: return .string("auto")
        case .fixed(let count): return .int(count)
        }
    }
}
