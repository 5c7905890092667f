import CCurl

#if canImport(Glibc)
    import Glibc
#endif

extension Curl {
    /// Whether libcurl can use `file` as its certificate authorities (`CURLOPT_CAINFO`): nil when
    /// it can, libcurl's message when it cannot (`CURLE_SSL_CACERT_BADFILE`: unreadable, no
    /// certificate in it, or a certificate block OpenSSL cannot parse).
    ///
    /// libcurl reads the file only when a TLS handshake needs it, so this runs one, against a
    /// socket of its own on 127.0.0.1 that accepts the connection, reads nothing and closes its
    /// sending side: libcurl sends its ClientHello, loads the file as it reads the answer, and
    /// fails with `CURLE_SSL_CACERT_BADFILE` when it cannot use it, or else with a handshake
    /// error at the end of the stream. Nothing leaves the machine; proxies are not used. A
    /// deadline of 30 s guards against a libcurl that would behave otherwise (the answer is then
    /// nil: the file is not refused).
    public static func certificateAuthoritiesProblem(file: String) -> String? {
        let listener = socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard listener >= 0 else { return nil }
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound, let easy = try? CurlEasy(), let multi = try? CurlMulti(multiplexing: false, maxConnections: 1)
        else { return nil }
        var options = CurlTransferOptions()
        options.protocols = "https"
        options.maxRedirects = 0
        options.acceptEncoding = nil
        options.httpVersion = .http1
        options.connectTimeoutMilliseconds = 30_000
        options.totalTimeoutMilliseconds = 30_000
        options.certificateAuthorities = file
        guard (try? easy.apply(options)) != nil, (try? easy.disableProxies()) != nil,
            (try? easy.setURL("https://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/")) != nil
        else { return nil }
        guard (try? multi.add(easy)) != nil else { return nil }
        defer { multi.remove(easy) }
        var accepted: Int32 = -1
        defer { if accepted >= 0 { close(accepted) } }
        while multi.perform() > 0 {
            if accepted < 0 {
                accepted = accept(listener, nil, nil)
                if accepted >= 0 {
                    _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                    shutdown(accepted, Int32(SHUT_WR))
                }
            }
            multi.poll(timeoutMilliseconds: 1000, extraDescriptor: accepted < 0 ? listener : nil)
        }
        guard let error = multi.nextCompletion()?.error, error.code == Int32(CURLE_SSL_CACERT_BADFILE.rawValue)
        else { return nil }
        return error.message
    }
}
