import Testing

@testable import ImgwarmKit

@Suite struct SchedulingTests {
    func spool(_ priority: Priority, _ keys: [String], order: ExecutionOrder) throws -> EntrySpool {
        let spool = try EntrySpool(priority: priority, folder: "/tmp")
        for (index, key) in keys.enumerated() { try spool.append(line: index + 1, input: 0, url: key, key: key) }
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

    /// A key of its own survives the spool beside its URL, across segments, mixed with lines
    /// whose key is their URL.
    @Test(arguments: [ExecutionOrder.fifo, .lifo])
    func spoolKeepsSeparateKeys(order: ExecutionOrder) throws {
        let s = try EntrySpool(priority: .normal, folder: "/tmp")
        let count = EntrySpool.segmentSize + 5
        func url(_ i: Int) -> String { "https://a.com/\(i).png?token=\(i * 7)" }
        func key(_ i: Int) -> String { i % 3 == 0 ? url(i) : "key \(i) \u{e9}" }
        for i in 0..<count { try s.append(line: i + 1, input: 1, url: url(i), key: key(i)) }
        try s.finishWriting(order: order)
        var seen: [Int] = []
        while let entry = s.next() {
            let i = entry.line - 1
            #expect(entry.url == url(i))
            #expect(entry.key == key(i))
            #expect(entry.input == 1)
            seen.append(i)
        }
        #expect(seen == (order == .fifo ? Array(0..<count) : Array((0..<count).reversed())))
    }

    @Test func emptySpool() throws {
        let s = try spool(.low, [], order: .fifo)
        #expect(s.next() == nil)
    }

    @Test func schedulerPrefersPriorityAndDueRetries() throws {
        let scheduler = Scheduler(spools: [
            try spool(.high, ["h1"], order: .fifo), try spool(.normal, ["n1", "n2"], order: .fifo),
            try spool(.low, ["l1"], order: .fifo),
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

    /// The scheduler asks its policy: a paced host's next URL waits for its time while another
    /// host's goes first, and `nextDue` says when to look again.
    @Test func aPacedHostWaitsWhileAnotherGoesFirst() throws {
        var configuration = SlotPolicy.Configuration()
        configuration.maxRatePerHost = 2
        let scheduler = Scheduler(
            spools: [try spool(.normal, ["http://a/1", "http://a/2", "http://b/1"], order: .fifo)],
            policy: SlotPolicy(configuration))
        let a1 = try #require(scheduler.next(now: 10))
        #expect(a1.key == "http://a/1" && a1.host == "http://a")
        scheduler.started(a1, now: 10)
        #expect(scheduler.next(now: 10.1)?.key == "http://b/1", "a/2 waits for its host")
        #expect(scheduler.nextDue(now: 10.1) == 10.5)
        #expect(scheduler.next(now: 10.2) == nil)
        #expect(scheduler.next(now: 10.5)?.key == "http://a/2")
    }

    /// When a host turns out unavailable, its retries waiting for their time are due at once.
    @Test func anUnavailableHostsRetriesAreDueAtOnce() throws {
        let scheduler = Scheduler(
            spools: [try spool(.normal, (1...5).map { "http://dead/\($0)" }, order: .fifo)],
            policy: SlotPolicy(SlotPolicy.Configuration()))
        // One at a time: each failure a round of its own (`HostBreaker`).
        var now = 1.0
        var events: [SlotPolicy.Event] = []
        var count = 0
        while let entry = scheduler.next(now: now) {
            count += 1
            scheduler.started(entry, now: now)
            let refused = SlotPolicy.Completion(
                kind: .connectionFailure(message: "refused", answered: false), latency: nil, startedAt: now)
            now += 0.1
            events = scheduler.finished(entry, refused, now: now)
            if count < 5 {
                #expect(!events.contains { if case .unavailable = $0 { true } else { false } })
                scheduler.retry(entry, at: 30)
            }
        }
        #expect(count == 5)
        #expect(events.contains { if case .unavailable(host: "http://dead", _) = $0 { true } else { false } })
        #expect(scheduler.nextRetryDue == now)
        #expect(scheduler.policy?.unavailability("http://dead") != nil)
    }
}
