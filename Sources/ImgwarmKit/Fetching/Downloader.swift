import Curl
import ImgwarmSystem

/// Drives every transfer through one libcurl multi handle, from the one thread that owns it:
/// one connection cache, HTTP/2 multiplexing where the server offers it, no thread per download.
///
/// `start` hands it a URL; `completions()` returns what finished. Only `wakeup()` may be called
/// from other threads.
final class Downloader {
    let configuration: FetchConfiguration
    private let multi: CurlMulti
    private let headerList: [String]
    /// The default request headers, one list shared by every handle.
    private let sharedHeaders: CurlStringList
    private var idle: [Transfer] = []
    private var active: [ObjectIdentifier: Transfer] = [:]
    /// The options every handle of this run gets.
    private let options: CurlTransferOptions
    private let spillFolder: String
    private let spillPrefix: String

    /// `--limit-rate`'s bucket; nil without a limit.
    private let rateLimit: ByteRateLimit?
    /// Connections open now that carried an HTTP/2 answer, by name (`CurlEasy.connectionName`),
    /// with their host (`HostSlots.key`), and how many each host has: a connection leaves both
    /// when libcurl closes it, so `SlotPolicy` counts the connections that carry streams now.
    var multiplexedConnections: [String: String] = [:]
    var multiplexedPerHost: [String: Int] = [:]
    /// Hosts whose connection agreed on HTTP/2 in its handshake, not yet handed on.
    let multiplexingNotices = MultiplexingNotices()

    /// A downloader for at most `transfers` transfers at once and `connectionsPerHost`
    /// connections to one host (0: no cap): `SlotPolicy` decides both, and which transfers start.
    init(
        configuration: FetchConfiguration, transfers: Int = SlotPolicy.Configuration.autoTotal,
        connectionsPerHost: Int = 0, spillFolder: String, spillPrefix: String
    ) throws(CurlError) {
        var configuration = configuration
        let transfers = max(1, transfers)
        // Bodies in memory at once stay under about 256 MiB however many transfers run: past its
        // share, a body goes to its temporary file.
        configuration.memoryBodyLimit = min(configuration.memoryBodyLimit, max(256 << 10, (256 << 20) / transfers))
        self.configuration = configuration
        self.spillFolder = spillFolder
        self.spillPrefix = spillPrefix
        rateLimit = configuration.limitRate > 0 ? ByteRateLimit(bytesPerSecond: configuration.limitRate) : nil
        multi = try CurlMulti(
            multiplexing: true, maxConnections: max(16, transfers * 2), maxHostConnections: connectionsPerHost,
            maxStreams: SlotPolicy.Configuration.streamsPerConnection)
        options = Downloader.options(configuration)
        headerList = configuration.requestHeaders
        sharedHeaders = CurlStringList(headerList)
        // One handle is set up now, so an option this libcurl refuses ends the run before any
        // download (a `.optionRefused` CurlError naming it), not each transfer.
        let first = Transfer(
            easy: try CurlEasy(), entry: PendingEntry(line: 0, input: 0, url: "", priority: .normal),
            configuration: configuration,
            spillFolder: spillFolder, spillPrefix: spillPrefix)
        multi.connectionWatch.onClose = { [weak self] name in self?.connectionClosed(name) }
        try configure(first)
        idle.append(first)
    }

    var inFlight: Int { active.count }

    /// Wakes a `poll` in progress (thread-safe).
    func wakeup() { multi.wakeup() }

    /// `multi.wakeup()`, the one libcurl call allowed from any thread (`CurlMulti` is `Sendable`).
    var waker: @Sendable () -> Void { { [multi] in multi.wakeup() } }

    /// Conditional-request validators for `--refresh`.
    struct Validators: Sendable, Equatable {
        var etag: String?
        var lastModified: String?
    }

