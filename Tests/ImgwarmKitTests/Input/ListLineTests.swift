import Testing

@testable import ImgwarmKit

@Suite struct ListLineTests {
    func plain(_ text: String, truncated: Bool = false) -> ListLine {
        ListLine.parse(Array(text.utf8)[...], format: .plain, truncated: truncated)
    }

    func reason(_ line: ListLine) -> String {
        if case .invalid(let reason, _) = line { return reason }
        return ""
    }

    @Test func validLinesAreTrimmedKeys() {
        #expect(plain("  https://a.com/x.png\t\r") == .url(url: "https://a.com/x.png", key: nil, priority: nil))
        #expect(plain("HTTPS://A.COM/X.PNG") == .url(url: "HTTPS://A.COM/X.PNG", key: nil, priority: nil))
        #expect(plain("http://[::1]:8080/a.png") == .url(url: "http://[::1]:8080/a.png", key: nil, priority: nil))
        #expect(plain("http://u:p@h/a") == .url(url: "http://u:p@h/a", key: nil, priority: nil))
        #expect(plain("# comment") == .ignored)
        #expect(plain("   ") == .ignored)
        #expect(plain("") == .ignored)
    }

    @Test(arguments: [
        ("file:///etc/passwd", "scheme 'file'"), ("FTP://x/a", "scheme 'FTP'"), ("gopher://x/", "scheme 'gopher'"),
        ("data:image/png;base64,AAAA", "scheme 'data'"), ("javascript:alert(1)", "scheme 'javascript'"),
        ("example.com/a.png", "no scheme"), ("http:/a.png", "no host"), ("http://", "no host"),
        ("http://a.com/a b", "character ' ' at column 15"),
        ("http://a.com/\u{e9}", "non-ASCII character 'é' at column 14"),
        ("http://a.com/%g0", "malformed percent-escape '%g0' at column 14"), ("http://a.com/\u{7}", "U+0007"),
        ("http://a.com:70000/", "port 70000"), ("http://a.com/<script>", "character '<'"),
        ("http://[::1/", "not a valid URL"),
    ])
    func invalidLinesSayWhy(text: String, expected: String) {
        let parsed = plain(text)
        #expect(reason(parsed).contains(expected), "\(text): \(reason(parsed))")
    }

    /// A JSON Lines object in a plain list says how to read it as JSON Lines.
    @Test func jsonObjectInAPlainListHintsAtJSONLines() {
        #expect(reason(plain(#"{"url": "https://a.com/x.png"}"#)).contains("\(Setting.listFormat) jsonl"))
        #expect(!reason(plain("nope")).contains("\(Setting.listFormat) jsonl"))
    }

