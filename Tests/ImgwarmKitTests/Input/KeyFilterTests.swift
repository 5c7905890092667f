import Testing

@testable import ImgwarmKit

/// Each `--key-filter` filter on URLs that trip naive string handling (docs/cache-contract.md §6).
@Suite struct KeyFilterTests {
    func apply(_ spec: String, _ url: String) throws -> String {
        try KeyFilter.parse(spec).apply(url)
    }

    @Test(arguments: [
        "https://a.com/x.jpg?token=1#frag", "http://u:p@[::1]:8080/a;b.png?x", "not a url ? at all", "",
    ])
    func urlIsTheIdentity(url: String) throws {
        #expect(try apply("url", url) == url)
        #expect(KeyFilterChain().key(for: url) == url)
    }

    @Test(arguments: [
        ("https://cdn.example.com/a.jpg?token=1", "https://cdn.example.com/a.jpg"),
        ("https://cdn.example.com/a.jpg#section", "https://cdn.example.com/a.jpg"),
        ("https://cdn.example.com/a.jpg?t=1#f?g", "https://cdn.example.com/a.jpg"),
        ("https://cdn.example.com/a.jpg#f?not-a-query", "https://cdn.example.com/a.jpg"),
        ("https://cdn.example.com/a.jpg?", "https://cdn.example.com/a.jpg"),
        // Userinfo and port stay: only the query and fragment go.
        ("http://bob:pw@[2001:db8::1]:8443/p;v=1/a.png?x=1", "http://bob:pw@[2001:db8::1]:8443/p;v=1/a.png"),
        ("HTTPS://CDN.example.com/A.JPG?Token=1", "HTTPS://CDN.example.com/A.JPG"),
        ("https://cdn.example.com/a%3Fb.jpg?x=%26", "https://cdn.example.com/a%3Fb.jpg"),
        ("https://cdn.example.com/plain.jpg", "https://cdn.example.com/plain.jpg"),
    ])
    func stripQuery(url: String, expected: String) throws {
        #expect(try apply("strip-query", url) == expected)
    }

    @Test(arguments: [
        // SDWebImage's documented example: scheme + host + path, nothing else.
        ("https://bob:secret@cdn.example.com:8443/a/b.jpg?token=1#f", "https://cdn.example.com/a/b.jpg"),
        ("http://[::1]:8080/a.png?x=1", "http://[::1]/a.png"),
        ("http://[2001:db8::1]/img;v=2/a.png", "http://[2001:db8::1]/img;v=2/a.png"),
        ("HTTP://CDN.Example.COM/A%20B.JPG", "HTTP://CDN.Example.COM/A%20B.JPG"),
        ("https://cdn.example.com", "https://cdn.example.com"),
        ("https://cdn.example.com:443?x=1", "https://cdn.example.com"),
        ("https://cdn.example.com/a.jpg/", "https://cdn.example.com/a.jpg/"),
        // Not an absolute URL with a host: left as it is.
        ("mailto:x@y.com", "mailto:x@y.com"), ("just a key", "just a key"), ("/relative/a.png?x", "/relative/a.png?x"),
    ])
    func schemeHostPath(url: String, expected: String) throws {
        #expect(try apply("scheme-host-path", url) == expected)
    }

