import Foundation

/// A first-in first-out queue between threads: `push` blocks while the queue holds `capacity` items
/// (back-pressure, so a fast reader cannot fill memory ahead of slow recognizers), `pop` blocks while
/// it is empty and returns nil once it is closed and drained.
///
/// `@unchecked Sendable`: every stored property is read and written only with `condition` locked.
final class WorkQueue<Item: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Item] = []
    private var head = 0
    private var closed = false
    private let capacity: Int

    /// A queue holding at most `capacity` items (`Int.max`: unbounded).
    init(capacity: Int = .max) {
        precondition(capacity > 0, "a queue must hold at least one item")
        self.capacity = capacity
    }

    /// Appends `item`, waiting for room. Items pushed after `close()` are dropped.
    func push(_ item: Item) {
        condition.lock()
        defer { condition.unlock() }
        while !closed && items.count - head >= capacity { condition.wait() }
        guard !closed else { return }
        items.append(item)
        condition.broadcast()
    }

    /// The oldest item, waiting for one; nil when the queue is closed and empty.
    func pop() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return item
    }

    /// No more items will be pushed; waiting pops return what is left, then nil.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
