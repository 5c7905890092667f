import CCurl

/// Hears each connection libcurl closes (`CURLOPT_CLOSESOCKETFUNCTION` of every handle given
/// to `CurlEasy.reportClosing`), by the name `CurlEasy.connectionName` gives the connection a
/// transfer used: its owner can count the connections open now, not those ever opened (a server
/// that closes a connection after so many requests must not leave it counted).
///
/// Owned by its `CurlMulti`, whose connection cache closes the last connections when it goes:
/// the watch lives until then.
public final class CurlConnectionWatch {
    /// Called on the thread that drives the multi handle, with the closed connection's name.
    public var onClose: (String) -> Void = { _ in }

    init() {}

    fileprivate func closing(_ socket: curl_socket_t) {
        var buffer = [CChar](repeating: 0, count: 80)
        guard imgwarm_socket_local_name(socket, &buffer, buffer.count) == 0 else { return }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        onClose(String(decoding: bytes, as: UTF8.self))
    }
}

extension CurlEasy {
    /// Tells `watch` of each connection this handle opens when libcurl closes it.
    public func reportClosing(to watch: CurlConnectionWatch) throws(CurlError) {
        try check(
            imgwarm_easy_setopt_closesocket_callback(handle, curlCloseTrampoline), "CURLOPT_CLOSESOCKETFUNCTION")
        try check(
            imgwarm_easy_setopt_pointer(handle, CURLOPT_CLOSESOCKETDATA, Unmanaged.passUnretained(watch).toOpaque()),
            "CURLOPT_CLOSESOCKETDATA")
    }

    /// The connection the last transfer used, named by its local end ("address port"): the name
    /// `CurlConnectionWatch` reports it by when it closes. Nil when none was used.
    public var connectionName: String? {
        var port = 0
        guard imgwarm_easy_getinfo_long(handle, CURLINFO_LOCAL_PORT, &port) == CURLE_OK, port > 0,
            let address = string(CURLINFO_LOCAL_IP)
        else { return nil }
        return "\(address) \(port)"
    }
}

private let curlCloseTrampoline: imgwarm_closesocket_callback = { userData, socket in
    if let userData { Unmanaged<CurlConnectionWatch>.fromOpaque(userData).takeUnretainedValue().closing(socket) }
    return imgwarm_close_socket(socket)
}
