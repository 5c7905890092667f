import Testing

@testable import ImgwarmKit

@Suite struct SchedulingTests {
    func spool(_ priority: Priority, _ keys: [String], order: ExecutionOrder) throws -> EntrySpool {
        let spool = try EntrySpool(priority: priority, folder: "/tmp")
        for (index, key) in keys.enumerated() { try spool.append(line: index + 1, input: 0, key: key) }
        try spool.finishWriting(order: order)
        return spool
    }

    /// Several segments' worth of entries come back complete and in order, both ways.
    @Test(arguments: [ExecutionOrder.fifo, .lifo])
    func spoolRoundTrip(order: ExecutionOrder) throws {
        let keys = (0..<(EntrySpool.segmentSize * 3 + 17)).map { "https://a.com/\($0).png?q=\u{e9}" }
        let s = try spool(.normal, keys, order: order)
        #expect(s.count == keys.count)
        var read: [String] = []
        var lines: [Int] = []
        while let entry = s.next() {
            read.append(entry.key)
            lines.append(entry.line)
        }
        #expect(read == (order == .fifo ? keys : keys.reversed()))
        #expect(lines.first == (order == .fifo ? 1 : keys.count))
        #expect(s.remaining == 0)
    }

    @Test func emptySpool() throws {
        let s = try spool(.low, [], order: .fifo)
        #expect(s.next() == nil)
    }

    @Test func schedulerPrefersPriorityAndDueRetries() throws {
        let scheduler = Scheduler(spools: [
            try spool(.high, ["h1"], order: .fifo), try spool(.normal, ["n1", "n2"], order: .fifo), try spool(.low, ["l1"], order: .fifo),
        ])
        #expect(scheduler.pendingCount == 4)
        #expect(scheduler.next(now: 0)?.key == "h1")
        let n1 = try #require(scheduler.next(now: 0))
        #expect(n1.key == "n1")
        scheduler.retry(n1, at: 10)
        #expect(scheduler.nextRetryDue == 10)
        #expect(scheduler.next(now: 5)?.key == "n2", "the retry is not due yet")
        #expect(scheduler.next(now: 11)?.key == "n1", "a due retry goes before lower priorities")
        #expect(scheduler.next(now: 11)?.key == "l1")
        #expect(scheduler.next(now: 11) == nil)
        #expect(scheduler.isEmpty)
    }
}
