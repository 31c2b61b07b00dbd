import EarshotTestTraits
import Synchronization
import Testing
import WSCore

@testable import EarshotServer

/// The bound on client messages a Realtime session has read and not yet handled.
@Suite(.computing) struct RealtimeInboxTests {
    /// The reader stops at the bound, and goes on as the handler takes messages: one-byte messages count
    /// their overhead, so a client cannot queue millions of them within a bound in bytes.
    @Test func theReaderWaitsAtTheBoundAndGoesOnAsMessagesAreHandled() async throws {
        let inbox = RealtimeInbox(maxBytes: 8 * RealtimeInbox.overheadPerMessage)
        let put = Atomic(0)
        let reader = Task {
            for _ in 0..<100 {
                await inbox.put(RealtimeInbox.Message(.text("x")))
                put.add(1, ordering: .sequentiallyConsistent)
            }
            inbox.finish()
        }
        // Let the reader run ahead as far as it can: it is held once what waits is over the bound.
        for _ in 0..<1_000 { await Task.yield() }
        #expect(put.load(ordering: .sequentiallyConsistent) <= 8)
        var iterator = inbox.messages.makeAsyncIterator()
        var handled = 0
        while let message = await iterator.next() {
            let queued = put.load(ordering: .sequentiallyConsistent) - handled
            #expect(queued <= 8, "\(queued) messages were read ahead of the handler")
            handled += 1
            inbox.handled(message)
        }
        await reader.value
        #expect(handled == 100)
    }
}
