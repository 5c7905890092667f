import Testing

@testable import ImgwarmKit

@Suite struct MD5Tests {
    /// The test suite of RFC 1321, appendix A.5.
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        (
            "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
            "57edf4a22be3c955ac49da2e2107b67a"
        ),
    ])
    func rfc1321(input: String, expected: String) {
        #expect(MD5.digest(Array(input.utf8)).hex == expected)
    }

    /// Feeding the input in uneven pieces (across the 64-byte block boundary) changes nothing.
    @Test func incrementalUpdates() {
        let input = Array(String(repeating: "imgwarm-", count: 100).utf8)
        let oneShot = MD5.digest(input)
        for split in [1, 7, 55, 56, 63, 64, 65, 128, 799] {
            var md5 = MD5()
            md5.update(input[0..<split])
            md5.update(input[split...])
            #expect(md5.finalize() == oneShot, "split at \(split)")
        }
        // One million "a" (a classic long vector).
        #expect(
            MD5.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)).hex
                == "7707d6ae4e027c70eea2a935c2296f21")
    }
}
