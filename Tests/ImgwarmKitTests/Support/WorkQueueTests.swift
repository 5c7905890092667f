import Testing

@testable import ImgwarmKit

@Suite struct WorkQueueTests {
    final class Payload: Sendable {}

    /// A popped item is released at once (bodies must not pile up in the queue's storage).
    @Test func poppedItemsAreReleased() {
        let queue = WorkQueue<Payload>()
        weak var first: Payload?
        do {
            let payload = Payload()
            first = payload
            queue.push(payload)
            queue.push(Payload())
        }
        _ = queue.pop()
        #expect(first == nil)
        #expect(queue.drain().count == 1)
    }

    @Test func pushReportsAnEmptyQueue() {
        let queue = WorkQueue<Int>()
        #expect(queue.push(1))
        #expect(!queue.push(2))
        _ = queue.drain()
        #expect(queue.push(3))
        queue.close()
        #expect(queue.pop() == 3)
        #expect(queue.pop() == nil)
    }
}
