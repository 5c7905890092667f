import ImgwarmSystem

/// A first-in-first-out queue that worker threads block on.
final class WorkQueue<Item: Sendable>: @unchecked Sendable {
    private let condition = Condition()
    /// Popped slots are set to nil at once: an item (a downloaded body) must not outlive its turn.
    private var items: [Item?] = []
    private var head = 0
    private var closed = false

    /// Adds an item and wakes one waiting worker; returns true when the queue was empty (so a
    /// consumer that drains it needs a wake-up only then).
    @discardableResult
    func push(_ item: Item) -> Bool {
        condition.lock()
        let wasEmpty = head == items.count
        items.append(item)
        condition.signal()
        condition.unlock()
        return wasEmpty
    }

    /// Adds several items under one lock and wakes the workers once.
    func push(contentsOf batch: [Item]) {
        guard !batch.isEmpty else { return }
        condition.lock()
        items.append(contentsOf: batch.map { Optional($0) })
        if batch.count == 1 { condition.signal() } else { condition.broadcast() }
        condition.unlock()
    }

    /// The next item; nil once the queue is closed and empty. `waiting` runs (outside the lock)
    /// before the caller blocks for lack of work.
    func pop(waiting: () -> Void = {}) -> Item? {
        condition.lock()
        if head == items.count && !closed {
            condition.unlock()
            waiting()
            condition.lock()
        }
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let item = items[head]
        items[head] = nil
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    /// Takes everything queued now without waiting.
    func drain() -> [Item] {
        condition.lock()
        defer { condition.unlock() }
        let taken = items[head...].compactMap { $0 }
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
