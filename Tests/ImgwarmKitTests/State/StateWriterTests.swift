import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// The prefetch's state writer thread on real SQLite files: order, reads that see queued writes,
/// commits other connections can see, and a failure that stops writing.
@Suite struct StateWriterTests {
    func path(_ temp: TemporaryFolder) -> String { temp.path("private/state.sqlite") }

    func record(_ key: String, size: Int) -> StateStore.Record {
        StateStore.Record(
            key: key, fileName: SDFileName.forKey(key), size: size, format: "png", width: 1, height: 1, etag: nil,
            lastModified: nil, fetchedAt: 1, validatedAt: 1)
    }

    /// Writes apply in the order they were queued; a read right after a write sees it (the
    /// writer thread had no time to take it); `finish` commits, so another connection sees all.
    @Test func writesLandInOrderAndReadsSeeQueuedWrites() throws {
        let temp = try TemporaryFolder()
        let writer = StateWriter(store: try StateStore(path: path(temp)))
        for index in 0..<1200 {
            let stored = record("k\(index)", size: index + 1)
            writer.submit { state throws(StateError) in try state.recordStored(stored) }
        }
        let replaced = record("k5", size: 99)
        writer.submit { state throws(StateError) in try state.recordStored(replaced) }
        #expect(writer.read { try? $0.record(forKey: "k5") }?.size == 99)
        let last = record("last", size: 7)
        writer.submit { state throws(StateError) in try state.recordStored(last) }
        #expect(writer.read { try? $0.record(forKey: "last") } == last)
        #expect(writer.finish() == nil)

        let other = try StateStore(path: path(temp), readOnly: true)
        #expect(try other.counts().trackedKeys == 1201)
        #expect(try other.record(forKey: "k5")?.size == 99)
        #expect(try other.record(forKey: "k1199")?.size == 1200)
    }

    /// While the run goes on, writes are committed within about a second (other processes
    /// sharing the database see them, and a crash loses at most that).
    @Test func commitsWhileRunning() throws {
        let temp = try TemporaryFolder()
        let writer = StateWriter(store: try StateStore(path: path(temp)))
        defer { _ = writer.finish() }
        for index in 0..<3 {
            let stored = record("k\(index)", size: 1)
            writer.submit { state throws(StateError) in try state.recordStored(stored) }
        }
        let other = try StateStore(path: path(temp), readOnly: true)
        var seen = 0
        let deadline = Monotonic.now() + 10
        while seen < 3 && Monotonic.now() < deadline {
            Monotonic.sleep(0.05)
            seen = (try? other.counts().trackedKeys) ?? 0
        }
        #expect(seen == 3)
    }

    /// Another process holding the write lock past the wait allowed fails the writer: `failure`
    /// says so, later writes are dropped, and `finish` returns the same error.
    @Test func aLockHeldTooLongStopsWriting() throws {
        let temp = try TemporaryFolder()
        let writer = StateWriter(store: try StateStore(path: path(temp), busyTimeout: 0.2))
        let holder = try StateStore(path: path(temp))
        try holder.begin()
        let first = record("first", size: 1)
        writer.submit { state throws(StateError) in try state.recordStored(first) }
        var failure: StateError?
        let deadline = Monotonic.now() + 10
        while failure == nil && Monotonic.now() < deadline {
            Monotonic.sleep(0.05)
            failure = writer.failure
        }
        guard case .locked = failure else {
            Issue.record("expected a lock failure, got \(String(describing: failure))")
            return
        }
        holder.rollback()
        let dropped = record("dropped", size: 1)
        writer.submit { state throws(StateError) in try state.recordStored(dropped) }
        #expect(writer.finish() == failure)
        let other = try StateStore(path: path(temp), readOnly: true)
        #expect(try other.counts().trackedKeys == 0)
    }
}
