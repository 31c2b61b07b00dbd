import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Synchronization
import Testing

@testable import EarshotTranscription

/// The queue between the reading task and a worker: in order, bounded, and closed without leaving
/// anyone waiting.
///
/// On the waiting threads (the producers and consumers they start too): queued behind the computing
/// suites, they would spend their time limit waiting for a thread.
@Suite(.timeLimit(.minutes(1)), .waiting) struct SegmentQueueTests {
    @Test func itemsComeOutInOrderThenNilAfterClose() async {
        let queue = SegmentQueue<Int>(capacity: 2)
        let consumer = Task(executorPreference: TestExecutors.waiting) {
            var seen: [Int] = []
            while let item = await queue.pop() { seen.append(item) }
            return seen
        }
        for item in 0..<100 { await queue.push(item) }
        queue.close()
        #expect(await consumer.value == Array(0..<100))
    }

    @Test func aFullQueueHoldsTheProducerUntilAnItemIsTaken() async {
        let queue = SegmentQueue<Int>(capacity: 2)
        await queue.push(1)
        await queue.push(2)
        let pushed = Flag()
        let producer = Task(executorPreference: TestExecutors.waiting) {
            await queue.push(3)
            pushed.set()
        }
        // The third push cannot complete while two items are held; let it get as far as it can.
        for _ in 0..<100 { await Task.yield() }
        #expect(!pushed.isSet)
        #expect(await queue.pop() == 1)
        await producer.value
        #expect(pushed.isSet)
        #expect(await queue.pop() == 2)
        #expect(await queue.pop() == 3)
    }

    @Test func closingReleasesAWaitingConsumerAndAWaitingProducer() async {
        let empty = SegmentQueue<Int>(capacity: 1)
        let consumer = Task(executorPreference: TestExecutors.waiting) { await empty.pop() }
        for _ in 0..<100 { await Task.yield() }
        empty.close()
        #expect(await consumer.value == nil)

        let full = SegmentQueue<Int>(capacity: 1)
        await full.push(1)
        let producer = Task(executorPreference: TestExecutors.waiting) { await full.push(2) }  // dropped when the queue closes
        for _ in 0..<100 { await Task.yield() }
        full.close()
        await producer.value
        #expect(await full.pop() == 1)
        #expect(await full.pop() == nil)
        await full.push(3)  // after close: dropped, does not wait
        #expect(await full.pop() == nil)
    }
}

final class Flag: Sendable {
    private let stored = Atomic<Bool>(false)
    func set() { stored.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { stored.load(ordering: .sequentiallyConsistent) }
}
