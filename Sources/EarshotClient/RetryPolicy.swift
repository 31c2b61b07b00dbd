import Foundation

/// When a request to a recognition service is worth sending again, and after how long: the client's
/// rule for every backend, so a transcriber or an application does not invent its own.
///
/// Transient failures are a refused or lost connection, no answer in time, 429 (too many requests: an
/// app over its service's per-app limit, which frees as its other requests finish) and 502, 503 and
/// 504. Anything else (400, 401, 413 …) would fail again the same way and is not retried. A connection
/// failure has taken its own time already (refused at once, or the connect timeout), so a service that
/// is restarting is tried again soon: 0.25, 0.5, 1 … s. A busy or failing one is given longer: 1, 2,
/// 4 … × ``backoff`` seconds, or what its `Retry-After` asks, if that is longer.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts after the first for a transient failure.
    public var retries: Int
    /// The first pause before a retry of a busy service, in seconds; each later one doubles it.
    public var backoff: Double

    /// Throws `.invalidParameter` for a negative `retries` or a `backoff` that is not finite and ≥ 0.
    public init(retries: Int = 3, backoff: Double = 1) throws(SpeechClientError) {
        guard retries >= 0 else { throw .invalidParameter("retries \(retries); expected 0 or more") }
        guard backoff.isFinite, backoff >= 0 else {
            throw .invalidParameter("backoff \(backoff); expected seconds ≥ 0")
        }
        self.retries = retries
        self.backoff = backoff
    }

    /// A failure gave up on: the last error, and how many attempts were made.
    public struct GaveUp: Error, Sendable, CustomStringConvertible {
        public var error: SpeechClientError
        public var attempts: Int
        public var description: String { attempts == 1 ? "\(error)" : "\(error) (after \(attempts) attempts)" }
    }

    /// Busy or unreachable, worth another try.
    public static func isTransient(_ error: SpeechClientError) -> Bool {
        switch error {
        case .connectionFailure, .noResponseFromServer: true
        case .httpStatus(let status, _, _): [429, 502, 503, 504].contains(status)
        default: false
        }
    }

    /// Seconds to wait before retry `attempt + 1` (attempt 0 is the first retry) after `error`.
    public func pause(before attempt: Int, after error: SpeechClientError) -> Double {
        if case .connectionFailure = error { return min(backoff, 0.25) * pow(2, Double(attempt)) }
        return max(backoff * pow(2, Double(attempt)), error.retryAfter ?? 0)
    }

    /// Runs `operation` until it succeeds, fails for good, or has been retried ``retries`` times;
    /// `willRetry` hears each failure to be retried with the pause before the retry and the attempt
    /// number (1 for the first retry). Throws ``GaveUp``, or `CancellationError` once the task is
    /// cancelled (a request cancelled with its task is not retried).
    public func run<Value>(
        _ operation: () async throws(SpeechClientError) -> Value,
        willRetry: (_ error: SpeechClientError, _ pause: Double, _ attempt: Int) -> Void = { _, _, _ in }
    ) async throws -> Value {
        var attempt = 0
        while true {
            try Task.checkCancellation()
            let error: SpeechClientError
            do throws(SpeechClientError) {
                return try await operation()
            } catch let failure {
                error = failure
            }
            try Task.checkCancellation()
            guard Self.isTransient(error), attempt < retries else { throw GaveUp(error: error, attempts: attempt + 1) }
            let pause = pause(before: attempt, after: error)
            attempt += 1
            willRetry(error, pause, attempt)
            try await Task.sleep(for: .seconds(pause))
        }
    }
}