    /// Starts downloading `entry.url`.
    func start(_ entry: PendingEntry, validators: Validators? = nil) throws(CurlError) {
        let transfer: Transfer
        if let reused = idle.popLast() {
            // A handle keeps its options between transfers: only what differs is set again.
            reused.prepare(for: entry)
            transfer = reused
        } else {
            transfer = Transfer(
                easy: try CurlEasy(), entry: entry, configuration: configuration, spillFolder: spillFolder,
                spillPrefix: spillPrefix)
            try configure(transfer)
        }
        try transfer.easy.setURL(entry.url)
        // Waiting for a connection that may multiplex only pays where HTTP/2 can be negotiated,
        // over TLS: for plain http:// it would hold transfers back behind the first connection.
        let wait = !configuration.http1Only && Downloader.isHTTPS(entry.url)
        if transfer.waitsForMultiplexing != wait {
            try transfer.easy.setWaitForMultiplexing(wait)
            transfer.waitsForMultiplexing = wait
        }
        // Validators come from the state database, which an older version may have filled with
        // values the header parser now drops: they are checked again before they are sent.
        let etag = validators?.etag.flatMap { ResponseHeaders.isSafeValidator($0) ? $0 : nil }
        let lastModified = validators?.lastModified.flatMap { ResponseHeaders.isSafeValidator($0) ? $0 : nil }
        if etag != nil || lastModified != nil || !entry.headers.isEmpty {
            var headers = entry.headers.isEmpty ? headerList : configuration.requestHeaders(recorded: entry.headers)
            if let etag { headers.append("If-None-Match: \(etag)") }
            if let lastModified { headers.append("If-Modified-Since: \(lastModified)") }
            try transfer.easy.setHeaders(headers)
            transfer.hasOwnHeaders = true
        } else if transfer.hasOwnHeaders {
            try transfer.easy.setHeaders(sharedHeaders)
            transfer.hasOwnHeaders = false
        }
        transfer.startedAt = Monotonic.now()
        transfer.resetActivityClock()
        try multi.add(transfer.easy)
        active[ObjectIdentifier(transfer.easy)] = transfer
    }

    static func isHTTPS(_ url: String) -> Bool {
        let scheme = url.utf8.prefix(6)
        return scheme.count == 6 && zip(scheme, "https:".utf8).allSatisfy { $0 | 0x20 == $1 || $0 == $1 }
    }

    /// The libcurl options that stay the same for every transfer of this run.
    static func options(_ c: FetchConfiguration) -> CurlTransferOptions {
        var options = CurlTransferOptions()
        options.protocols = "http,https"  // requests and redirects alike
        options.maxRedirects = c.maxRedirects
        options.connectTimeoutMilliseconds = Int(c.timeout * 1000)
        // "No byte for `timeout` seconds" is the progress callback's job (Transfer.progress): it
        // compares byte counts and a clock on every pass. libcurl's low-speed check averages the
        // speed over its window, so after a burst it notices a stall only seconds late; it stays,
        // a second later than the callback, as a backstop.
        options.lowSpeed = (bytesPerSecond: 1, seconds: max(1, Int(c.timeout.rounded(.up))) + 1)
        options.totalTimeoutMilliseconds = c.maxTime > 0 ? Int(c.maxTime * 1000) : nil
        options.maxBodySize = Int64(c.maxBytes)
        // Every encoding libcurl can decode, bytes stored decoded; with a profile, its own
        // `Accept-Encoding` header (requestHeaders) and the bytes stored as received.
        options.acceptEncoding = c.profile == nil ? "" : nil
        options.keepsCertificates = c.profile != nil
        options.httpVersion = c.http1Only ? .http1 : .http2OverTLS
        options.waitForMultiplexing = true  // then per transfer (start)
        options.userAgent = c.effectiveUserAgent
        options.receiveBufferSize = 64 * 1024
        options.certificateAuthorities = c.caCertificates
        options.verifyTLS = !c.insecure
        options.netrcFile = c.netrcFile
        options.proxy = c.proxy
        options.noProxy = c.noProxy
        return options
    }

    /// Sets the options that stay the same for every transfer of this run.
    private func configure(_ transfer: Transfer) throws(CurlError) {
        transfer.rateLimit = rateLimit
        transfer.multiplexingNotices = multiplexingNotices
        try transfer.easy.apply(options)
        try transfer.easy.setHeaders(sharedHeaders)
        try transfer.easy.setDelegate(transfer)
        try transfer.easy.reportClosing(to: multi.connectionWatch)
    }

    /// Lets libcurl do what it can now, after resuming the transfers `--limit-rate` paused, as
    /// far as its balance allows.
    func perform() {
        if let rateLimit {
            let now = Monotonic.now()
            var tries = rateLimit.paused.count
            while tries > 0, let transfer = rateLimit.nextToResume(now: now) {
                tries -= 1
                transfer.paused = false
                transfer.easy.resumeReceiving()
            }
        }
        multi.perform()
    }

    /// When transfers paused by `--limit-rate` may go on (monotonic seconds), if any wait.
    var resumeDue: Double? { rateLimit?.resumeDue }

    /// How often `--limit-rate` paused a transfer.
    var ratePauses: Int { rateLimit?.pauses ?? 0 }

    /// Waits for network activity, `wakeup()`, `milliseconds`, or `stop` readable.
    func poll(milliseconds: Int, stop: FileDescriptor? = nil) {
        multi.poll(timeoutMilliseconds: milliseconds, extraDescriptor: stop?.rawValue)
    }