    @Test func binaryAndOversizedLines() {
        var bytes = Array("http://a.com/".utf8)
        bytes.append(0)
        #expect(reason(ListLine.parse(bytes[...], format: .plain, truncated: false)).contains("NUL byte at column 14"))
        let invalidUTF8: [UInt8] = Array("http://a.com/".utf8) + [0xC3, 0x28]
        #expect(
            reason(ListLine.parse(invalidUTF8[...], format: .plain, truncated: false)).contains(
                "not valid UTF-8 (at byte 14)"))
        #expect(reason(plain("http://a.com/aaaa", truncated: true)).contains("longer than 65536 bytes"))
    }

    @Test func passwordsAreHiddenInTheReportedText() {
        if case .invalid(_, let text) = plain("http://bob:hunter2@a.com/a b") {
            #expect(text == "http://bob:***@a.com/a b")
        } else {
            Issue.record("should be invalid")
        }
    }

    @Test func jsonLines() {
        func json(_ text: String) -> ListLine {
            ListLine.parse(Array(text.utf8)[...], format: .jsonl, truncated: false)
        }
        #expect(
            json(#"{"url":"https://a.com/x.png","priority":"HIGH"}"#)
                == .url(url: "https://a.com/x.png", key: nil, priority: .high))
        #expect(json(#" {"priority":"low", "url":"https://a.com/\u00e9"} "#) != .ignored)
        #expect(reason(json(#"{"url":"https://a.com/\u00e9"}"#)).contains("non-ASCII"))
        #expect(
            json(#"{"url":"https://a.com/x.png","n":[1,{"d":null}]}"#)
                == .url(url: "https://a.com/x.png", key: nil, priority: nil))
        #expect(reason(json(#"{"url":null}"#)).contains("must be a string, not null"))
        #expect(reason(json(#"{"url":"https://a.com/x","priority":3}"#)).contains("\"priority\" must be"))
        #expect(reason(json(#"{"url":""}"#)).contains("empty"))
        #expect(reason(json(#"{"url":"a\u0000b"}"#)).contains("NUL"))
        #expect(reason(json(#""just a string""#)).contains("not a string"))
        #expect(reason(json(#"{"url": "x",}"#)).contains("not valid JSON"))
        #expect(json("# comment") == .ignored)
    }

    /// `"key"` beside `"url"` (docs/cache-contract.md §6): any non-empty string, kept verbatim; the URL is still
    /// checked and trimmed.
    @Test func jsonLinesWithAKey() {
        func json(_ text: String) -> ListLine {
            ListLine.parse(Array(text.utf8)[...], format: .jsonl, truncated: false)
        }
        #expect(
            json(#"{"url":" https://a.com/x.png?t=1 ","key":"https://a.com/x.png"}"#)
                == .url(url: "https://a.com/x.png?t=1", key: "https://a.com/x.png", priority: nil))
        #expect(
            json(#"{"key":"  any key, é ","url":"https://a.com/x.png","priority":"low"}"#)
                == .url(url: "https://a.com/x.png", key: "  any key, \u{e9} ", priority: .low))
        #expect(
            json(#"{"url":"https://a.com/x.png","key":null}"#)
                == .url(url: "https://a.com/x.png", key: nil, priority: nil))
        #expect(reason(json(#"{"url":"https://a.com/x.png","key":""}"#)).contains("\"key\" is empty"))
        #expect(
            reason(json(#"{"url":"https://a.com/x.png","key":7}"#)).contains("\"key\" must be a string, not a number"))
        #expect(reason(json(#"{"url":"https://a.com/x.png","key":"a\u0000b"}"#)).contains("\"key\" contains a NUL"))
        // A key does not make an invalid URL acceptable: the URL is what is fetched.
        #expect(reason(json(#"{"url":"ftp://a.com/x.png","key":"k"}"#)).contains("scheme 'ftp'"))
        #expect(reason(json(#"{"key":"k"}"#)).contains("no \"url\""))
    }
}

@Suite struct JSONLineTests {
    func parse(_ text: String) -> Result<JSONLine.Value, JSONLine.ParseError> { JSONLine.parse(Array(text.utf8)[...]) }

    @Test func values() throws {
        #expect(
            try parse(#"{"a": [1, -2.5e3, true, false, null, "x\ny\u00e9\ud83d\ude00"]}"#).get()
                == .object([
                    (
                        "a",
                        .array([
                            .number(1), .number(-2500), .bool(true), .bool(false), .null,
                            .string("x\ny\u{e9}\u{1F600}"),
                        ])
                    )
                ]))
        #expect(try parse("  42 ").get() == .number(42))
    }

    @Test(arguments: [
        ("{", 2), ("[1,]", 4), ("01", 2), ("\"\\ud800\"", 8), ("\"a\u{1}\"", 3), ("tru", 4), ("{} x", 4), ("1.", 3),
        ("{\"a\" 1}", 6),
    ])
    func errorsNameTheColumn(text: String, column: Int) {
        guard case .failure(let error) = parse(text) else {
            Issue.record("\(text) should fail")
            return
        }
        #expect(error.column == column, "\(text): \(error.message) at \(error.column)")
    }

    @Test func nestingIsLimited() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        guard case .failure(let error) = parse(deep) else {
            Issue.record("should fail")
            return
        }
        #expect(error.message.contains("nested deeper"))
    }
}

@Suite struct RedactionTests {
    @Test(arguments: [
        ("https://user:pass@host/x?y#z", "https://user:***@host/x?y#z"), ("https://user@host/x", "https://user@host/x"),
        ("https://host/x?u=a:b@c", "https://host/x?u=a:b@c"), ("no url here", "no url here"),
        ("http://a:b:c@h", "http://a:***@h"),
    ])
    func hidesPasswords(input: String, expected: String) {
        #expect(Redaction.redact(input) == expected)
    }
}
