import Synchronization

/// The hard end of a graceful shutdown (`--drain-timeout`): once the listener has closed, requests in
/// flight have this long to finish; a recognition still running then is answered 503 (its client may
/// retry on another instance) and the process exits. Without it one slow upload holds a stopping
/// instance for as long as its client likes.
final class DrainDeadline: Sendable {
    let timeout: Duration
    private let deadline = Mutex<ContinuousClock.Instant?>(nil)

    init(timeout: Duration) { self.timeout = timeout }

    /// The listener has closed: the countdown starts (once).
    func start(at now: ContinuousClock.Instant = .now) {
        deadline.withLock { $0 = $0 ?? now + timeout }
    }

    /// Whether in-flight recognitions must give up now.
    var hasPassed: Bool { deadline.withLock { $0.map { .now >= $0 } ?? false } }
}
