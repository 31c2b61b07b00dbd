#if canImport(Glibc)
    import Glibc
#endif

/// A thread's CPU clock (`pthread_getcpuclockid`): the CPU time that thread has used, readable from
/// any thread while it runs. For costs that load on the machine must not stretch — a request's
/// decoding, a decoder's work per second of audio — where wall time would.
public struct ThreadCPUClock: Sendable, Equatable {
    private let id: clockid_t

    /// The calling thread's clock, or nil where the system has none.
    public static var current: ThreadCPUClock? {
        var id = clockid_t()
        guard pthread_getcpuclockid(pthread_self(), &id) == 0 else { return nil }
        return ThreadCPUClock(id: id)
    }

    private init(id: clockid_t) { self.id = id }

    /// CPU time the thread has used since it started (zero if the clock cannot be read).
    public var elapsed: Duration {
        var time = timespec()
        guard clock_gettime(id, &time) == 0 else { return .zero }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
