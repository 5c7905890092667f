import Foundation

/// A throw-away certificate and key for 127.0.0.1, made by `openssl req -x509` in a test's
/// folder: what the tests' TLS servers (`openssl s_server`, the Node HTTP/2 server) present and
/// what `--cacert` is given.
public enum SelfSignedCertificate {
    /// Writes `cert.pem` and `key.pem` into `folder` and returns their paths.
    public static func make(in folder: TemporaryFolder) throws -> (certificate: String, key: String) {
        let certificate = folder.path("cert.pem")
        let key = folder.path("key.pem")
        let make = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ], timeout: 60)
        guard make.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        return (certificate, key)
    }
}
