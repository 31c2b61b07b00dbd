import EarshotServer
import EarshotTestTraits
import Testing

@Suite(.waiting) struct FailedAttemptsTests {
    let start = ContinuousClock.now

    @Test func theLimitHoldsForTheWindowThenLifts() {
        var attempts = FailedAttempts(limit: 3, window: .seconds(60))
        for second in 0..<3 { attempts.recordFailure(for: ["client:a"], now: start + .seconds(second)) }
        #expect(attempts.retryAfter(for: ["client:a"], now: start + .seconds(3)) == .seconds(57))
        #expect(attempts.retryAfter(for: ["client:b"], now: start + .seconds(3)) == nil)
        // The first failure leaves the window at 60 s.
        #expect(attempts.retryAfter(for: ["client:a"], now: start + .seconds(60)) == nil)
    }

    @Test func anyOfSeveralKeysOverItsLimitRefuses() {
        var attempts = FailedAttempts(limit: 2, window: .seconds(10))
        attempts.recordFailure(for: ["client:a", "address:1"], now: start)
        attempts.recordFailure(for: ["client:b", "address:1"], now: start)
        #expect(attempts.retryAfter(for: ["client:c", "address:1"], now: start) == .seconds(10))
        #expect(attempts.retryAfter(for: ["client:a", "address:2"], now: start) == nil)
    }

    @Test func memoryIsBoundedByTheKeyCap() {
        var attempts = FailedAttempts(limit: 5, window: .seconds(60), maximumKeys: 100)
        for index in 0..<10_000 {
            attempts.recordFailure(for: ["client:\(index)"], now: start + .milliseconds(index))
        }
        #expect(attempts.keyCount == 100)
        // The most recent keys are the ones kept.
        attempts.recordFailure(for: ["client:9999"], now: start + .seconds(11))
        #expect(attempts.keyCount == 100)
    }
}