    @Test(arguments: [
        ("https://a.com/x.jpg?w=100&token=abc&h=50", "drop-params:token", "https://a.com/x.jpg?w=100&h=50"),
        ("https://a.com/x.jpg?token=abc", "drop-params:token", "https://a.com/x.jpg"),
        ("https://a.com/x.jpg?token=1&token=2&w=3", "drop-params:token", "https://a.com/x.jpg?w=3"),
        ("https://a.com/x.jpg?token&w=3", "drop-params:token", "https://a.com/x.jpg?w=3"),
        ("https://a.com/x.jpg?w=3&token=", "drop-params:token", "https://a.com/x.jpg?w=3"),
        (
            "https://a.com/x.jpg?Expires=1&Signature=2&Key-Pair-Id=3&w=4", "drop-params:Expires,Signature,Key-Pair-Id",
            "https://a.com/x.jpg?w=4"
        ),
        // Names are exact and case-sensitive; an encoded & stays inside its parameter.
        ("https://a.com/x.jpg?Token=1&token=2", "drop-params:token", "https://a.com/x.jpg?Token=1"),
        ("https://a.com/x.jpg?q=a%26token%3D1&token=2", "drop-params:token", "https://a.com/x.jpg?q=a%26token%3D1"),
        ("https://a.com/x.jpg?tok%65n=1", "drop-params:token", "https://a.com/x.jpg?tok%65n=1"),
        // Order, encoding and empty parameters of the others as given; the fragment stays.
        ("https://a.com/x.jpg?b=%2F&token=1&a=+#frag", "drop-params:token", "https://a.com/x.jpg?b=%2F&a=+#frag"),
        ("https://a.com/x.jpg?token=1#frag", "drop-params:token", "https://a.com/x.jpg#frag"),
        ("https://a.com/x.jpg?a=1&&b=2", "drop-params:c", "https://a.com/x.jpg?a=1&&b=2"),
        ("https://a.com/x.jpg#f?token=1", "drop-params:token", "https://a.com/x.jpg#f?token=1"),
        ("https://a.com/x.jpg", "drop-params:token", "https://a.com/x.jpg"),
        ("http://u:p@[::1]:81/a;b.png?token=1&x", "drop-params:token", "http://u:p@[::1]:81/a;b.png?x"),
    ])
    func dropParams(url: String, spec: String, expected: String) throws {
        #expect(try apply(spec, url) == expected)
    }

    @Test(arguments: [
        ("https://a.com/x.jpg?w=100&token=abc&h=50", "keep-params:w,h", "https://a.com/x.jpg?w=100&h=50"),
        ("https://a.com/x.jpg?h=50&w=100", "keep-params:w,h", "https://a.com/x.jpg?h=50&w=100"),
        ("https://a.com/x.jpg?token=abc", "keep-params:w", "https://a.com/x.jpg"),
        ("https://a.com/x.jpg?w=1&w=2&x=3", "keep-params:w", "https://a.com/x.jpg?w=1&w=2"),
        ("https://a.com/x.jpg?w&x=3", "keep-params:w", "https://a.com/x.jpg?w"),
        ("https://a.com/x.jpg?W=1&w=2", "keep-params:w", "https://a.com/x.jpg?w=2"),
        ("https://a.com/x.jpg?v=a%26w%3D1&x=1", "keep-params:w", "https://a.com/x.jpg"),
        ("https://a.com/x.jpg?w=%20&x=1#top", "keep-params:w", "https://a.com/x.jpg?w=%20#top"),
        ("https://a.com/x.jpg", "keep-params:w", "https://a.com/x.jpg"),
        ("http://[::1]:8080/p;x/a.png?size=s&sig=9", "keep-params:size", "http://[::1]:8080/p;x/a.png?size=s"),
    ])
    func keepParams(url: String, spec: String, expected: String) throws {
        #expect(try apply(spec, url) == expected)
    }

