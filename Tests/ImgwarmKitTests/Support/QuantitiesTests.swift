import Testing

@testable import ImgwarmKit

@Suite struct QuantitiesTests {
    @Test(arguments: [
        ("0", UInt64(0)), ("1048576", 1_048_576), ("500M", 500 << 20), ("500m", 500 << 20), ("2GiB", 2 << 30),
        ("1K", 1024), ("1KiB", 1024), ("1KB", 1000), ("750MB", 750_000_000), ("3GB", 3_000_000_000),
        ("1T", 1 << 40), ("1TB", 1_000_000_000_000), ("1.5G", 1_610_612_736), ("10B", 10), (" 4k ", 4096),
    ])
    func sizes(text: String, bytes: UInt64) throws {
        #expect(try Quantities.parseSize(text) == bytes)
    }

    @Test(arguments: ["5Q", "", "M", "-1M", "1e3", "abc", "1..2M", "+5M"])
    func badSizes(text: String) {
        do {
            _ = try Quantities.parseSize(text)
            Issue.record("'\(text)' should not parse")
        } catch {
            #expect(error.description.contains("e.g. 500M"))
        }
    }

    @Test(arguments: [
        ("7d", Double?(604_800)), ("12h", 43_200), ("30m", 1_800), ("45s", 45), ("2w", 1_209_600), ("90", 90),
        ("0", 0), ("1.5h", 5_400), ("never", nil), ("NEVER", nil), ("-1", nil), ("-3d", nil),
    ])
    func ages(text: String, seconds: Double?) throws {
        #expect(try Quantities.parseAge(text) == (seconds.map { .after(seconds: $0) } ?? .never))
    }

    /// Units are case-sensitive: `1M` is not one minute, and months and years get a hint.
    @Test(arguments: [
        ("1M", "months are not a unit"), ("2mo", "months are not a unit"), ("1y", "use days, e.g. 365d"),
        ("7D", "lower-case"),
    ])
    func ambiguousAgeUnits(text: String, hint: String) {
        do {
            let parsed = try Quantities.parseAge(text)
            Issue.record("'\(text)' should not parse, got \(parsed)")
        } catch {
            #expect(error.description.contains(hint), "\(error.description)")
        }
    }

    @Test func defaultsAreWrittenAsUsersWriteThem() {
        #expect(Quantities.formatAge(604_800) == "7d")
        #expect(Quantities.formatAge(5_400) == "90m")
        #expect(Quantities.formatAge(15) == "15s")
        #expect(Quantities.formatAge(0.5) == "0.5s")
        #expect(Quantities.formatSize(50 << 20) == "50MiB")
        #expect(Quantities.formatSize(1000) == "1000")
        #expect(Expiry.never.text == "never")
    }

    @Test(arguments: ["yesterday", "7x", "", "d", "1 week"])
    func badAges(text: String) {
        do {
            _ = try Quantities.parseAge(text)
            Issue.record("'\(text)' should not parse")
        } catch {
            #expect(error.description.contains("e.g. 7d"))
        }
    }

    @Test func formatting() {
        #expect(Quantities.formatBytes(512) == "512 B")
        #expect(Quantities.formatBytes(1536) == "1.50 KiB")
        #expect(Quantities.formatBytes(500 << 20) == "500.0 MiB")
        #expect(Quantities.formatDecimal(2.005, digits: 1) == "2.0")
        #expect(Quantities.formatDecimal(-0.25, digits: 2) == "-0.25")
    }
}
