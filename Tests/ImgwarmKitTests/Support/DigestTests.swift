import Testing

@testable import ImgwarmKit

/// `Digest` (OpenSSL's libcrypto) against published vectors: FIPS 180-2 appendix A/B examples
/// ("abc", the 448-bit message, one million "a"), the empty message and the 896-bit message of
/// the NIST examples, and Nuke's own `DataCacheTests` vector (`"http://test.com"`).
@Suite struct DigestTests {
    static let message448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
    static let message896 =
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
    static let million = String(repeating: "a", count: 1_000_000)

    @Test func sha1MatchesFIPS180() {
        #expect(Digest.sha1Hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(Digest.sha1Hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Digest.sha1Hex(DigestTests.message448) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(Digest.sha1Hex(DigestTests.message896) == "a49b2446a02c645bf419f995b67091253a04a259")
        #expect(Digest.sha1Hex(DigestTests.million) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func sha256MatchesFIPS180() {
        #expect(Digest.sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Digest.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Digest.sha256Hex(DigestTests.message448)
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Digest.sha256Hex(DigestTests.message896)
                == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        #expect(
            Digest.sha256Hex(DigestTests.million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Nuke's `DataCacheTests` expects this name for the key `http://test.com`.
    @Test func nukesOwnVector() {
        #expect(Digest.sha1Hex("http://test.com") == "50334ee0b51600df6397ce93ceed4728c37fee4e")
        #expect(NukeFormat().fileName(forKey: "http://test.com") == "50334ee0b51600df6397ce93ceed4728c37fee4e")
    }

    @Test func rawSHA1IsTheHexDigits() {
        let raw = Digest.sha1("abc")
        #expect(raw.count == 20)
        #expect(raw.map { String($0, radix: 16).leftPadded(2) }.joined() == Digest.sha1Hex("abc"))
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
