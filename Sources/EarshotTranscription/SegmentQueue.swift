import EarshotCore
import Synchronization

/// A first-in first-out queue from one task to another: `push` waits while the queue holds
/// `capacity` items (back-pressure, so a fast reader cannot fill memory ahead of slow recognizers),
/// `pop` waits while it is empty and returns nil once the queue is closed and drained.
///
/// One producer and one consumer: at most one `push` and one `pop` wait at a time. Waiting ends
/// with ``close()``, not with task cancellation: the scheduler closes its queues when it stops, so a
/// cancelled run drains rather than leaving a continuation behind.
final class SegmentQueue<Item: Sendable>: Sendable {
    private struct State {
        var items = FIFO<Item>()
        var closed = false
        /// The consumer, waiting for an item.
        var consumer: CheckedContinuation<Item?, Never>?
        /// The producer, waiting for room, with the item it brought.
        var producer: (item: Item, resume: CheckedContinuation<Void, Never>)?

        var count: Int { items.count }
    }

    private enum PushOutcome {
        case handOff(to: CheckedContinuation<Item?, Never>)
        case stored
        case wait
    }

    private enum PopOutcome {
        case item(Item, producer: CheckedContinuation<Void, Never>?)
        case end
        case wait
    }

    private let state = Mutex(State())
    private let capacity: Int

    /// A queue holding at most `capacity` items.
    init(capacity: Int) {
        precondition(capacity > 0, "a queue must hold at least one item")
        self.capacity = capacity
    }

    /// Appends `item`, waiting for room. An item pushed after ``close()`` is dropped.
    func push(_ item: Item) async {
        await withCheckedContinuation { (pushed: CheckedContinuation<Void, Never>) in
            let outcome: PushOutcome = state.withLock { state in
                if state.closed { return .stored }
                if let consumer = state.consumer {  // it waits only on an empty queue: hand the item over
                    state.consumer = nil
                    return .handOff(to: consumer)
                }
                guard state.count >= capacity else {
                    state.items.append(item)
                    return .stored
                }
                state.producer = (item, pushed)
                return .wait
            }
            switch outcome {
            case .handOff(let consumer):
                consumer.resume(returning: item)
                pushed.resume()
            case .stored:
                pushed.resume()
            case .wait:
                break
            }
        }
    }

    /// The oldest item, waiting for one; nil when the queue is closed and empty.
    func pop() async -> Item? {
        await withCheckedContinuation { (popped: CheckedContinuation<Item?, Never>) in
            let outcome: PopOutcome = state.withLock { state in
                if state.count > 0 {
                    let item = state.items.popFirst()!
                    var producer: CheckedContinuation<Void, Never>?
                    if let waiting = state.producer {
                        state.producer = nil
                        state.items.append(waiting.item)
                        producer = waiting.resume
                    }
                    return .item(item, producer: producer)
                }
                if state.closed { return .end }
                state.consumer = popped
                return .wait
            }
            switch outcome {
            case .item(let item, let producer):
                producer?.resume()
                popped.resume(returning: item)
            case .end:
                popped.resume(returning: nil)
            case .wait:
                break
            }
        }
    }

    /// No more items will be pushed: a waiting `pop` returns nil, a waiting `push` returns (its item
    /// dropped), and later pops return what is left, then nil.
    func close() {
        let (consumer, producer) = state.withLock { state in
            state.closed = true
            defer {
                state.consumer = nil
                state.producer = nil
            }
            return (state.count == 0 ? state.consumer : nil, state.producer?.resume)
        }
        consumer?.resume(returning: nil)
        producer?.resume()
    }
}
