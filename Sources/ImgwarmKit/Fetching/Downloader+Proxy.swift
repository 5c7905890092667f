import Curl

/// Failures that are a proxy's, not the URL's: a proxy that cannot be reached, its 407, a
/// CONNECT it refused, a SOCKS refusal. libcurl reports a proxy that does not answer as it
/// reports a host that does not (`CURLE_COULDNT_CONNECT`); the route (`FetchConfiguration.proxy(for:)`)
/// tells them apart.
extension Downloader {
    /// The failure of an answer outside 2xx. Through a proxy, a 407 is the proxy's own
    /// (`proxy-failed`); any other status may be the server's or the proxy's, which the answer
    /// does not tell: it stays `http-status`, marked as through the proxy (`FailurePolicy`).
    func statusFailure(_ status: Int, proxy: CurlProxy?) -> Failure {
        let reason = "\(status) \(HTTPStatus.reason(status))"
        guard let proxy else { return Failure(.httpStatus, "the server answered \(reason)", httpStatus: status) }
        if status == 407 {
            return Failure(
                .proxyFailed,
                "the proxy \(proxy.displayName) answered \(status) Proxy Authentication Required: it wants a user name and password it accepts",
                httpStatus: status, throughProxy: true)
        }
        return Failure(
            .httpStatus, "the server or the proxy \(proxy.displayName) answered \(reason)", httpStatus: status,
            throughProxy: true)
    }

    /// The failure when `error` is the proxy's, with the words of a proxy that cannot be reached
    /// (`unreachable`, which stops the run); nil when it is not the proxy's.
    func proxyFailure(_ error: CurlError, transfer: Transfer, proxy: CurlProxy) -> (
        failure: Failure, unreachable: String?
    )? {
        let name = proxy.displayName
        switch error.kind {
        case .couldNotResolveProxy, .couldNotConnect:
            // libcurl names the address it failed to connect to: the proxy's port, or the route
            // was not what the engine thinks (the host's failure, as before).
            if error.kind == .couldNotConnect && !error.message.contains(" port \(proxy.port) ") { return nil }
            let message = "the proxy \(name) cannot be reached (\(error.message))"
            return (Failure(.proxyFailed, message, throughProxy: true), message)
        case .proxy where transfer.easy.proxyFoundHostUnreachable:
            let host = URIReference(transfer.entry.url)?.host.map(String.init) ?? transfer.entry.url
            return (
                Failure(
                    .connectFailed, "the proxy \(name) could not reach \(host): \(error.message)", throughProxy: true),
                nil
            )
        case .proxy:
            return (Failure(.proxyFailed, "the proxy \(name) failed: \(error.message)", throughProxy: true), nil)
        default:
            break
        }
        let code = transfer.easy.connectResponseCode
        guard code != 0, !(200...299).contains(code) else { return nil }
        let host = URIReference(transfer.entry.url)?.host.map(String.init) ?? transfer.entry.url
        let answer = "it answered \(code) \(HTTPStatus.reason(code))"
        if (500...599).contains(code) {
            // The proxy is there; the host behind it is not (a 502 or 504): the host's failure.
            return (
                Failure(
                    .connectFailed, "the proxy \(name) could not open a tunnel to \(host): \(answer)",
                    throughProxy: true), nil
            )
        }
        return (
            Failure(.proxyFailed, "the proxy \(name) refused a tunnel to \(host): \(answer)", throughProxy: true), nil
        )
    }

    /// Why the request of `transfer`, answered, did not go through the proxy it should have:
    /// libcurl connected to another port than the proxy's (or, for a proxy given as an IPv4
    /// address, another address). A backstop for a proxy libcurl would drop without a word (the
    /// values known to be dropped are refused before the run: `CurlProxy`). Checked only where
    /// no no-proxy list is in effect, where the engine's route is libcurl's beyond doubt.
    func proxyBypass(_ transfer: Transfer) -> String? {
        let c = configuration
        guard c.mayUseProxy else { return nil }
        let port = transfer.easy.primaryPort
        guard port > 0, (c.noProxy ?? c.proxyEnvironment.noProxy ?? "").isEmpty,
            let proxy = c.proxy(for: transfer.easy.effectiveURL ?? transfer.entry.url)
        else { return nil }
        let address = transfer.easy.primaryIP ?? ""
        let otherAddress = FetchConfiguration.ipv4(proxy.host).map { $0 != FetchConfiguration.ipv4(address) } ?? false
        guard port != proxy.port || otherAddress else { return nil }
        return
            "requests do not go through the proxy \(proxy.displayName): libcurl connected to \(address) port \(port) instead"
    }
}
