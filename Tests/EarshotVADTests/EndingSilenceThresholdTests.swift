import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Testing

@testable import EarshotVAD

/// ``EndpointerConfiguration/endingSilenceThreshold``: trailing silence runs from the last speech
/// decision at or above it, on scripted decisions (10 ms each) with exact event times.
@Suite(.computing)
struct EndingSilenceThresholdTests {
    static func configuration(
        endingSilence: Double = 0.05, threshold: Float, rules: [EndpointRule] = []
    ) -> EndpointerConfiguration {
        try! EndpointerConfiguration(
            maxInitialSilence: 0.5, endingSilence: endingSilence, minRecordingTime: 0, rules: rules,
            endingSilenceThreshold: threshold)
    }

    static func events(_ configuration: EndpointerConfiguration, _ script: String, delayMs: Int = 0) -> [StageEvent] {
        var endpointer = Endpointer(configuration: configuration, start: .zero(sampleRate: Script.rate))
        var events: [StageEvent] = []
        for decision in Script.weighedDecisions(script, delayMs: delayMs) {
            endpointer.process(decision, into: &events)
        }
        return events
    }

    static func endpoint(_ configuration: EndpointerConfiguration, _ script: String, delayMs: Int = 0) -> MediaTime? {
        events(configuration, script, delayMs: delayMs).first {
            if case .endpoint = $0.kind { return true } else { return false }
        }?.time
    }

    static let silence = String(repeating: "_", count: 40)

