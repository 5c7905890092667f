import Foundation
import LoopbackServer
import TestSupport
import Testing

/// A local mistake must not blacklist every URL (issue 21): a netrc file libcurl cannot parse and
/// a `--cacert` file libcurl cannot load are usage errors before any download; a netrc file
/// others can change is used with a warning.
@Suite struct CredentialFilesTests {
    func expectNothingDone(_ h: PrefetchHarness, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(h.server.requests.isEmpty, "no request", sourceLocation: sourceLocation)
        let privateFolder = h.temp.path("caches/com.hackemist.SDImageCache/.imgwarm")
        #expect(
            !FileManager.default.fileExists(atPath: privateFolder), "no state, no blacklist",
            sourceLocation: sourceLocation)
    }

    /// An unclosed quoted string is what makes libcurl 7.88 fail every transfer (".netrc parser
    /// error"): exit code 2 with the file and line, nothing requested, nothing recorded.
    @Test func aNetrcFileLibcurlRejectsIsAUsageError() throws {
        let h = try PrefetchHarness()
        let netrc = try h.temp.write(
            "netrc", Data("machine example.com login a password b\n\nmachine other login \"a\n".utf8))
        let run = try h.prefetch([h.url("/auth/photo.jpg")], options: ["--netrc-file", netrc])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("netrc file \(netrc):3: a quoted string"), "\(run.stderr)")
        expectNothingDone(h)

        // $IMGWARM_NETRC_FILE is checked the same way.
        let viaEnvironment = try h.prefetch([h.url("/auth/photo.jpg")], env: ["IMGWARM_NETRC_FILE": netrc])
        #expect(viaEnvironment.status == 2)
        expectNothingDone(h)
    }

    /// What libcurl accepts is accepted: a quoted string inside a macdef body (skipped up to the
    /// next empty line), comments, quoted values with escapes, unknown words.
    @Test func aNetrcFileLibcurlAcceptsIsUsed() throws {
        let h = try PrefetchHarness()
        let text = """
            # credentials
            macdef init
            echo "never closed

            unknown words here
            machine 127.0.0.1 login "\(FixtureRoutes.username)" password \(FixtureRoutes.password) # trailing

            """
        let netrc = try h.temp.write("netrc", Data(text.utf8))
        #expect(chmod(netrc, 0o600) == 0)
        let key = h.url("/auth/photo.jpg")
        let run = try h.prefetch([key], options: ["--netrc-file", netrc])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("warning"), "\(run.stderr)")
        h.expectCache(exactly: [key: h.routes.valid["photo.jpg"]!])
    }

    /// A netrc file writable by its group or by anyone is used with a warning, also under --quiet.
    @Test func aNetrcFileOthersCanChangeIsUsedWithAWarning() throws {
        let h = try PrefetchHarness()
        let netrc = try h.temp.write(
            "netrc", Data("machine 127.0.0.1 login \(FixtureRoutes.username) password \(FixtureRoutes.password)\n".utf8)
        )
        for (mode, who) in [(0o666, "writable by anyone (mode 0666)"), (0o620, "writable by its group (mode 0620)")] {
            #expect(chmod(netrc, mode_t(mode)) == 0)
            let run = try h.prefetch(
                [h.url("/auth/photo.jpg?mode=\(mode)")], options: ["--netrc-file", netrc, "--quiet"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("warning: the netrc file \(netrc) is \(who)"), "\(run.stderr)")
        }
        #expect(chmod(netrc, 0o644) == 0)
        let safe = try h.prefetch([h.url("/auth/photo.jpg?mode=644")], options: ["--netrc-file", netrc])
        #expect(!safe.stderr.contains("warning"), "\(safe.stderr)")
    }

    /// A netrc file of another user (not root) is used with a warning. Needs root to chown.
    @Test(.enabled(if: geteuid() == 0, "needs root to chown a file to another user"))
    func aNetrcFileOfAnotherUserIsUsedWithAWarning() throws {
        let h = try PrefetchHarness()
        let netrc = try h.temp.write(
            "netrc", Data("machine 127.0.0.1 login \(FixtureRoutes.username) password \(FixtureRoutes.password)\n".utf8)
        )
        #expect(chown(netrc, 65534, 65534) == 0)
        #expect(chmod(netrc, 0o644) == 0)
        let run = try h.prefetch([h.url("/auth/photo.jpg")], options: ["--netrc-file", netrc, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: the netrc file \(netrc) belongs to another user (uid 65534)"))
    }

    /// A --cacert file that is not PEM certificates (or holds a damaged one) made every https URL
    /// `tls`, blacklisted: now exit code 2 before any download.
    @Test func aCACertificateFileLibcurlCannotLoadIsAUsageError() throws {
        let h = try PrefetchHarness()
        let certificate = try SelfSignedCertificate.make(in: h.temp).certificate
        let pem = try String(contentsOfFile: certificate, encoding: .utf8)
        let damaged = "-----BEGIN CERTIFICATE-----\naGVsbG8gd29ybGQ=\n-----END CERTIFICATE-----\n"
        let files = [
            "text.pem": "not a certificate\n",
            "empty.pem": "",
            "good-then-damaged.pem": pem + damaged,
            "key.pem": try String(contentsOfFile: h.temp.path("key.pem"), encoding: .utf8),
        ]
        for (name, contents) in files {
            let path = try h.temp.write(name, Data(contents.utf8))
            let run = try h.prefetch(
                ["https://127.0.0.1:9/photo.jpg", h.url("/img/photo.jpg")], options: ["--cacert", path])
            #expect(run.status == 2, "\(name): \(run.stderr)")
            #expect(
                run.stderr.contains("--cacert \(path): libcurl cannot load certificate authorities"), "\(run.stderr)")
            expectNothingDone(h)
        }
        // The certificate alone, or with text around it, is accepted.
        let framed = try h.temp.write("framed.pem", Data(("issued by us\n" + pem + "end\n").utf8))
        let run = try h.prefetch([h.url("/img/photo.jpg")], options: ["--cacert", framed])
        #expect(run.status == 0, "\(run.stderr)")
    }
}
