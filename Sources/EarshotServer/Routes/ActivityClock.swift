import Foundation

/// How long a request has been waiting for its client, shared between the task reading the body
/// and the watchdog that enforces the read timeout. Time the service spends recognizing a chunk does
/// not count: only time spent waiting for the next one.
final class ActivityClock: @unchecked Sendable {
    // Guarded by `lock`; the only state, so the class is safe to share.
    private let lock = NSLock()
    private var waitingSince: ContinuousClock.Instant? = .now

    /// The reader is about to wait for the client.
    func startWaiting() { lock.withLock { waitingSince = .now } }

    /// The client delivered, or the body ended.
    func stopWaiting() { lock.withLock { waitingSince = nil } }

    /// How long the current wait has lasted (zero when not waiting).
    var idle: Duration { lock.withLock { waitingSince.map { ContinuousClock.now - $0 } ?? .zero } }
}
