import Testing

@testable import ImgwarmKit

@Suite struct URIReferenceTests {
    @Test(arguments: [
        "http://example.com", "https://example.com/a/b.png?x=1&y=%20#frag", "HTTP://EXAMPLE.COM/X.PNG",
        "http://user:p%40ss@host:8080/p", "http://[::1]:8080/x", "http://[2001:db8::192.0.2.1]/",
        "http://[v1.fe80::a+en1]/", "http://192.168.0.1/", "mailto:someone@example.com", "relative/path",
        "/abs", "", "?q", "#f", "data:image/png;base64,iVBORw0KGgo=", "urn:isbn:123",
    ])
    func valid(_ text: String) {
        #expect(URIReference(text) != nil, "\(text) should parse")
    }

    @Test(arguments: [
        "http://exa mple.com/", "http://example.com/a b", "http://example.com/%zz", "http://example.com/%4",
        "http://example.com/\u{e9}", "http://[::1/", "http://[1:2:3:4:5:6:7:8:9]/", "http://[::1::2]/",
        "http://host:80a/", "1a:b", "a:b c", "http://example.com/<x>", "http://example.com/\"", "http://ex\\ample.com/",
        "http://[12345::]/",
    ])
    func invalid(_ text: String) {
        #expect(URIReference(text) == nil, "\(text) should not parse")
    }

    @Test func components() throws {
        let uri = try #require(URIReference("https://u:p@Example.com:8443/a/b.png?q=1#top"))
        #expect(uri.scheme == "https")
        #expect(uri.userinfo == "u:p")
        #expect(uri.host == "Example.com")
        #expect(uri.port == "8443")
        #expect(uri.path == "/a/b.png")
        #expect(uri.query == "q=1")
        #expect(uri.fragment == "top")
        #expect(uri.isHierarchical)
        #expect(URIReference("mailto:x@y.z")?.isHierarchical == false)
        #expect(URIReference("x.png")?.isHierarchical == true)
        #expect(URIReference("http://[::ffff:1.2.3.4]/")?.host == "[::ffff:1.2.3.4]")
    }

    @Test(arguments: [
        ("::", true), ("::1", true), ("1::", true), ("1:2:3:4:5:6:7:8", true), ("1:2:3:4:5:6:7::", true),
        ("::2:3:4:5:6:7:8", true), ("1:2:3:4:5:6:1.2.3.4", true), ("fe80::1:2.3.4.5", true),
        ("1:2:3:4:5:6:7", false), ("1:2:3:4:5:6:7:8:9", false), (":1", false), ("1:", false), (":::", false),
        ("1::2::3", false), ("1:2:3:4:5:6:7:1.2.3.4", false), ("::1.2.3", false), ("::256.1.1.1", false),
        ("g::", false),
    ])
    func ipv6(text: String, valid: Bool) {
        #expect(URIReference.isIPv6Address(Substring(text)) == valid, "\(text)")
    }
}
