import EarshotCore
import EarshotTestTraits
import EarshotVAD
import Testing

@testable import EarshotLab

/// The endpointer driven by labels: endpoints at exact, hand-computed times, and a detector that
/// hears exactly the labels scored against it.
@Suite(.computing) struct LabelOracleTests {
    // Speech 0.5–1.5 s and 2.0–2.6 s: a 0.5 s pause inside.
    static let entry = CorpusEntry(
        path: "u.wav", duration: 5,
        speech: [LabeledSegment(start: 0.5, end: 1.5), LabeledSegment(start: 2.0, end: 2.6)])

    static func oracle(_ configuration: EndpointerConfiguration, _ entry: CorpusEntry = entry) throws -> (
        time: Double, reason: EndpointReason
    )? {
        try LabelOracle.endpoint(for: entry, endpointer: configuration)
    }

    @Test func endsEndingSilenceAfterTheLabelledEndOfSpeech() throws {
        let endpoint = try #require(try Self.oracle(EndpointerConfiguration()))
        #expect(endpoint.reason == .endingSilence && abs(endpoint.time - 3.45) < 1e-9)
        // The labels carry probability 1, so the threshold changes nothing.
        let weighed = try #require(try Self.oracle(EndpointerConfiguration(endingSilenceThreshold: 0.5)))
        #expect(weighed.reason == .endingSilence && abs(weighed.time - 3.45) < 1e-9)
    }

    @Test func aRuleShorterThanAPauseEndsInsideItForTheOracleToo() throws {
        let endpoint = try #require(try Self.oracle(EndpointerConfiguration(endingSilence: 0.4)))
        #expect(endpoint.reason == .endingSilence && abs(endpoint.time - 1.9) < 1e-9)
    }

    @Test func otherReasonsAreTheOraclesToo() throws {
        let late = CorpusEntry(path: "late.wav", duration: 5, speech: [LabeledSegment(start: 2.0, end: 3.0)])
        let timeout = try #require(try Self.oracle(EndpointerConfiguration(), late))
        #expect(timeout.reason == .initialSilenceTimeout && abs(timeout.time - 1.5) < 1e-9)
        let tail = CorpusEntry(path: "tail.wav", duration: 3, speech: [LabeledSegment(start: 0.5, end: 2.6)])
        let ran = try #require(try Self.oracle(EndpointerConfiguration(), tail))
        #expect(ran.reason == .endOfInput && abs(ran.time - 3.0) < 1e-9)
    }

    @Test func aPerfectDetectorIsOnTimeOnTheDetectorsEvidenceAndLateByTheSmoothingOtherwise() throws {
        // The labels themselves as the detector, through the default smoothing: with the SDK's rule the
        // endpoint waits for the 50 ms hangover and 30 ms padding after, and is decided 30 ms later
        // (padding before): 0.11 s after the oracle's. With the threshold it is the oracle's.
        let entry = CorpusEntry(path: "u.wav", duration: 4, speech: [LabeledSegment(start: 0.5, end: 2.0)])
        let track = LabelOracle.track(for: entry)
        func score(_ threshold: Float) throws -> UtteranceResult {
            let settings = EvaluationSettings(
                smoothing: try SmoothingConfiguration(),
                endpointer: try EndpointerConfiguration(endingSilenceThreshold: threshold))
            return try UtteranceScorer.score(track, against: entry, settings: settings, scope: .endpointing).utterance
        }
        let sdk = try score(0)
        #expect(sdk.oracleReason == .endingSilence && abs(sdk.oracleEndpoint! - 2.85) < 1e-9)
        #expect(sdk.oracleDelay == 0.11 && sdk.timing(tolerance: 0.1) == .late)
        let weighed = try score(0.5)
        #expect(weighed.oracleDelay == 0 && weighed.timing(tolerance: 0.1) == .onTime)
    }
}
