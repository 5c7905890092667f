import ImgwarmSystem
import Testing

@testable import ImgwarmKit

/// `PaxArchive`'s own fields (docs/pack.md); whole archives are read by GNU tar, Python and
/// busybox in `PackTests`.
@Suite struct PaxArchiveTests {
    /// A record's length counts its own digits, also where adding them adds a digit.
    @Test(arguments: [1, 80, 88, 89, 90, 95, 96, 97, 990, 995, 996, 1000])
    func aRecordsLengthIsItsOwn(valueLength: Int) {
        let record = PaxArchive.record("path", String(repeating: "a", count: valueLength))
        let text = String(decoding: record, as: UTF8.self)
        let length = Int(text.prefix { $0 != " " })
        #expect(length == record.count, "\(text.prefix(8))…")
    }

    /// Times always carry nine digits of nanoseconds; a time before 1970 is written as 1970.
    @Test func timesHaveNineDigits() {
        #expect(PaxArchive.time(Timestamp(seconds: 1_767_261_600, nanoseconds: 5)) == "1767261600.000000005")
        #expect(PaxArchive.time(Timestamp(seconds: -1, nanoseconds: 0)) == "0.000000000")
    }

    /// A header's checksum is the sum of its bytes with the checksum field as spaces, and it
    /// carries no owner names and no device numbers.
    @Test func aHeadersChecksumAndEmptyFields() {
        let block = PaxArchive.header(
            name: Array("a/b.png".utf8), size: 5, modified: Timestamp(seconds: 60), type: "0", mode: 0o600)
        #expect(block.count == 512)
        var blanked = block
        for index in 148..<156 { blanked[index] = UInt8(ascii: " ") }
        let sum = blanked.reduce(0) { $0 + Int($1) }
        let stored = Int(String(decoding: block[148..<154], as: UTF8.self), radix: 8)
        #expect(stored == sum)
        #expect(block[265..<345].allSatisfy { $0 == 0 }, "uname, gname, devmajor and devminor are empty")
        #expect(String(decoding: block[100..<107], as: UTF8.self) == "0000600")
    }
}
