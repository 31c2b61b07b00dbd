/// A first-in first-out buffer over an array: append at the back, take from the front in O(1)
/// amortized (the taken prefix is dropped once it is more than half the storage). Not thread-safe:
/// queues between threads or tasks keep it under their lock.
public struct FIFO<Element> {
    private var items: [Element] = []
    private var head = 0

    public init() {}

    public var count: Int { items.count - head }
    public var isEmpty: Bool { head == items.count }

    public mutating func append(_ element: Element) { items.append(element) }

    /// The oldest element, or nil when empty.
    public mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }
}

extension FIFO: Sendable where Element: Sendable {}