    @Test func zeroIsTheSDKsRuleEverySpeechDecisionHoldsTheClock() throws {
        // Speech 20–50 ms, then 30 ms the smoother kept as speech at probability 0.2: silence from 80 ms.
        let events = Self.events(Self.configuration(threshold: 0), "__SSS222" + Self.silence)
        #expect(
            events == [
                StageEvent(time: Script.t(20), kind: .speechStart), StageEvent(time: Script.t(80), kind: .speechEnd),
                StageEvent(time: Script.t(130), kind: .endpoint(.endingSilence)),
                StageEvent(time: Script.t(130), kind: .outcome(.audioCaptured)),
            ])
        #expect(try EndpointerConfiguration().endingSilenceThreshold == 0)
    }

    @Test func silenceRunsFromWhereTheProbabilityFell() {
        // The same decisions: the hangover at 0.2 is below 0.35, so silence runs from 50 ms. The speech
        // events still follow the smoothed decisions.
        let events = Self.events(Self.configuration(threshold: 0.35), "__SSS222" + Self.silence)
        #expect(
            events == [
                StageEvent(time: Script.t(20), kind: .speechStart), StageEvent(time: Script.t(80), kind: .speechEnd),
                StageEvent(time: Script.t(100), kind: .endpoint(.endingSilence)),
                StageEvent(time: Script.t(100), kind: .outcome(.audioCaptured)),
            ])
    }

    @Test func silenceCountsUpToTheNewestAudioTheSmootherSaw() {
        // Every decision made 30 ms after its end, as the smoother's padding before speech makes them.
        // The SDK's rule counts silence to the end of the newest decision: 50 ms of it end at 100 ms,
        // decided at 130 ms. On the detector's evidence it counts to 100 ms already at the decision
        // covering 60–70 ms, made at 100 ms.
        #expect(Self.endpoint(Self.configuration(threshold: 0), "__SSS" + Self.silence, delayMs: 30) == Script.t(130))
        #expect(
            Self.endpoint(Self.configuration(threshold: 0.35), "__SSS" + Self.silence, delayMs: 30) == Script.t(100))
    }

    @Test func speechDecisionsCountOnlyToTheirEnd() {
        // After speech, 40 ms kept as speech at 0.2: silence runs from 50 ms but, at those decisions,
        // only to their end (90 ms at most); the first silence decision, made at 130 ms, ends it.
        #expect(
            Self.endpoint(Self.configuration(threshold: 0.35), "__SSS2222" + Self.silence, delayMs: 30) == Script.t(130)
        )
    }

    @Test func aProbabilityAtTheThresholdHoldsTheClock() {
        // 0.4 ≥ 0.4 holds it to 70 ms; 0.3 does not.
        #expect(Self.endpoint(Self.configuration(threshold: 0.4), "__SSS443" + Self.silence) == Script.t(120))
        #expect(Self.endpoint(Self.configuration(threshold: 0.5), "__SSS443" + Self.silence) == Script.t(100))
    }

    @Test func aWordResumingAfterADipRestartsTheClock() {
        // A 40 ms dip (bridged by the smoother) is shorter than the 50 ms needed; the word resumes at
        // 90 ms and ends at 110 ms, so the endpoint is at 160 ms, not 100 ms.
        #expect(Self.endpoint(Self.configuration(threshold: 0.35), "__SSS1111SS" + Self.silence) == Script.t(160))
    }

    @Test func aLowStretchLongerThanTheSilenceNeededEndsEvenWhileSmoothedAsSpeech() {
        // 60 ms at 0.1 kept as speech: the clock ran from 50 ms, so the endpoint comes at 100 ms, inside
        // the stretch, and the speech ends there.
        let events = Self.events(Self.configuration(threshold: 0.35), "__SSS111111SS" + Self.silence)
        #expect(
            events == [
                StageEvent(time: Script.t(20), kind: .speechStart), StageEvent(time: Script.t(100), kind: .speechEnd),
                StageEvent(time: Script.t(100), kind: .endpoint(.endingSilence)),
                StageEvent(time: Script.t(100), kind: .outcome(.audioCaptured)),
            ])
    }

    @Test func rulesMeasureTrailingSilenceTheSameWay() throws {
        // Two Kaldi-style rules: 100 ms of silence, or 50 ms once the utterance is 200 ms long. The
        // utterance is still counted from the first speech decision (20 ms), whatever its probability.
        let rules = [
            try EndpointRule(requiresSpeech: true, minTrailingSilence: 0.1, minUtteranceLength: 0),
            try EndpointRule(requiresSpeech: true, minTrailingSilence: 0.05, minUtteranceLength: 0.2),
        ]
        // Short utterance (20–50 ms, hangover to 80): the 100 ms rule, from 50 ms with the threshold.
        #expect(
            Self.endpoint(Self.configuration(threshold: 0.35, rules: rules), "__SSS222" + Self.silence) == Script.t(150)
        )
        #expect(
            Self.endpoint(Self.configuration(threshold: 0, rules: rules), "__SSS222" + Self.silence) == Script.t(180))
        // Long utterance (20–200 ms): the 50 ms rule, from 200 ms.
        let long = "__" + String(repeating: "S", count: 18) + "222" + Self.silence
        #expect(Self.endpoint(Self.configuration(threshold: 0.35, rules: rules), long) == Script.t(250))
        #expect(Self.endpoint(Self.configuration(threshold: 0, rules: rules), long) == Script.t(280))
    }

    @Test func labelDrivenDecisionsAreUnaffected() {
        // Decisions from labels carry probability 1 for speech: any threshold gives the SDK's endpoint.
        for threshold: Float in [0, 0.35, 1] {
            var endpointer = Endpointer(
                configuration: Self.configuration(threshold: threshold), start: .zero(sampleRate: Script.rate))
            var events: [StageEvent] = []
            for decision in Script.decisions("__SSS" + Self.silence) { endpointer.process(decision, into: &events) }
            #expect(endpointer.endedAt == Script.t(100))
        }
    }

    @Test func speechBelowTheThresholdHoldsTheClockOnlyFromItsStart() {
        // Threshold above the speech's probability: trailing silence runs from the start of the run
        // (20 ms), not from the start of listening, so the endpoint comes at 70 ms, inside the run.
        #expect(Self.endpoint(Self.configuration(threshold: 0.9), "__666666" + Self.silence) == Script.t(70))
    }

    @Test func paddingBeforeARunIsNotTrailingSilence() {
        // A run opens with 20 ms of padding at 0.1 (the silence before it does not count), then 0.2 s
        // of speech: the endpoint follows the speech, at 50 ms after 290 ms.
        let script = String(repeating: "_", count: 6) + "11" + String(repeating: "S", count: 21) + Self.silence
        #expect(Self.endpoint(Self.configuration(threshold: 0.35), script) == Script.t(340))
        // Were the clock still running from the start of listening, the first padding decision would
        // have ended it at 70 ms.
    }

    @Test(arguments: [Float(-0.1), 1.5, .nan])
    func anInvalidThresholdIsNamed(value: Float) throws {
        let error = try thrownEarshotError { _ = try EndpointerConfiguration(endingSilenceThreshold: value) }
        #expect(error?.code == .invalidParameter)
        #expect(error?.message == "endingSilenceThreshold: expected a probability in [0, 1], got \(value)")
    }

    @Test func theStageAfterTheSmootherEndsWhereTheProbabilityFell() throws {
        // Smoothing with a 50 ms hangover and 30 ms of padding after: speech 20–150 ms once smoothed,
        // while the probability fell below the 0.35 offset at 70 ms.
        let smoothing = try SmoothingConfiguration(
            minSpeechDuration: 0, minSilenceDuration: 0, speechPadBefore: 0, speechPadAfter: 0.03, hangover: 0.05)
        func endpoint(threshold: Float) throws -> [StageEvent] {
            var chain = try DecisionSmoother(configuration: smoothing, sampleRate: Script.rate, hopLength: Script.hop)
                .then(
                    EndpointerStage(
                        configuration: try EndpointerConfiguration(
                            endingSilence: 0.2, minRecordingTime: 0, endingSilenceThreshold: threshold),
                        start: .zero(sampleRate: Script.rate)))
            var output = StageOutput<VADDecision>()
            for frame in Script.frames("__99999" + String(repeating: "1", count: 50)) {
                try chain.process(frame, into: &output)
            }
            return output.events
        }
        let speech = [
            StageEvent(time: Script.t(20), kind: .speechStart), StageEvent(time: Script.t(150), kind: .speechEnd),
        ]
        #expect(
            try endpoint(threshold: 0) == speech + [
                StageEvent(time: Script.t(350), kind: .endpoint(.endingSilence)),
                StageEvent(time: Script.t(350), kind: .outcome(.audioCaptured)),
            ])
        #expect(
            try endpoint(threshold: 0.35) == speech + [
                StageEvent(time: Script.t(270), kind: .endpoint(.endingSilence)),
                StageEvent(time: Script.t(270), kind: .outcome(.audioCaptured)),
            ])
    }
}
