import ImgwarmSystem
import Testing

/// The ISO 8601 form every report uses (UTC, milliseconds, `Z`), checked against dates `date -u`
/// prints for the same seconds.
@Suite struct TimestampTests {
    @Test(arguments: [
        (Int64(0), Int64(0), "1970-01-01T00:00:00.000Z"),
        (951_782_400, 5_000_000, "2000-02-29T00:00:00.005Z"),
        (1_700_000_000, 123_456_789, "2023-11-14T22:13:20.123Z"),
        (1_700_000_000, 999_999_999, "2023-11-14T22:13:20.999Z"),
        (253_402_300_799, 0, "9999-12-31T23:59:59.000Z"),
        (253_402_300_800, 40_000_000, "10000-01-01T00:00:00.040Z"),
    ])
    func iso8601(seconds: Int64, nanoseconds: Int64, expected: String) {
        #expect(Timestamp(seconds: seconds, nanoseconds: nanoseconds).iso8601 == expected)
    }
}
