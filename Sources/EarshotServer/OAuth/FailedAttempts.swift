/// Failed token requests, counted per key (an app key, a client address) over a sliding window, so
/// that guessing secrets is slow: once a key has `limit` failures within `window`, every request for
/// it is refused with 429 until the oldest of them leaves the window.
///
/// A pure value driven by the instants the caller passes. Memory is bounded: at most `maximumKeys`
/// keys are tracked (keys whose failures have all left the window go first, then the least recently
/// failed), each holding at most `limit` instants.
public struct FailedAttempts: Sendable {
    public let limit: Int
    public let window: Duration
    public let maximumKeys: Int
    private var failures: [String: [ContinuousClock.Instant]] = [:]

    public init(limit: Int = 10, window: Duration = .seconds(60), maximumKeys: Int = 10_000) {
        precondition(limit > 0 && window > .zero && maximumKeys > 0, "a failed-attempt limit must be positive")
        self.limit = limit
        self.window = window
        self.maximumKeys = maximumKeys
    }

    /// Keys tracked now (for tests).
    public var keyCount: Int { failures.count }

    /// How long until any of `keys` may try again, or nil if none is over its limit at `now`.
    public func retryAfter(for keys: [String], now: ContinuousClock.Instant) -> Duration? {
        keys.compactMap { key -> Duration? in
            let recent = (failures[key] ?? []).filter { now - $0 < window }
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return window - (now - oldest)
        }.max()
    }

    /// Counts a failure for each of `keys` at `now`.
    public mutating func recordFailure(for keys: [String], now: ContinuousClock.Instant) {
        for key in keys {
            var recent = (failures[key] ?? []).filter { now - $0 < window }
            recent.append(now)
            failures[key] = Array(recent.suffix(limit))
        }
        guard failures.count > maximumKeys else { return }
        failures = failures.filter { $0.value.contains { now - $0 < window } }
        while failures.count > maximumKeys,
            let stalest = failures.min(by: { ($0.value.last ?? now) < ($1.value.last ?? now) })?.key
        {
            failures[stalest] = nil
        }
    }
}
