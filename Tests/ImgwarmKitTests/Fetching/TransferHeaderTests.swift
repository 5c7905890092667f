import Testing

@testable import ImgwarmKit

/// The response-header facts a transfer keeps: validators only when they are safe to echo back,
/// and the scheme of a `Location`.
@Suite struct TransferHeaderTests {
    @Test func safeValidators() {
        #expect(Transfer.isSafeValidator("\"5e1f-abc\""))
        #expect(Transfer.isSafeValidator("W/\"weak\""))
        #expect(Transfer.isSafeValidator("Tue, 03 Nov 2026 10:00:00 GMT"))
        #expect(Transfer.isSafeValidator(String(repeating: "x", count: Transfer.validatorLimit)))
        #expect(!Transfer.isSafeValidator(""))
        #expect(!Transfer.isSafeValidator("\"a\u{07}b\""), "a control character")
        #expect(!Transfer.isSafeValidator("\"a\tb\""), "a tab")
        #expect(!Transfer.isSafeValidator("\"a\u{7F}b\""), "DEL")
        #expect(!Transfer.isSafeValidator("\"é\""), "not ASCII")
        #expect(!Transfer.isSafeValidator(String(repeating: "x", count: Transfer.validatorLimit + 1)), "over 1 KiB")
    }

    @Test func locationSchemes() {
        #expect(Transfer.scheme(of: "ftp://127.0.0.1/a.png") == "ftp")
        #expect(Transfer.scheme(of: "FILE:///etc/passwd") == "file")
        #expect(Transfer.scheme(of: "https://a.example/x") == "https")
        #expect(Transfer.scheme(of: "svn+ssh://x") == "svn+ssh")
        #expect(Transfer.scheme(of: "/img/a.png") == nil)
        #expect(Transfer.scheme(of: "a.png") == nil)
        #expect(Transfer.scheme(of: "./x:y") == nil)
        #expect(Transfer.scheme(of: "1ab:x") == nil)
    }
}
