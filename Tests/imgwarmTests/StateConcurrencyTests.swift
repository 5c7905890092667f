import Foundation
import SQLite
import TestSupport
import Testing

/// Several processes creating one fresh state database at the same instant: SQLite answers
/// `SQLITE_BUSY` at once (without its busy timeout) to all but one of those switching a new file
/// to WAL, so without the store's own bounded retry some of them fail with "locked" (exit 3).
@Suite struct StateConcurrencyTests {
    static let probe = Fixtures.product("imgwarm-state-probe")

    static func realtimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    @Test func simultaneousOpensOfAFreshDatabaseAllSucceed() throws {
        let temp = try TemporaryFolder()
        let rounds = 40
        let processes = 4
        var failures: [String] = []
        for round in 0..<rounds {
            let path = temp.path("round\(round)/state.sqlite")
            // Far enough ahead that every probe has started and is spinning when it comes.
            let start = Self.realtimeNanoseconds() + 150_000_000
            let probes = try (0..<processes).map { index in
                try BackgroundProcess(
                    Self.probe, [path, String(start), "https://example.com/\(index).jpg"],
                    environment: ProcessInfo.processInfo.environment, folder: temp.url)
            }
            for probe in probes {
                let result = probe.wait(timeout: 60)
                if result.timedOut || result.signaled || result.status != 0 {
                    failures.append("status \(result.status): \(probe.stderr)")
                }
            }
        }
        #expect(
            failures.isEmpty,
            "\(failures.count) of \(rounds * processes) processes could not open and write: \(failures.first ?? "")")
        // Every process's write landed in its round's one database.
        let db = try SQLiteDatabase(path: temp.path("round0/state.sqlite"))
        #expect(try db.scalarText("SELECT count(*) FROM entries") == String(processes))
    }
}
