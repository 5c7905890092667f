/// Who may start a transfer now: the one owner of `--concurrency`, `--max-per-host` and
/// `--max-rate-per-host` (docs/usage.md, "How many transfers"). The `Scheduler` asks it before
/// it hands out a URL and tells it what each transfer's end showed; the `Downloader` only
/// carries transfers out, with the connection caps `connectionsPerHost` and `maxInFlight` it
/// is given from here.
///
/// Per host: the transfers in flight, its limit (`AdaptiveLimit` under `.auto`; none under a
/// number, which counts all hosts together), its circuit breaker (`HostBreaker`, either way),
/// its request pacing (`RequestPacer`), and the figures the report shows.
public final class SlotPolicy {
    /// How many transfers run, and how fast requests start.
    public struct Configuration: Sendable {
        /// How many transfers run at once.
        public enum Concurrency: Sendable, Equatable {
            /// Each host's own limit, learnt from its latency and rate (`AdaptiveLimit`): from
            /// `initialPerHost` up to `maxPerHost` connections to an HTTP/1.1 host, and up to
            /// `autoStreamsPerHost` streams to a host that answered over HTTP/2
            /// (`streamsPerConnection` per connection, fewer when the server's
            /// SETTINGS_MAX_CONCURRENT_STREAMS says so: libcurl honours it, on at most
            /// `maxPerHost` connections); `autoTotal` in all.
            case auto
            /// This many transfers in flight, whatever their hosts; no adapting.
            case fixed(Int)
        }

        /// `.auto` by default. (SDWebImage's `maxConcurrentDownloads` is 6: an app shares its
        /// network with the user; a cache warmer has the link to itself.)
        public var concurrency = Concurrency.auto
        /// With `.auto`, the ceiling of a host's limit: the most connections to one host
        /// (HTTP/1.1 needs one per transfer). 2,000 images from a server 40 ms away took 2.03 s
        /// with 64, 1.33 s with 128 (curl's 50: 2.12 s); the limit reaches 128 within half a
        /// second there, latency flat, and a small origin still gets 5 to 7 (docs/performance.md,
        /// "Adaptive concurrency"). `128` by default.
        public var maxPerHost = 128
        /// Requests started per second to one host, at most; `0` for no limit. `0` by default.
        public var maxRatePerHost = 0.0
        /// A host's first limit under `.auto`: SDWebImage's `maxConcurrentDownloads`.
        public static let initialPerHost = 6
        /// The most streams on one HTTP/2 connection (libcurl's `CURLMOPT_MAX_CONCURRENT_STREAMS`;
        /// a server's own lower limit wins): the cap, and libcurl's default.
        public static let streamsPerConnection = 100
        /// With `.auto`, a host's limit once it is known to multiplex (its first connection agreed
        /// on HTTP/2 in the TLS handshake, or its first answer came over HTTP/2): the most streams
        /// at once, `autoStreamsPerHost`. The first connection carries `streamsPerConnection` of
        /// them (libcurl 7.88 does not say what the server's SETTINGS_MAX_CONCURRENT_STREAMS is,
        /// typically 100 to 256, nginx 128, and caps a connection at that itself); the transfer
        /// past them opens the second connection at once, as under `--concurrency 200`
        /// (`Host.allowed`). Starting at one connection's streams and growing to two took 3 round
        /// trips more at 40 ms (1.82 s for 2,000 images, `--concurrency 200` 1.63 s); from there
        /// the limit backs off on the same signals as any host's.
        public static let multiplexedStart = autoStreamsPerHost
        /// With `.auto`, the most HTTP/2 streams to one host: two connections' worth. One
        /// connection's 100 streams of a typical 27 KB image hold 2.7 MB in flight, less than a
        /// 100 MB/s link 40 ms away carries per round trip (4 MB), so the link idles between
        /// rounds; with two it stays full (docs/performance.md, "Latency").
        public static let autoStreamsPerHost = 2 * streamsPerConnection
        /// With `.auto`, the most transfers in flight over all hosts.
        public static let autoTotal = 256
        /// Rounds of connection failures or timeouts in a row, with no response between, that
        /// make a host unavailable for the run (`HostBreaker`: failures in flight together are one
        /// round), under `.auto` and a number alike.
        public static let breakerThreshold = 5
        /// Rounds of `429`/`503` answers in a row, with no other answer between, that make a host
        /// unavailable for the run (`HostBreaker`). Twice `breakerThreshold`: a busy answer comes
        /// at once, so its round lasts a round trip, not a timeout, and a server shedding a burst
        /// gets twice the rounds to recover; under `.auto` it still costs at most 17 requests
        /// (rounds of 6, 3, then one at a time as the limit halves), where each URL used to make
        /// 1 + `--retries` of its own.
        public static let busyBreakerThreshold = 10