    /// What a finished transfer produced.
    struct Finished {
        var entry: PendingEntry
        var result: Result<Body, Failure>
        /// The final response's head (its `Retry-After` with a failure, its validators with a body).
        var headers: ResponseHeaders
        var httpStatus: Int?
        var duration: Double
        /// Monotonic time the transfer started.
        var startedAt = 0.0
        /// Seconds from the latest request going out to the end (nil when none went out): what
        /// the host's latency is measured on, without connecting or waiting for a connection.
        var latency: Double?
        /// The response came over HTTP/2 (or later): its host multiplexes.
        var multiplexed: Bool { headers.multiplexed }
        /// The transfer opened its connection: its latency has the new connection's TCP slow
        /// start in it (a 27 KB body takes two round trips on a fresh connection, one on a warm one).
        var freshConnection = false
        /// The connections to its host open now that carried an HTTP/2 answer.
        var multiplexedConnections = 0
        /// Writing the body to its temporary file failed because the disk is full.
        var diskFull = false
        /// The proxy could not be reached, or the request did not go through it, in words naming
        /// it (never its password): the run stops.
        var proxyHalt: String?
    }

    /// A 2xx (or 304) response body: in memory, or in a temporary file of `spillFolder`.
    struct Body {
        var bytes: [UInt8]
        var spillName: String?
        var count: Int
        var status: Int
    }

    /// Every transfer that finished since the last call; their handles go back to the pool.
    func completions() -> [Finished] {
        var finished: [Finished] = []
        while let completion = multi.nextCompletion() {
            guard let transfer = active.removeValue(forKey: ObjectIdentifier(completion.easy)) else { continue }
            multi.remove(transfer.easy)
            if transfer.paused {
                transfer.paused = false
                rateLimit?.forget(transfer)
            }
            finished.append(finish(transfer, error: completion.error))
            transfer.body = []
            idle.append(transfer)
        }
        return finished
    }

    /// Aborts every transfer in flight (interruption); returns their entries.
    func abortAll() -> [PendingEntry] {
        var entries: [PendingEntry] = []
        for (_, transfer) in active {
            multi.remove(transfer.easy)
            transfer.discardSpill()
            if transfer.paused { rateLimit?.forget(transfer) }
            entries.append(transfer.entry)
        }
        active.removeAll()
        return entries
    }

    private func finish(_ transfer: Transfer, error: CurlError?) -> Finished {
        let status = transfer.easy.responseCode
        let now = Monotonic.now()
        let duration = now - transfer.startedAt
        var finished = Finished(
            entry: transfer.entry, result: .failure(Failure(.transferFailed, "")), headers: transfer.headers,
            httpStatus: status == 0 ? nil : status, duration: duration, startedAt: transfer.startedAt,
            latency: transfer.requestSentAt > 0 ? now - transfer.requestSentAt : nil,
            freshConnection: transfer.easy.newConnections > 0,
            multiplexedConnections: multiplexedConnectionCount(transfer))
        let spillError = transfer.finishSpill()
        if status != 0, let bypass = proxyBypass(transfer) {
            transfer.discardSpill()
            finished.proxyHalt = bypass
            finished.result = .failure(Failure(.proxyFailed, bypass, httpStatus: status))
            return finished
        }
        if let first = transfer.headers.contentLength, let other = transfer.headers.conflictingLength {
            // Whatever libcurl made of it (it keeps the last length): the body cannot be trusted.
            transfer.discardSpill()
            finished.result = .failure(
                Failure(
                    .badResponse,
                    "the answer is not a valid HTTP response: two different Content-Length values (\(first) and \(other))",
                    httpStatus: finished.httpStatus))
            return finished
        }
        if error == nil && spillError == nil && ((200...299).contains(status) || status == 304) {
            if status != 304 && transfer.received == 0 {
                transfer.discardSpill()
                finished.result = .failure(
                    Failure(.emptyBody, "the server answered \(status) with an empty body", httpStatus: status))
            } else {
                finished.result = .success(
                    Body(bytes: transfer.body, spillName: transfer.spillName, count: transfer.received, status: status))
            }
            return finished
        }
        transfer.discardSpill()
        finished.diskFull = (spillError ?? transfer.writeError)?.isDiskFull ?? false
        let proxy = configuration.proxy(for: transfer.entry.url)
        if let error, let proxy, let (failure, unreachable) = proxyFailure(error, transfer: transfer, proxy: proxy) {
            finished.result = .failure(failure)
            finished.proxyHalt = unreachable
        } else if let error {
            var failure = classify(error, transfer: transfer, duration: duration, proxy: proxy)
            failure.throughProxy = proxy != nil
            finished.result = .failure(failure)
        } else if let spillError {
            finished.result = .failure(
                Failure(.writeFailed, "cannot write the download: \(spillError)", httpStatus: status))
        } else {
            finished.result = .failure(statusFailure(status, proxy: proxy))
        }
        return finished
    }

