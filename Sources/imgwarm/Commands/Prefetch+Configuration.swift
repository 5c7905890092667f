import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// From `imgwarm prefetch`'s flags to the engine's configuration: the flags are checked
/// (`validate`), and an option left out keeps the engine's default (`PrefetchJob.Configuration`),
/// which is where every default is defined.
extension Prefetch {
    func listSources() -> [ListSource] {
        let format = listFormat.format ?? .auto
        var sources = lists.map { ListSource(path: $0, format: format, priority: priority ?? .normal) }
        sources += highLists.map { ListSource(path: $0, format: format, priority: .high) }
        sources += lowLists.map { ListSource(path: $0, format: format, priority: .low) }
        return sources
    }

    func configuration(environment: [String: String]) throws -> PrefetchJob.Configuration {
        var configuration = PrefetchJob.Configuration()
        configuration.slots.concurrency = concurrency ?? configuration.slots.concurrency
        configuration.slots.maxPerHost = maxPerHost ?? configuration.slots.maxPerHost
        rates.apply(to: &configuration)
        configuration.fetch.timeout = timeout ?? configuration.fetch.timeout
        configuration.fetch.maxTime = maxTime ?? configuration.fetch.maxTime
        configuration.fetch.maxBytes = maxBytes.map { Int(clamping: $0) } ?? configuration.fetch.maxBytes
        configuration.fetch.maxRedirects = maxRedirects ?? configuration.fetch.maxRedirects
        configuration.fetch.headers = headers
        configuration.fetch.userAgent = userAgent ?? configuration.fetch.userAgent
        configuration.fetch.http1Only = http11
        configuration.fetch.caCertificates = cacert
        configuration.fetch.proxy = proxy
        configuration.fetch.noProxy = noproxy
        configuration.fetch.proxyEnvironment = ProxyEnvironment(environment: environment)
        try checkEnvironmentProxies(configuration.fetch)
        configuration.fetch.insecure = insecure
        if netrc, let home = environment["HOME"] {
            configuration.fetch.netrcFile = home + "/.netrc"
        } else {
            configuration.fetch.netrcFile =
                netrcFile ?? environment["IMGWARM_NETRC_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        }
        try checkReadable(cacert, option: "--cacert")
        if let cacert, let problem = FetchConfiguration.certificateAuthoritiesProblem(file: cacert) {
            throw CommandFailure.usage(
                "--cacert \(cacert): libcurl cannot load certificate authorities from it (PEM certificates, each block valid): \(problem)"
            )
        }
        // The spools of the lists' pending URLs go to $TMPDIR: a folder that is not there is the
        // environment's mistake, said before any work (it read "cache unusable", exit 3).
        if (try? FileSystem.status(ofPath: configuration.spoolFolder))?.kind != .directory {
            let variable = environment["TMPDIR"].map { "TMPDIR=\($0)" } ?? configuration.spoolFolder
            throw CommandFailure.usage(
                "\(variable): no such folder; imgwarm keeps the pending URLs of the lists in temporary files there")
        }
        try checkReadable(configuration.fetch.netrcFile, option: "--netrc-file")
        if let netrc = configuration.fetch.netrcFile {
            do {
                try NetrcFile.check(path: netrc)
            } catch {
                throw CommandFailure.usage("netrc file \(error.description)")
            }
        }
        configuration.validation.mode = validation ?? configuration.validation.mode
        configuration.validation.acceptSVG = acceptSVG.acceptSVG
        configuration.validation.maxPixels = maxPixels ?? configuration.validation.maxPixels
        configuration.validation.maxDecodeMemory =
            maxDecodeMemory.map { Int(clamping: $0) } ?? configuration.validation.maxDecodeMemory
        configuration.order = order ?? configuration.order
        configuration.dryRun = dryRun
        configuration.retry.retries = retries ?? configuration.retry.retries
        configuration.retry.delay = retryDelay ?? configuration.retry.delay
        configuration.retry.maxWait = maxRetryWait ?? configuration.retry.maxWait
        configuration.retryFailed = retryFailed
        configuration.fetch.replayCredentials = replayCredentials
        configuration.blacklistTTL = blacklistTTL ?? configuration.blacklistTTL
        configuration.refresh = refresh
        configuration.statePath = stateOptions.state
        configuration.lockTimeout = stateOptions.lockTimeout
        configuration.keyFilters = keyOptions.chain
        configuration.shard = try shardOptions.shard(environment: environment)
        configuration.fileRules = filesRoot.rules
        configuration.offline = offline.offline
        return configuration
    }

    /// The usage errors argument-parser reports before `run`: values out of range and options that
    /// contradict each other. Options the format does not take are `run`'s first check
    /// (`formatPolicy`, resolved once: its result is what the run uses).
    func validate() throws {
        if lists.isEmpty && highLists.isEmpty && lowLists.isEmpty {
            throw ValidationError("give at least one list file, or - to read standard input")
        }
        if (lists + highLists + lowLists).filter({ $0 == "-" }).count > 1 {
            throw ValidationError("standard input (-) can be read only once")
        }
        if let maxPerHost, !(1...256).contains(maxPerHost) {
            throw ValidationError("--max-per-host must be between 1 and 256, e.g. 16")
        }
        if maxPerHost != nil, case .fixed = concurrency {
            throw ValidationError(
                "--max-per-host applies to --concurrency auto only; a number is the total whatever the hosts")
        }
        if let maxRedirects, !(0...100).contains(maxRedirects) {
            throw ValidationError("--max-redirects must be between 0 and 100, e.g. 5")
        }
        if let retries, !(0...100).contains(retries) {
            throw ValidationError("--retries must be between 0 and 100, e.g. 3")
        }
        if maxBytes == 0 { throw ValidationError("--max-bytes must be above 0, e.g. 50MiB") }
        // Checked here, not in a transform: argument-parser would print the value, password and all.
        if let proxy { try Parse.checkProxy(proxy) }
        if maxDecodeMemory == 0 { throw ValidationError("--max-decode-memory must be above 0, e.g. 100MiB") }
        if timeout == 0 { throw ValidationError("--timeout must be above 0, e.g. 15") }
        if netrc && netrcFile != nil { throw ValidationError("--netrc and --netrc-file name two netrc files: use one") }
    }

    /// The options that only some formats take, resolved for `format` by the engine
    /// (`PrefetchOptions.policy(for:)`) once, before anything else of the run; one the format
    /// does not take is a usage error (exit 2), worded as `run`'s other usage errors are.
    func formatPolicy(for format: any CacheFormat) throws(CommandFailure) -> PrefetchPolicy {
        try formatPolicies(for: [format])[0]
    }

    /// `formatPolicy` of each of several formats (`PrefetchOptions.policies(for:)`).
    func formatPolicies(for formats: [any CacheFormat]) throws(CommandFailure) -> [PrefetchPolicy] {
        do {
            return try PrefetchOptions(maxSize: maxSize, expiresIn: expiresIn, freshness: freshness).policies(
                for: formats)
        } catch {
            throw CommandFailure.usage(Self.message(error))
        }
    }

    /// `error` in the words of the command line.
    static func message(_ error: PrefetchOptionError) -> String {
        switch error {
        case .expiryNotPositive:
            return "--expires-in must be a positive age such as 7d or 12h (Kingfisher would not store the file)"
        case .freshnessNotPositive:
            return "--freshness must be a positive age such as 7d or max-age=86400"
        case .notApplicable(let option):
            let formats = option.appliesTo.joined(separator: ", ")
            switch option.setting {
            case .maxSize:
                return
                    "--max-size on prefetch applies to the caches the app trims to a size limit on its own (\(formats)), not to \(option.format); imgwarm clean --max-size trims a cache"
            case .freshness:
                return
                    "--freshness applies to the caches that keep the response's caching headers (\(formats)), not to \(option.format)"
            case .expiresIn:
                return
                    "--expires-in applies to the caches whose files carry their expiry date (\(formats)), not to \(option.format)"
            default:
                return "\(SettingFlags.flag(for: option.setting)) applies to \(formats), not to \(option.format)"
            }
        }
    }

    private func checkReadable(_ path: String?, option: String) throws {
        guard let path else { return }
        do throws(SystemError) {
            try FileSystem.checkReadable(path)
        } catch {
            throw CommandFailure.usage("\(option) \(path): \(error.message)")
        }
        // libcurl reads these files for every transfer: a FIFO or a device would block the run
        // (and the stop signals, handled from the first instruction, would not end the wait).
        if let status = try? FileSystem.status(ofPath: path), status.kind != .file {
            throw CommandFailure.usage("\(option) \(path): not a regular file")
        }
    }

    /// The environment's proxies are used by libcurl where `--proxy` is left out (and `--noproxy`
    /// is not `*`): one libcurl would drop without a word (`%00` in its password) is a usage
    /// error naming the variable, never its value.
    private func checkEnvironmentProxies(_ fetch: FetchConfiguration) throws {
        guard fetch.proxy == nil, (fetch.noProxy ?? fetch.proxyEnvironment.noProxy) != "*" else { return }
        for variable in fetch.proxyEnvironment.proxies {
            if let problem = FetchConfiguration.proxyProblem(variable.value) {
                throw CommandFailure.usage("invalid proxy in \(variable.name): \(problem)")
            }
        }
    }
}