        public init() {}

        /// The most transfers in flight at once, all hosts together.
        public var maxInFlight: Int {
            switch concurrency {
            case .auto: return Configuration.autoTotal
            case .fixed(let count): return max(1, count)
            }
        }
    }

    /// What a transfer's end showed about its host.
    struct Completion {
        enum Kind: Equatable {
            /// A response with this status arrived (whatever became of its body).
            case response(status: Int)
            /// The connection failed, was lost or timed out; `answered` when a status had arrived.
            case connectionFailure(message: String, answered: Bool)
            /// Anything else (a TLS error, a refused redirect): says nothing about load.
            case other
        }
        var kind: Kind
        /// Seconds from the request going out to the end, for a 2xx or 304 response.
        var latency: Double?
        /// Monotonic time the transfer started.
        var startedAt: Double
        /// The response came over HTTP/2 or later.
        var multiplexed = false
        /// The transfer opened its connection: its latency goes into the figures, not into the
        /// limit (TCP's slow start on a new connection is not the server's queue).
        var freshConnection = false
        /// The connections to the host open now that have carried an HTTP/2 answer, when the
        /// downloader counts them (it hears each close): a server that closes a connection after
        /// so many requests does not leave a connection counted that no longer carries streams.
        var multiplexedConnections: Int?
    }

    /// What the run should hear of.
    enum Event: Equatable {
        /// A host's limit moved by half or more since it was last told.
        case limitChanged(HostLimitChange)
        /// A host's breaker opened: its URLs end as `host-unavailable`; `reason` says why, in
        /// words (`HostBreaker.Trip.reason`).
        case unavailable(host: String, reason: String)
    }

    private struct Host {
        var inFlight = 0
        var multiplexes = false
        /// An https host may turn out to multiplex: until its first answer says which, at most
        /// one connection's streams go (libcurl's `PIPEWAIT` has them wait for its first
        /// connection; past that connection's streams it would open one for each).
        var mayMultiplex = false
        /// A response came: whether the host multiplexes is known.
        var answered = false
        /// Connections known to carry its streams: those open now that carried an HTTP/2 answer
        /// (`Completion.multiplexedConnections`), else 1 once it multiplexes, and one more for
        /// each multiplexed answer on a connection its request opened.
        var connections = 0
        var limit: AdaptiveLimit?
        var breaker = HostBreaker()
        var pacer: RequestPacer?
        var requests = 0
        var latencies = LatencyHistogram()
        /// The limit last told to the run (the start value at first).
        var toldLimit = 0

        /// Transfers `limit` lets run. A multiplexing host's streams past what its known
        /// connections carry start one at a time, until the connection that one opened has
        /// answered: libcurl 7.88 opens a connection for every transfer past a full connection's
        /// streams, `CURLOPT_PIPEWAIT` or not. The limit doubling from 96 to 192 on loopback
        /// opened about 90 TLS connections at once, and their handshakes held every answer back
        /// for 80 ms (docs/performance.md, "Adaptive concurrency").
        ///
        /// The same holds under a number (`.fixed`, no limit of its own): `--concurrency 200` to one
        /// HTTP/2 host opened 100 connections, one for each transfer past the first connection's
        /// 100 streams.
        func allowed(under limit: AdaptiveLimit?) -> Int {
            let own = limit?.allowed ?? Int.max
            if multiplexes {
                return min(own, max(1, connections) * Configuration.streamsPerConnection + 1)
            }
            if mayMultiplex && !answered { return min(own, Configuration.streamsPerConnection) }
            return own
        }
    }

