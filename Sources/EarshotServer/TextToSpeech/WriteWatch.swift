import Hummingbird
import NIOCore
import Synchronization

/// Watches an answer's writes for a client that reads nothing: a write waits while the connection's
/// buffers are full (the client is not reading), and one that has waited `timeout` means the client
/// has read nothing for that long. The time the answer spends synthesizing between writes never
/// counts, so a slow synthesis (waiting its turn on the one thread) is not taken for a stalled client.
final class WriteWatch: Sendable {
    /// When the write under way began; nil between writes.
    private let pendingSince = Mutex<ContinuousClock.Instant?>(nil)

    /// Writes `bytes`, marked as under way while the writer waits.
    func write(_ bytes: ByteBuffer, to writer: inout any ResponseBodyWriter) async throws {
        pendingSince.withLock { $0 = .now }
        defer { pendingSince.withLock { $0 = nil } }
        try await writer.write(bytes)
    }

    /// Returns true once a write has waited `timeout`; false when the task is cancelled first (the
    /// answer ended). It wakes at most once a `timeout` between writes, and at each write's deadline.
    func expires(after timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        var check = clock.now + timeout
        while true {
            do { try await Task.sleep(until: check, clock: clock) } catch { return false }
            let now = clock.now
            guard let since = pendingSince.withLock({ $0 }) else {
                check = now + timeout
                continue
            }
            if now - since >= timeout { return true }
            check = since + timeout
        }
    }
}
