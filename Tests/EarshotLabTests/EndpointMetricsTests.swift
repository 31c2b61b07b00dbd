import EarshotCore
import EarshotTestTraits
import Testing

@testable import EarshotLab

@Suite(.computing) struct EndpointMetricsTests {
    // An utterance with a pause inside: speech 0.5–1.5 s and 2.5–3.0 s.
    let labelled = [LabeledSegment(start: 0.5, end: 1.5), LabeledSegment(start: 2.5, end: 3.0)]

    func result(
        endpoint: Double?, reason: EndpointReason?, start: Double? = 0.5, outcome: InteractionOutcome = .audioCaptured
    )
        -> UtteranceResult
    {
        UtteranceResult(
            path: "u.wav", labelled: labelled, firstSpeechStart: start, endpoint: endpoint, reason: reason,
            outcome: outcome)
    }

    @Test func latencyIsEndpointMinusLabelledEndOfSpeech() {
        let metrics = EndpointMetrics([result(endpoint: 3.85, reason: .endingSilence)])
        #expect(abs(metrics.latency.median! - 0.85) < 1e-9)
        #expect(metrics.truncationRate == 0)
    }

    @Test func anEndpointInsideAPauseIsATruncation() {
        let cut = result(endpoint: 2.35, reason: .endingSilence)
        #expect(cut.isTruncated && cut.latency == nil)
        let metrics = EndpointMetrics([cut, result(endpoint: 3.9, reason: .endingSilence)])
        #expect(metrics.truncationRate == 0.5)
        #expect(metrics.latency.count == 1)
    }

    @Test func maxRecordingTimeCutsByDesignNotByTruncation() {
        #expect(!result(endpoint: 2.0, reason: .maxRecordingTime).isTruncated)
    }

    @Test func falseStartsAndWrongNoAudio() {
        let early = result(endpoint: 3.9, reason: .endingSilence, start: 0.1)
        #expect(early.isFalseStart(tolerance: 0.25))
        #expect(!result(endpoint: 3.9, reason: .endingSilence, start: 0.3).isFalseStart(tolerance: 0.25))
        let silentFile = UtteranceResult(
            path: "n.wav", labelled: [], firstSpeechStart: 1.2, endpoint: 2.0, reason: .endingSilence,
            outcome: .audioCaptured)
        #expect(silentFile.isFalseStart(tolerance: 0.25))
        let missed = result(endpoint: 1.5, reason: .initialSilenceTimeout, start: nil, outcome: .noAudio)
        let metrics = EndpointMetrics([early, silentFile, missed])
        #expect(metrics.speechUtterances == 2)
        #expect(metrics.wrongNoAudioRate == 0.5)
        #expect(abs(metrics.falseStartRate! - 2.0 / 3) < 1e-12)
    }

    @Test func inputEndingWithoutAnEndpointIsAMissedEndpoint() {
        let metrics = EndpointMetrics([result(endpoint: 3.2, reason: .endOfInput)])
        #expect(metrics.missedEndpointRate == 1 && metrics.latency.count == 0)
    }
}