    /// Hosts remembered at most: past this many, a host is forgotten (its limit, its figures)
    /// as soon as it has nothing in flight, unless it is unavailable, so that memory does not
    /// grow with a list of a million hosts. The report lists the hosts remembered.
    static let hostLimit = 10_000

    let configuration: Configuration
    let maxInFlight: Int
    private(set) var inFlight = 0
    private var hosts: [String: Host] = [:]

    init(_ configuration: Configuration) {
        self.configuration = configuration
        maxInFlight = configuration.maxInFlight
    }

    var isAdaptive: Bool { configuration.concurrency == .auto }

    /// libcurl's cap on connections to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`): the ceiling
    /// of the adaptive limit over HTTP/1.1; none under a number (which caps all hosts together).
    var connectionsPerHost: Int { isAdaptive ? max(1, configuration.maxPerHost) : 0 }

    /// True while another transfer may start: fewer than `maxInFlight` run, and fewer than
    /// twice that (at most 64) bodies wait for validation in memory.
    func hasRoom(validating: Int) -> Bool {
        inFlight < maxInFlight && validating < min(maxInFlight * 2, 64)
    }

    /// True when a URL of `key` may start at monotonic `now`: its host has room under its limit
    /// and its pacing. A host found unavailable always has: its URLs go out to be ended.
    func hostHasRoom(_ key: String, now: Double) -> Bool {
        guard let host = hosts[key] else { return true }
        if host.breaker.isOpen { return true }
        if let pacer = host.pacer, !pacer.mayStart(now: now) { return false }
        return host.inFlight < host.allowed(under: host.limit)
    }

    /// When `key`'s pacing lets its next request start, if it is paced and not yet due.
    func pacedStart(_ key: String, now: Double) -> Double? {
        guard let pacer = hosts[key]?.pacer, !pacer.mayStart(now: now) else { return nil }
        return pacer.nextStart
    }

    /// Why `key`'s URLs end without a request, when its breaker opened.
    func unavailability(_ key: String) -> HostBreaker.Trip? { hosts[key]?.breaker.trip }

    /// A transfer to `key` started at `now`.
    func started(_ key: String, now: Double) {
        var host = hosts[key] ?? newHost(key)
        host.inFlight += 1
        host.requests += 1
        host.limit?.started(inFlight: host.inFlight, now: now)
        host.pacer?.started(now: now)
        hosts[key] = host
        inFlight += 1
    }

    private func newHost(_ key: String) -> Host {
        var host = Host()
        host.mayMultiplex = key.utf8.starts(with: "https:".utf8)
        if isAdaptive {
            var parameters = AdaptiveLimit.Parameters()
            parameters.initial = Double(Configuration.initialPerHost)
            parameters.ceiling = Double(max(1, configuration.maxPerHost))
            host.limit = AdaptiveLimit(parameters)
            host.toldLimit = host.limit?.allowed ?? 0
        }
        host.pacer = RequestPacer(perSecond: configuration.maxRatePerHost)
        return host
    }

