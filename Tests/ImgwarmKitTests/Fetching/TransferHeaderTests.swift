import Testing

@testable import ImgwarmKit

/// The response-header facts a transfer keeps: validators only when they are safe to echo back,
/// and the scheme of a `Location`.
@Suite struct TransferHeaderTests {
    @Test func safeValidators() {
        #expect(ResponseHeaders.isSafeValidator("\"5e1f-abc\""))
        #expect(ResponseHeaders.isSafeValidator("W/\"weak\""))
        #expect(ResponseHeaders.isSafeValidator("Tue, 03 Nov 2026 10:00:00 GMT"))
        #expect(ResponseHeaders.isSafeValidator(String(repeating: "x", count: ResponseHeaders.validatorLimit)))
        #expect(!ResponseHeaders.isSafeValidator(""))
        #expect(!ResponseHeaders.isSafeValidator("\"a\u{07}b\""), "a control character")
        #expect(!ResponseHeaders.isSafeValidator("\"a\tb\""), "a tab")
        #expect(!ResponseHeaders.isSafeValidator("\"a\u{7F}b\""), "DEL")
        #expect(!ResponseHeaders.isSafeValidator("\"é\""), "not ASCII")
        #expect(
            !ResponseHeaders.isSafeValidator(String(repeating: "x", count: ResponseHeaders.validatorLimit + 1)),
            "over 1 KiB")
    }

    @Test func locationSchemes() {
        #expect(ResponseHeaders.scheme(of: "ftp://127.0.0.1/a.png") == "ftp")
        #expect(ResponseHeaders.scheme(of: "FILE:///etc/passwd") == "file")
        #expect(ResponseHeaders.scheme(of: "https://a.example/x") == "https")
        #expect(ResponseHeaders.scheme(of: "svn+ssh://x") == "svn+ssh")
        #expect(ResponseHeaders.scheme(of: "/img/a.png") == nil)
        #expect(ResponseHeaders.scheme(of: "a.png") == nil)
        #expect(ResponseHeaders.scheme(of: "./x:y") == nil)
        #expect(ResponseHeaders.scheme(of: "1ab:x") == nil)
    }
}
