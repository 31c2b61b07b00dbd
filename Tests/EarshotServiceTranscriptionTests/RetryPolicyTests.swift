import EarshotClient
import EarshotTestTraits
import Foundation
import Testing

/// When a request is sent again (the client's `RetryPolicy`): the back-off doubles, a connection
/// failure is retried sooner, a service's `Retry-After` is waited out when it asks for longer than the
/// back-off, and only transient failures are retried.
@Suite(.computing) struct RetryPolicyTests {
    @Test func retryAfterIsReadAsSecondsOrAnHTTPDate() throws {
        #expect(SpeechClientError.retryAfter(header: "1") == 1)
        #expect(SpeechClientError.retryAfter(header: " 120 ") == 120)
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-23T21:00:00Z"))
        #expect(SpeechClientError.retryAfter(header: "Mon, 23 Nov 2026 21:00:30 GMT", now: now) == 30)
        #expect(SpeechClientError.retryAfter(header: "Mon, 23 Nov 2026 20:59:30 GMT", now: now) == nil)  // past
        for garbage in [nil, "", "soon", "-5", "1.5e3", "２"] {
            #expect(SpeechClientError.retryAfter(header: garbage) == nil, "\(garbage ?? "nil")")
        }
    }

    @Test func aLongerRetryAfterWinsOverTheBackOff() throws {
        let policy = try RetryPolicy(retries: 3, backoff: 1)
        let busy = SpeechClientError.httpStatus(503, nil, retryAfter: 5)
        #expect(policy.pause(before: 0, after: busy) == 5)
        #expect(policy.pause(before: 3, after: busy) == 8)  // 1 × 2³ is longer
        let silent = SpeechClientError.httpStatus(503, nil)
        #expect([0, 1, 2].map { policy.pause(before: $0, after: silent) } == [1, 2, 4])
        let refused = SpeechClientError.connectionFailure("connection refused")
        #expect([0, 1, 2].map { policy.pause(before: $0, after: refused) } == [0.25, 0.5, 1])
    }

    /// Transient failures are retried up to the limit, then given up on with the attempt count;
    /// others fail at once.
    @Test func onlyTransientFailuresAreRetriedUpToTheLimit() async throws {
        let policy = try RetryPolicy(retries: 2, backoff: 0)
        let calls = Calls()
        var heard: [Int] = []
        await #expect {
            _ = try await policy.run { () throws(SpeechClientError) -> Int in
                calls.count += 1
                throw .httpStatus(503, nil)
            } willRetry: { _, _, attempt in
                heard.append(attempt)
            }
        } throws: { error in
            (error as? RetryPolicy.GaveUp)?.attempts == 3 && "\(error)" == "HTTP 503 (after 3 attempts)"
        }
        #expect(calls.count == 3 && heard == [1, 2])

        calls.count = 0
        await #expect {
            _ = try await policy.run { () throws(SpeechClientError) -> Int in
                calls.count += 1
                throw .httpStatus(401, nil)
            }
        } throws: { error in
            (error as? RetryPolicy.GaveUp)?.attempts == 1 && "\(error)" == "HTTP 401"
        }
        #expect(calls.count == 1)

        calls.count = 0
        let answer = try await policy.run { () throws(SpeechClientError) -> Int in
            calls.count += 1
            if calls.count < 2 { throw .connectionFailure("refused") }
            return 42
        }
        #expect(answer == 42 && calls.count == 2)

        // 429 is a service's per-app limit (or a token rate limit): it frees, so it is retried.
        calls.count = 0
        let later = try await policy.run { () throws(SpeechClientError) -> Int in
            calls.count += 1
            if calls.count < 2 { throw .httpStatus(429, nil, retryAfter: 0) }
            return 7
        }
        #expect(later == 7 && calls.count == 2)
    }

    final class Calls {
        var count = 0
    }
}
