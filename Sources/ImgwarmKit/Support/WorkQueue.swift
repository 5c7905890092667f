import Foundation

/// A first-in-first-out queue that worker threads block on.
final class WorkQueue<Item: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Item] = []
    private var head = 0
    private var closed = false

    /// Adds an item and wakes one waiting worker.
    func push(_ item: Item) {
        condition.lock()
        items.append(item)
        condition.signal()
        condition.unlock()
    }

    /// The next item; nil once the queue is closed and empty.
    func pop() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    /// Takes everything queued now without waiting.
    func drain() -> [Item] {
        condition.lock()
        defer { condition.unlock() }
        let taken = Array(items[head...])
        items.removeAll(keepingCapacity: true)
        head = 0
        return taken
    }

    /// Ends the queue: waiting workers get nil once it is empty.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