    /// A transfer to `key` ended at `now`, showing `completion`; returns what the run should hear.
    func finished(_ key: String, _ completion: Completion, now: Double) -> [Event] {
        inFlight = max(0, inFlight - 1)
        guard var host = hosts[key] else { return [] }
        host.inFlight = max(0, host.inFlight - 1)
        var cause: AdaptiveLimit.Cause?
        if completion.multiplexed {
            if !host.multiplexes { cause = startMultiplexing(&host, latency: completion.latency, now: now) }
            if let live = completion.multiplexedConnections {
                host.connections = max(1, live)
            } else {
                host.connections = max(1, host.connections + (completion.freshConnection ? 1 : 0))
            }
        }
        var events: [Event] = []
        switch completion.kind {
        case .response(let status):
            host.answered = true
            if host.breaker.responded(status: status, startedAt: completion.startedAt, now: now),
                let trip = host.breaker.trip
            {
                events.append(.unavailable(host: key, reason: trip.reason))
            }
            if status == 429 || status == 503 {
                cause = host.limit?.overloaded(.overloaded, startedAt: completion.startedAt, now: now) ?? cause
            } else if let latency = completion.latency {
                host.latencies.add(latency)
                cause =
                    host.limit?.completed(latency: latency, freshConnection: completion.freshConnection, now: now)
                    ?? cause
            }
        case .connectionFailure(let message, let answered):
            cause = host.limit?.overloaded(.connection, startedAt: completion.startedAt, now: now) ?? cause
            if !answered && host.breaker.connectionFailed(startedAt: completion.startedAt, now: now, message: message),
                let trip = host.breaker.trip
            {
                events.append(.unavailable(host: key, reason: trip.reason))
            }
        case .other:
            break
        }
        events += limitEvents(&host, key, cause)
        if hosts.count > SlotPolicy.hostLimit && host.inFlight == 0 && !host.breaker.isOpen {
            hosts[key] = nil
        } else {
            hosts[key] = host
        }
        return events
    }

    /// `key`'s connection agreed on HTTP/2 in its TLS handshake at `now`: the host multiplexes,
    /// known a round trip before its first answer would say so; its limit starts as that answer
    /// would have started it. Returns what the run should hear.
    func multiplexingShown(_ key: String, now: Double) -> [Event] {
        guard var host = hosts[key], !host.multiplexes else { return [] }
        // The connection that showed it carries its streams (an answer's count replaces this).
        host.connections = max(1, host.connections)
        let cause = startMultiplexing(&host, latency: nil, now: now)
        let events = limitEvents(&host, key, cause)
        hosts[key] = host
        return events
    }

    private func startMultiplexing(_ host: inout Host, latency: Double?, now: Double) -> AdaptiveLimit.Cause? {
        host.multiplexes = true
        return host.limit?.startMultiplexing(
            streams: Double(Configuration.multiplexedStart),
            ceiling: Double(max(configuration.maxPerHost, Configuration.autoStreamsPerHost)),
            latency: latency, now: now)
    }

    /// The run hears of a limit that moved by half or more since it was last told.
    private func limitEvents(_ host: inout Host, _ key: String, _ cause: AdaptiveLimit.Cause?) -> [Event] {
        guard let cause, let limit = host.limit?.allowed, host.toldLimit > 0,
            limit * 2 <= host.toldLimit || limit * 2 >= host.toldLimit * 3
        else { return [] }
        defer { host.toldLimit = limit }
        return [.limitChanged(HostLimitChange(host: key, from: host.toldLimit, to: limit, cause: cause.rawValue))]
    }

    /// Every host's figures, by host.
    var figures: [HostFigures] {
        hosts.map { key, host in
            HostFigures(
                host: key, requests: host.requests, multiplexes: host.multiplexes, finalLimit: host.limit?.allowed,
                peakLimit: host.limit?.peak, medianLatency: host.latencies.median, unavailable: host.breaker.isOpen)
        }.sorted { $0.host < $1.host }
    }
}

/// A host's limit moved by half or more (`--verbose` prints it).
public struct HostLimitChange: Sendable, Equatable {
    /// Scheme and authority, `https://cdn.example.com:443`.
    public var host: String
    public var from: Int
    public var to: Int
    /// Why, in words.
    public var cause: String
}

/// What the run saw of one host, for the report.
public struct HostFigures: Sendable, Equatable {
    /// Scheme and authority, lower-cased (`http://127.0.0.1:8080`).
    public var host: String
    /// Requests made (attempts, retries included).
    public var requests: Int
    /// A response came over HTTP/2: the limit counted streams.
    public var multiplexes: Bool
    /// The limit at the end of the run, and the highest it reached (nil under a fixed number).
    public var finalLimit: Int?
    public var peakLimit: Int?
    /// The median seconds from a request going out to its 2xx or 304 response's end.
    public var medianLatency: Double?
    /// Its breaker opened: its URLs ended as `host-unavailable`.
    public var unavailable: Bool
}
