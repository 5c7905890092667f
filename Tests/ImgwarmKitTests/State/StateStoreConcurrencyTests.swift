import Foundation
@testable import ImgwarmKit
import Testing
import TestSupport

/// Several connections creating one fresh state database at the same moment: SQLite answers
/// `SQLITE_BUSY` at once (without its busy timeout) to all but one of the processes switching a new
/// file to WAL, so without the store's own bounded retry some of them fail with "locked".
@Suite struct StateStoreConcurrencyTests {
    /// Processes (forked, so they start within microseconds of each other, which separately
    /// launched binaries never manage) each open the same fresh database and write to it.
    @Test func simultaneousOpensOfAFreshDatabaseAllSucceed() throws {
        let temp = try TemporaryFolder()
        let rounds = 60, processes = 4
        var failed = 0
        for round in 0..<rounds {
            let path = temp.path("round\(round)/state.sqlite")
            let start = Monotonic.now() + 0.03
            var children: [pid_t] = []
            for child in 0..<processes {
                let pid = fork()
                if pid == 0 {
                    // The child only spins, opens, writes and leaves with _exit.
                    while Monotonic.now() < start {}
                    do {
                        let store = try StateStore(path: path, busyTimeout: 10)
                        try store.begin()
                        try store.blacklist(StateStore.BlacklistEntry(
                            key: "https://example.com/\(child).jpg", failedAt: 1, errorClass: "http-status",
                            message: "404", httpStatus: 404, attempts: 1))
                        try store.commit()
                        _exit(0)
                    } catch {
                        _exit(3)
                    }
                }
                try #require(pid > 0)
                children.append(pid)
            }
            for pid in children {
                var status: Int32 = 0
                let deadline = Monotonic.now() + 30
                while waitpid(pid, &status, WNOHANG) == 0 {
                    if Monotonic.now() > deadline { kill(pid, SIGKILL) }
                    usleep(1000)
                }
                if !(status & 0x7f == 0 && (status >> 8) & 0xff == 0) { failed += 1 }
            }
        }
        #expect(failed == 0, "\(failed) of \(rounds * processes) processes could not open and write")
        // Every process's write landed in its round's one database.
        let store = try StateStore(path: temp.path("round0/state.sqlite"))
        #expect(try store.blacklistEntries().count == processes)
    }
}
