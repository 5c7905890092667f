import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// From `imgwarm prefetch`'s flags to the engine's configuration: an option left out keeps the
/// engine's default (`PrefetchJob.Configuration`), which is where every default is defined.
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
        configuration.validation.maxPixels = maxPixels ?? configuration.validation.maxPixels
        configuration.validation.maxDecodeMemory =
            maxDecodeMemory.map { Int(clamping: $0) } ?? configuration.validation.maxDecodeMemory
        configuration.order = order ?? configuration.order
        configuration.dryRun = dryRun
        configuration.retry.retries = retries ?? configuration.retry.retries
        configuration.retry.delay = retryDelay ?? configuration.retry.delay
        configuration.retry.maxWait = maxRetryWait ?? configuration.retry.maxWait
        configuration.retryFailed = retryFailed
        configuration.blacklistTTL = blacklistTTL ?? configuration.blacklistTTL
        configuration.refresh = refresh
        configuration.statePath = stateOptions.state
        configuration.lockTimeout = stateOptions.lockTimeout
        configuration.keyFilters = keyOptions.chain
        configuration.shard = shardOptions.shard
        configuration.maxSize = maxSize
        return configuration
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
