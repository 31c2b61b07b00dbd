import EarshotCore
import EarshotTestTraits
import Testing

@testable import EarshotLab

/// On-time scoring against the label oracle, on hand-made results with hand-computed rates.
@Suite(.computing) struct OracleTimingTests {
    static let labelled = [LabeledSegment(start: 0.5, end: 2.0)]

    /// An utterance whose oracle ended on silence at 2.85 s, and whose detector-driven endpoint came at
    /// `endpoint` for `reason`.
    static func result(
        _ endpoint: Double?, _ reason: EndpointReason? = .endingSilence, oracle: Double = 2.85,
        oracleReason: EndpointReason = .endingSilence, labelled: [LabeledSegment] = labelled
    ) -> UtteranceResult {
        UtteranceResult(
            path: "u.wav", labelled: labelled, firstSpeechStart: 0.5, endpoint: endpoint, reason: reason,
            outcome: .audioCaptured, oracleEndpoint: oracle, oracleReason: oracleReason)
    }

    @Test func delayIsEndpointMinusOracleEndpointAndTheToleranceIsInclusive() {
        #expect(Self.result(2.96).oracleDelay == 0.11)
        #expect(Self.result(2.96).timing(tolerance: 0.1) == .late)
        #expect(Self.result(2.95).timing(tolerance: 0.1) == .onTime)  // 2.95 − 2.85 is 0.0999999… in floats
        #expect(Self.result(2.75).timing(tolerance: 0.1) == .onTime)
        #expect(Self.result(2.74).timing(tolerance: 0.1) == .early)
        #expect(Self.result(2.74).timing(tolerance: 0.2) == .onTime)
        // Any endpoint counts, a time limit too: a wrong NoAudio at 1.5 s is early.
        #expect(Self.result(1.5, .initialSilenceTimeout).timing(tolerance: 0.1) == .early)
    }

    @Test func noEndpointWhereTheOracleHasOneIsMissed() {
        let missed = Self.result(4.0, .endOfInput)
        #expect(missed.timing(tolerance: 0.1) == .missed && missed.oracleDelay == nil)
    }

    @Test func utterancesWithoutSpeechOrWithoutAnOracleEndpointAreNotScored() {
        #expect(Self.result(2.9, oracleReason: .endOfInput).timing(tolerance: 0.1) == nil)
        #expect(Self.result(2.9, labelled: []).timing(tolerance: 0.1) == nil)
        let unscored = UtteranceResult(
            path: "u.wav", labelled: Self.labelled, firstSpeechStart: 0.5, endpoint: 2.9, reason: .endingSilence,
            outcome: .audioCaptured)
        #expect(unscored.timing(tolerance: 0.1) == nil && unscored.oracleDelay == nil)
    }

    @Test func ratesAreSharesOfTheScoredUtterances() {
        let results = [
            Self.result(2.85), Self.result(2.9), Self.result(3.1), Self.result(2.6), Self.result(4.0, .endOfInput),
            Self.result(3.0, oracleReason: .endOfInput),  // not scored
        ]
        let timing = OracleTiming(results, tolerance: 0.1)
        #expect(timing.utterances == 5)
        #expect(timing.onTimeRate == 0.4 && timing.lateRate == 0.2 && timing.earlyRate == 0.2)
        #expect(timing.missedRate == 0.2)
        // Delays of the four where both fired: 0, 0.05, 0.25, −0.25.
        #expect(timing.delay.count == 4)
        #expect(timing.delay.median == 0.025)
        #expect(abs(timing.absoluteDelay.median! - 0.15) < 1e-12)
        #expect(abs(timing.absoluteDelay.max! - 0.25) < 1e-12)
        #expect(OracleTiming(results, tolerance: 0.3).onTimeRate == 0.8)
    }

    @Test func noScoredUtterancesGiveNoRates() {
        let timing = OracleTiming([], tolerance: 0.1)
        #expect(timing.utterances == 0 && timing.onTimeRate == nil && timing.delay.median == nil)
    }

    @Test func endpointMetricsCarryTheOracleAndKeepTheirOtherFields() throws {
        let metrics = EndpointMetrics([Self.result(2.96)], onTimeTolerance: 0.2)
        #expect(metrics.oracle.tolerance == 0.2 && metrics.oracle.onTimeRate == 1)
        #expect(metrics.latency.median == 0.96 && metrics.truncationRate == 0)
        #expect(EndpointMetrics([Self.result(2.96)]).oracle.lateRate == 1)
    }
}