    @Test(arguments: [
        // A version segment out, the first match only.
        ("https://a.com/v12/v3/x.jpg", "regex:#/v[0-9]+/#/#", "https://a.com/v3/x.jpg"),
        // Groups: keep host and file, drop a signed path prefix.
        (
            "https://cdn.a.com/sig=abc/exp=9/img/x.jpg", "regex:|^(https://[^/]+)/sig=[^/]+/exp=[^/]+(/.*)$|$1$2|",
            "https://cdn.a.com/img/x.jpg"
        ),
        // The delimiter escaped inside pattern and template; $$ is a dollar; $0 the match.
        ("https://a.com/a/b.jpg", #"regex:/a\/b/c\/$$$0/"#, "https://a.com/c/$a/b.jpg"),
        // A metacharacter delimiter escaped stays literal in the pattern.
        ("https://a.com/x|y.jpg", #"regex:|x\|y|z|"#, "https://a.com/z.jpg"),
        // No match: unchanged. A group that did not take part: nothing.
        ("https://a.com/x.jpg", "regex:/nothing/else/", "https://a.com/x.jpg"),
        ("https://a.com/x.jpg", "regex:/(q)?x/[$1]/", "https://a.com/[].jpg"),
        ("https://a.com/x.jpg", "regex:/x/$5/", "https://a.com/.jpg"),
        // Named groups and classes of Swift's regex syntax.
        ("https://a.com/img-1280x720.jpg", #"regex:/-(?<w>\d+)x\d+//"#, "https://a.com/img.jpg"),
        ("https://a.com/x.jpg?token=1&a=b", "regex:/[?&]token=[^&#]*//", "https://a.com/x.jpg&a=b"),
    ])
    func regex(url: String, spec: String, expected: String) throws {
        #expect(try apply(spec, url) == expected)
    }

    /// The manual's (docs/usage.md) `url.lastPathComponent` filter: the last path segment, even when the query
    /// holds slashes.
    @Test(arguments: [
        ("https://a.com/x/y.jpg?r=/z/w#f", "y.jpg"), ("https://a.com/y.jpg", "y.jpg"),
        ("https://a.com/p;v=1/y.png#a/b", "y.png"),
        ("http://[::1]:8080/d/e/f.gif?", "f.gif"),
    ])
    func lastPathComponent(url: String, expected: String) throws {
        #expect(try apply("regex:,^[^?#]*/([^/?#]*).*$,$1,", url) == expected)
    }

    /// Filters apply left to right.
    @Test func chainsApplyInOrder() throws {
        let chain = try KeyFilterChain(specs: ["drop-params:token", "regex:#^http://#https://#"])
        #expect(chain.key(for: "http://a.com/x.jpg?token=1&w=2") == "https://a.com/x.jpg?w=2")
        let other = try KeyFilterChain(specs: ["regex:/\\?.*$/?w=1/", "strip-query"])
        #expect(other.key(for: "http://a.com/x.jpg?token=1") == "http://a.com/x.jpg")
        let reversed = try KeyFilterChain(specs: ["strip-query", "regex:/$/?w=1/"])
        #expect(reversed.key(for: "http://a.com/x.jpg?token=1") == "http://a.com/x.jpg?w=1")
        #expect(chain.specs == ["drop-params:token", "regex:#^http://#https://#"])
    }

    /// Every filter's spelling parses back to the same filter.
    @Test(arguments: ["url", "strip-query", "scheme-host-path", "drop-params:a,b", "keep-params:w", "regex:,a,b,"])
    func specsRoundTrip(spec: String) throws {
        #expect(try KeyFilter.parse(spec).description == spec)
    }

    @Test(arguments: [
        ("strip-params", "unknown key filter 'strip-params'"), ("", "unknown key filter ''"),
        ("drop-params", "needs its parameter names after a colon"), ("drop-params:", "empty parameter name"),
        ("keep-params:a,,b", "empty parameter name"), ("drop-params:a=b", "cannot be a parameter name"),
        ("regex", "regex needs /PATTERN/TEMPLATE/"), ("regex:", "has no pattern"), ("regex:/a/b", "needs three '/'"),
        ("regex:/a/b/g", "text after its closing '/'"), ("regex:/a/b/c/", "text after its closing '/'"),
        ("regex:aba", "cannot be a letter"), ("regex:\\a\\b\\", "cannot be a letter, digit, backslash"),
        ("regex:///", "empty pattern"), ("regex:/(/x/", "not a valid regular expression"),
        ("regex:/a/$x/", "must be followed by a group number"), ("regex:/a/b$/", "must be followed by a group number"),
        ("URL", "unknown key filter 'URL'"),
    ])
    func badSpecsSayWhyWithAnExample(spec: String, expected: String) {
        do {
            let filter = try KeyFilter.parse(spec)
            Issue.record("\(spec) parsed as \(filter)")
        } catch {
            #expect(error.message.contains(expected), "\(spec): \(error.message)")
            #expect(error.message.contains("e.g. \(Setting.keyFilter) "), "\(spec): \(error.message)")
        }
    }
}
