import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// OkHttp's cache key is the MD5 of `HttpUrl.parse(url).toString()` (docs/cache-formats-android.md,
/// "OkHttp"). The table's right column was printed by OkHttp 3.13.1's own `HttpUrl` (Debian's
/// libokhttp-java, `Tests/Fixtures/okhttp/CacheProbe.java url`); the second test asks the jar
/// again when java is installed, so a vector typed wrong cannot hide a difference.
@Suite struct OkHttpURLTests {
    /// URL as written → as OkHttp prints it (nil: `HttpUrl.parse` refuses it).
    static let vectors: [(String, String?)] = [
        ("http://example.com", "http://example.com/"),
        ("HTTP://Example.COM:80/a/b?c=d#e", "http://example.com/a/b?c=d#e"),
        ("https://example.com:443/", "https://example.com/"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
        ("http://example.com:8080", "http://example.com:8080/"),
        ("  http://example.com/trim  ", "http://example.com/trim"),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),
        ("http://example.com/a/%2e%2E/b", "http://example.com/b"),
        ("http://example.com/a b/c\"d<e>f^g`h{i}j|k", "http://example.com/a%20b/c%22d%3Ce%3Ef%5Eg%60h%7Bi%7Dj%7Ck"),
        ("http://example.com/a\\b\\c", "http://example.com/a/b/c"),
        (
            "http://example.com/path?q=a b&r=\"x\"&s='y'&t=<z>",
            "http://example.com/path?q=a%20b&r=%22x%22&s=%27y%27&t=%3Cz%3E"
        ),
        ("http://example.com/p?x=1+2&y=%20&z=%zz", "http://example.com/p?x=1+2&y=%20&z=%zz"),
        ("http://example.com/%zz/%41", "http://example.com/%zz/%41"),
        ("http://example.com/é/ü?ä=ö#ß", "http://example.com/%C3%A9/%C3%BC?%C3%A4=%C3%B6#ß"),
        ("http://example.com/a\tb?c\nd#e\rf", "http://example.com/ab?cd#ef"),
        ("http://example.com/\u{01}\u{7F}?\u{01}#\u{01}", "http://example.com/%01%7F?%01#%01"),
        ("http://user:pass@example.com/", "http://user:pass@example.com/"),
        ("http://us er:p@ss@example.com/", "http://us%20er:p%40ss@example.com/"),
        ("http://example.com/#frag ment<>", "http://example.com/#frag ment<>"),
        ("http://example.com/?", "http://example.com/?"),
        ("http://example.com/a?b#", "http://example.com/a?b#"),
        ("http://example.com/..", "http://example.com/"),
        ("http://example.com/a/b/..", "http://example.com/a/"),
        ("http://example.com/a/b/../", "http://example.com/a/"),
        ("http://example.com/a/b/c/../../d", "http://example.com/a/d"),
        ("http://example.com/%2e/x", "http://example.com/x"),
        ("http:/example.com/one-slash", "http://example.com/one-slash"),
        ("http:example.com/no-slash", "http://example.com/no-slash"),
        ("http:\\\\example.com\\backslash", "http://example.com/backslash"),
        ("http://EXAMPLE.com./dot", "http://example.com./dot"),
        ("http://%45xample.com/", "http://example.com/"),
        ("http://example.com:+80/", "http://example.com/"),
        ("http://example.com:65535/", "http://example.com:65535/"),
        ("http://example.com:0/", nil),
        ("http://example.com:65536/", nil),
        ("ftp://example.com/", nil),
        ("http://exa mple.com/", nil),
        ("http://a..b/", nil),
        ("http://example.com/~user/!$&'()*+,;=:@", "http://example.com/~user/!$&'()*+,;=:@"),
        ("http://example.com/a?b=c?d/e", "http://example.com/a?b=c?d/e"),
        ("http://127.0.0.1:8080/img/photo.jpg?w=100&h=100", "http://127.0.0.1:8080/img/photo.jpg?w=100&h=100"),
        // IPv6 literals (`inet6AddressToAscii`) and international names (`IDN.toASCII`).
        ("http://[::1]:8080/a", "http://[::1]:8080/a"),
        ("http://[2001:db8:0:0:0:0:0:1]/", "http://[2001:db8::1]/"),
        ("http://[ABCD:EF01::0001]:80/", "http://[abcd:ef01::1]/"),
        ("http://[1:0:0:2:0:0:0:3]/", "http://[1:0:0:2::3]/"),
        ("http://[1:0:0:2:0:0:3:4]/", "http://[1::2:0:0:3:4]/"),
        ("http://[0:0:1:0:0:1:0:0]/", "http://[::1:0:0:1:0:0]/"),
        ("http://[0:0:0:0:0:0:0:0]/", "http://[::]/"),
        ("http://[1::]/", "http://[1::]/"),
        ("http://[1:2:3:4:5:6:7::]/", "http://[1:2:3:4:5:6:7:0]/"),
        ("http://[::2:3:4:5:6:7:8]/", "http://[0:2:3:4:5:6:7:8]/"),
        ("http://[::1:2:3.4.5.6]/", "http://[::1:2:304:506]/"),
        ("http://[1:2:3:4:5:6:1.2.3.4]/", "http://[1:2:3:4:5:6:102:304]/"),
        ("http://[::ffff:1.2.3.4]/", "http://1.2.3.4/"),
        ("http://[::1/", nil),
        ("http://[1:2:3:4:5:6:7:8:9]/", nil),
        ("http://[::1::2]/", nil),
        ("http://[::01.2.3.4]/", nil),
        ("http://[01.2.3.4]/", nil),
        ("http://[g::1]/", nil),
        ("http://[12345::]/", nil),
        ("http://[fe80::1%25eth0]/", nil),
        ("http://[::1]x/", nil),
        ("http://%5B::1%5D/", nil),
        ("http://ÉXAMPLE.com/é?q=ü", "http://xn--xample-9ua.com/%C3%A9?q=%C3%BC"),
        ("http://xn--nxasmq6b.com/", "http://xn--nxasmq6b.com/"),
        ("http://bücher.de/", "http://xn--bcher-kva.de/"),
        ("http://b%C3%BCcher.de/", "http://xn--bcher-kva.de/"),
        ("http://例え.テスト/", "http://xn--r8jz45g.xn--zckzah/"),
        ("http://مثال.إختبار/", "http://xn--mgbh0fb.xn--kgbechtv/"),
        ("http://☃.net/", "http://xn--n3h.net/"),
        ("http://faß.de/", "http://fass.de/"),
        ("http://ＥＸＡＭＰＬＥ。com/", "http://example.com/"),
        ("http://Ⅸ.com/", "http://ix.com/"),
        ("http://ﬀ.com/", "http://ff.com/"),
        ("http://a\u{200D}b.com/", "http://ab.com/"),
        ("http://-a.com/", "http://-a.com/"),
        ("http://%C3%28.com/", nil),
        ("http://[::1::]/", nil),
        ("http://\u{FFFD}.com/", nil),
        ("http://a%2Fb.com/", nil),
        ("http://%00.com/", nil),
    ]

    @Test func canonicalFormsMatchOkHttpsHttpUrl() {
        for (url, expected) in Self.vectors {
            #expect(OkHttpURL.canonical(url) == expected, "\(url)")
        }
    }

    @Test(.enabled(if: OkHttpJava.available, Comment(rawValue: OkHttpJava.missing)))
    func theJarAgreesWithEveryVector() throws {
        let printed = try OkHttpJava.canonical(Self.vectors.map(\.0))
        for ((url, expected), java) in zip(Self.vectors, printed) {
            #expect(java == expected, "\(url): OkHttp prints \(java ?? "null")")
            #expect(OkHttpURL.canonical(url) == java, "\(url)")
        }
    }
}
