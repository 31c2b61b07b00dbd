import EarshotClient
import Foundation
import Testing

@testable import EarshotServiceTranscription

/// When a segment is sent again: the back-off doubles, a connection failure is retried sooner, and a
/// service's `Retry-After` is waited out when it asks for longer than the back-off.
@Suite struct RetryPolicyTests {
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

    @Test func aLongerRetryAfterWinsOverTheBackOff() {
        let busy = SpeechClientError.httpStatus(503, nil, retryAfter: 5)
        #expect(ServiceTranscriber.pause(before: 0, after: busy, backoff: 1) == 5)
        #expect(ServiceTranscriber.pause(before: 3, after: busy, backoff: 1) == 8)  // 1 × 2³ is longer
        let silent = SpeechClientError.httpStatus(503, nil)
        #expect([0, 1, 2].map { ServiceTranscriber.pause(before: $0, after: silent, backoff: 1) } == [1, 2, 4])
        let refused = SpeechClientError.connectionFailure("connection refused")
        #expect([0, 1, 2].map { ServiceTranscriber.pause(before: $0, after: refused, backoff: 1) } == [0.25, 0.5, 1])
    }
}