    /// What a libcurl failure means for this URL.
    private func classify(_ error: CurlError, transfer: Transfer, duration: Double, proxy: CurlProxy?) -> Failure {
        let status = transfer.easy.responseCode
        let httpStatus = status == 0 ? nil : status
        let detail = error.message
        let c = configuration
        if transfer.discarding {
            // The answer was not 2xx and its body was being dropped: the status is what counts.
            return statusFailure(status, proxy: proxy)
        }
        switch error.kind {
        case .writeRefused:
            if transfer.tooLarge {
                return Failure(
                    .tooLarge, "the body is larger than \(Setting.maxBytes) (\(c.maxBytes) bytes) after decoding",
                    httpStatus: httpStatus)
            }
            if let writeError = transfer.writeError {
                return Failure(.writeFailed, "cannot write the download: \(writeError)", httpStatus: httpStatus)
            }
            return Failure(.transferFailed, detail, httpStatus: httpStatus)
        case .fileTooLarge:
            return Failure(
                .tooLarge, "the server announced a body larger than \(Setting.maxBytes) (\(c.maxBytes) bytes)",
                httpStatus: httpStatus)
        case .timedOut:
            if c.maxTime > 0 && duration >= c.maxTime - 0.05 {
                return Failure(
                    .timeout,
                    "the transfer took longer than \(Setting.maxTime) (\(Quantities.formatDecimal(c.maxTime, digits: 1)) s)",
                    httpStatus: httpStatus)
            }
            return Failure(
                .timeout,
                "no data for \(Quantities.formatDecimal(c.timeout, digits: 1)) s (\(Setting.timeout)): \(detail)",
                httpStatus: httpStatus)
        case .abortedByCallback where transfer.stalled:
            return Failure(
                .timeout, "no data for \(Quantities.formatDecimal(c.timeout, digits: 1)) s (\(Setting.timeout))",
                httpStatus: httpStatus)
        case .couldNotResolve, .couldNotResolveProxy:
            return Failure(.dns, detail)
        case .couldNotConnect:
            return Failure(.connectFailed, detail)
        case .receiveFailed where detail.contains("Too large response headers"):
            return Failure(
                .tooLarge, "the response headers are larger than libcurl accepts: \(detail)", httpStatus: httpStatus)
        case .gotNothing, .sendFailed, .receiveFailed, .http2:
            return Failure(.connectionLost, "the connection was lost: \(detail)", httpStatus: httpStatus)
        case .partialFile:
            return Failure(.truncated, "the body ended before its Content-Length: \(detail)", httpStatus: httpStatus)
        case .outOfMemory where transfer.received == 0 && transfer.discarded == 0:
            // libcurl's header buffer refused a line (100 KiB at most) before any body byte.
            return Failure(
                .tooLarge, "a response header is larger than libcurl accepts (100 KiB a line, 300 KiB in all)",
                httpStatus: httpStatus)
        case .unsupportedProtocol:
            // libcurl says this both for a redirect to a refused scheme and for an answer that is
            // not HTTP/1.x (HTTP/0.9, a garbage status line): only a Location tells them apart.
            if let scheme = transfer.headers.locationScheme, scheme != "http" && scheme != "https" {
                return Failure(
                    .redirectNotAllowed, "redirected to a \(scheme): URL; only http and https are followed",
                    httpStatus: httpStatus)
            }
            return Failure(.badResponse, "the answer is not a valid HTTP response: \(detail)", httpStatus: httpStatus)
        case .weirdServerReply:
            return Failure(.badResponse, "the answer is not a valid HTTP response: \(detail)", httpStatus: httpStatus)
        case .tooManyRedirects:
            return Failure(
                .tooManyRedirects, "more than \(c.maxRedirects) redirects (\(Setting.maxRedirects))",
                httpStatus: httpStatus)
        case .tls:
            return Failure(.tls, "TLS: \(detail)")
        case .badContentEncoding:
            return Failure(
                .decodingFailed, "the Content-Encoding could not be decoded: \(detail)", httpStatus: httpStatus)
        case .malformedURL:
            return Failure(.invalidURL, detail)
        case .abortedByCallback, .outOfMemory, .optionRefused, .proxy, .other:
            return Failure(.transferFailed, detail, httpStatus: httpStatus)
        }
    }
}
