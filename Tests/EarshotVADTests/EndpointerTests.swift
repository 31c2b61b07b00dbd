import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Testing

@testable import EarshotVAD

/// The endpointer state machine on scripted decisions (10 ms each), with exact event times.
@Suite(.computing)
struct EndpointerTests {
    static func configuration(
        maxInitialSilence: Double = 0.5, endingSilence: Double = 0.05, minRecordingTime: Double = 0,
        maxRecordingTime: Double = .infinity, cancelWhenSilent: Bool = true, rules: [EndpointRule] = []
    ) -> EndpointerConfiguration {
        try! EndpointerConfiguration(
            maxInitialSilence: maxInitialSilence, endingSilence: endingSilence, minRecordingTime: minRecordingTime,
            maxRecordingTime: maxRecordingTime, cancelWhenSilent: cancelWhenSilent, rules: rules)
    }

    static func rule(speech: Bool = true, silence: Double, length: Double = 0) -> EndpointRule {
        try! EndpointRule(requiresSpeech: speech, minTrailingSilence: silence, minUtteranceLength: length)
    }

    /// Feeds the decisions; returns how many were taken in.
    @discardableResult
    static func feed(_ endpointer: inout Endpointer, _ decisions: [VADDecision], _ events: inout [StageEvent]) -> Int {
        decisions.reduce(0) { taken, decision in taken + (endpointer.process(decision, into: &events) ? 1 : 0) }
    }

    /// Runs a fresh endpointer over a script; returns its events and the endpointer.
    static func run(
        _ configuration: EndpointerConfiguration, _ script: String, delayMs: Int = 0
    ) -> (events: [StageEvent], endpointer: Endpointer, taken: Int) {
        var endpointer = Endpointer(configuration: configuration, start: .zero(sampleRate: Script.rate))
        var events: [StageEvent] = []
        let taken = feed(&endpointer, Script.decisions(script, delayMs: delayMs), &events)
        return (events, endpointer, taken)
    }

    static func at(_ ms: Int, _ kind: StageEvent.Kind) -> StageEvent { StageEvent(time: Script.t(ms), kind: kind) }

    static func ending(_ reason: EndpointReason, _ outcome: InteractionOutcome, at ms: Int) -> [StageEvent] {
        [at(ms, .endpoint(reason)), at(ms, .outcome(outcome))]
    }

    static let silence = String(repeating: "_", count: 40)

    // MARK: - Silence endpoints

    @Test func endingSilenceEndsAfterSpeechAndLaterInputIsIgnored() {
        let (events, endpointer, taken) = Self.run(Self.configuration(), "__SSS" + Self.silence)
        #expect(
            events == [Self.at(20, .speechStart), Self.at(50, .speechEnd)]
                + Self.ending(.endingSilence, .audioCaptured, at: 100))
        #expect(taken == 10)
        #expect(!endpointer.isListening && endpointer.speechSeen)
        #expect(endpointer.endpointReason == .endingSilence && endpointer.outcome == .audioCaptured)
        #expect(endpointer.endedAt == Script.t(100))
    }

    @Test func endpointIsStampedWhenTheDecisionWasMade() {
        let (events, _, _) = Self.run(Self.configuration(), "__SSS" + Self.silence, delayMs: 30)
        #expect(
            events == [Self.at(20, .speechStart), Self.at(50, .speechEnd)]
                + Self.ending(.endingSilence, .audioCaptured, at: 130))
    }

    @Test func silenceEndpointWaitsForMinRecordingTime() {
        let (events, _, _) = Self.run(
            Self.configuration(endingSilence: 0.03, minRecordingTime: 0.2), "SS" + Self.silence)
        #expect(
            events == [Self.at(0, .speechStart), Self.at(20, .speechEnd)]
                + Self.ending(.endingSilence, .audioCaptured, at: 200))
    }

    @Test func vetoKeepsListeningUntilAnotherFullSilenceInterval() {
        var endpointer = Endpointer(configuration: Self.configuration(), start: .zero(sampleRate: Script.rate))
        endpointer.shouldEndRecording = { $0 >= Script.t(100) }
        var events: [StageEvent] = []
        // Asked at 70 ms and vetoed; asked again at 120 ms, not at 100 ms when it would have agreed.
        Self.feed(&endpointer, Script.decisions("SS" + Self.silence), &events)
        #expect(
            events == [Self.at(0, .speechStart), Self.at(20, .speechEnd)]
                + Self.ending(.endingSilence, .audioCaptured, at: 120))
    }

    @Test func afterAVetoNewSpeechRestartsTheSilence() {
        var endpointer = Endpointer(configuration: Self.configuration(), start: .zero(sampleRate: Script.rate))
        endpointer.shouldEndRecording = { $0 >= Script.t(100) }
        var events: [StageEvent] = []
        Self.feed(&endpointer, Script.decisions("SS_____SS" + Self.silence), &events)
        #expect(
            events == [
                Self.at(0, .speechStart), Self.at(20, .speechEnd), Self.at(70, .speechStart), Self.at(90, .speechEnd),
            ] + Self.ending(.endingSilence, .audioCaptured, at: 140))
    }

    @Test func longUtterancesEndAfterShorterPausesUnderKaldiRules() {
        let rules = [Self.rule(silence: 0.1), Self.rule(silence: 0.05, length: 0.2)]
        let configuration = Self.configuration(rules: rules)
        let short = Self.run(configuration, "SSSSS" + Self.silence).events
        #expect(short.suffix(2) == Self.ending(.endingSilence, .audioCaptured, at: 150)[...])
        let long = Self.run(configuration, String(repeating: "S", count: 25) + Self.silence).events
        #expect(long.suffix(2) == Self.ending(.endingSilence, .audioCaptured, at: 300)[...])
        // Utterance length runs from the first speech, not from the start: 100 ms of leading silence
        // does not count, so the short rule (at 250 ms) comes before the long one (at 300 ms).
        let late = Self.run(configuration, "__________SSSSS" + Self.silence).events
        #expect(late.suffix(2) == Self.ending(.endingSilence, .audioCaptured, at: 250)[...])
    }

    @Test func rulesChangedMidStreamApplyToTheNextDecision() {
        var endpointer = Endpointer(
            configuration: Self.configuration(endingSilence: 0.1), start: .zero(sampleRate: Script.rate))
        var events: [StageEvent] = []
        Self.feed(&endpointer, Script.decisions("SS"), &events)
        endpointer.rules = [Self.rule(silence: 0.03)]
        Self.feed(&endpointer, Script.decisions(Self.silence, startMs: 20), &events)
        #expect(events.suffix(2) == Self.ending(.endingSilence, .audioCaptured, at: 50)[...])

        var disabled = Endpointer(configuration: Self.configuration(), start: .zero(sampleRate: Script.rate))
        disabled.rules = []
        Self.feed(&disabled, Script.decisions("SS" + Self.silence), &events)
        #expect(disabled.isListening)
    }

    @Test func ruleThatDoesNotRequireSpeechEndsSilenceWithNoAudio() {
        let configuration = Self.configuration(
            maxInitialSilence: .infinity, rules: [Self.rule(speech: false, silence: 0.05)])
        #expect(Self.run(configuration, Self.silence).events == Self.ending(.endingSilence, .noAudio, at: 50))
    }

    // MARK: - Time limits

    @Test func initialSilenceTimesOutAtItsExactDeadline() {
        #expect(
            Self.run(Self.configuration(maxInitialSilence: 0.05), Self.silence).events
                == Self.ending(.initialSilenceTimeout, .noAudio, at: 50))
        #expect(
            Self.run(Self.configuration(maxInitialSilence: 0.05, cancelWhenSilent: false), Self.silence).events
                == Self.ending(.initialSilenceTimeout, .audioCaptured, at: 50))
        // A deadline inside a decision is stamped exactly; that decision is taken in (its audio began before
        // the deadline), and ends the interaction.
        let (events, _, taken) = Self.run(Self.configuration(maxInitialSilence: 0.055), Self.silence)
        #expect(
            events == [
                StageEvent(time: MediaTime(frame: 880, sampleRate: 16000), kind: .endpoint(.initialSilenceTimeout)),
                StageEvent(time: MediaTime(frame: 880, sampleRate: 16000), kind: .outcome(.noAudio)),
            ])
        #expect(taken == 6)
    }

    /// The timeout is about when the user began to talk, not when the smoother made up its mind: speech
    /// begun before the deadline lifts it however late it is confirmed; speech begun at the deadline does not.
    @Test(arguments: [0, 10, 300])
    func speechBegunBeforeTheInitialDeadlineLiftsItWhenEverDecided(delayMs: Int) {
        let configuration = Self.configuration(maxInitialSilence: 0.05)
        #expect(
            Self.run(configuration, "____S" + Self.silence, delayMs: delayMs).events
                == [Self.at(40, .speechStart), Self.at(50, .speechEnd)]
                + Self.ending(.endingSilence, .audioCaptured, at: 100 + delayMs))
        let (events, _, taken) = Self.run(configuration, "_____S" + Self.silence, delayMs: delayMs)
        #expect(events == Self.ending(.initialSilenceTimeout, .noAudio, at: 50))
        #expect(taken == 5)
    }

    @Test func silenceDecidedLateTimesOutOnceItReachesTheDeadline() {
        // Each decision made 300 ms after its audio: the timeout waits for the audio to reach 50 ms, and is
        // stamped at the deadline, not when it was seen.
        var endpointer = Endpointer(
            configuration: Self.configuration(maxInitialSilence: 0.05), start: .zero(sampleRate: Script.rate))
        var events: [StageEvent] = []
        let decisions = Script.decisions(Self.silence, delayMs: 300)
        #expect(Self.feed(&endpointer, Array(decisions.prefix(4)), &events) == 4)
        #expect(events.isEmpty && endpointer.isListening)
        Self.feed(&endpointer, Array(decisions.dropFirst(4)), &events)
        #expect(events == Self.ending(.initialSilenceTimeout, .noAudio, at: 50))
        // A stop made after the deadline, before the audio reached it, ends at the deadline too.
        var stopped = Endpointer(
            configuration: Self.configuration(maxInitialSilence: 0.05), start: .zero(sampleRate: Script.rate))
        events = []
        Self.feed(&stopped, Array(decisions.prefix(2)), &events)
        stopped.stop(at: Script.t(320), into: &events)
        #expect(events == Self.ending(.initialSilenceTimeout, .noAudio, at: 50))
    }

    @Test func maxRecordingTimeEndsWhileTalking() {
        let (events, endpointer, taken) = Self.run(
            Self.configuration(maxRecordingTime: 0.1), String(repeating: "S", count: 20))
        #expect(
            events == [Self.at(0, .speechStart), Self.at(100, .speechEnd)]
                + Self.ending(.maxRecordingTime, .audioCaptured, at: 100))
        #expect(taken == 10 && endpointer.endpointReason == .maxRecordingTime)
    }

    @Test(arguments: [0, 30])
    func maxRecordingTimeBeatsSilenceDecidedAtOrAfterIt(delayMs: Int) {
        // Silence would end at 100 ms (+ delay); the cap is at 100 ms and comes first, or ties and wins.
        let events = Self.run(Self.configuration(maxRecordingTime: 0.1), "SSSSS" + Self.silence, delayMs: delayMs)
            .events
        #expect(
            events == [Self.at(0, .speechStart), Self.at(50, .speechEnd)]
                + Self.ending(.maxRecordingTime, .audioCaptured, at: 100))
    }

    @Test func infiniteIntervalsDisableEveryLimit() {
        let configuration = Self.configuration(
            maxInitialSilence: .infinity, endingSilence: .infinity, maxRecordingTime: .infinity)
        let script = String(repeating: "_", count: 3000) + "SSSS" + String(repeating: "_", count: 3000)
        var (events, endpointer, taken) = Self.run(configuration, script)
        #expect(taken == 6004 && endpointer.isListening)
        endpointer.finish(at: Script.t(60040), into: &events)
        #expect(
            events == [Self.at(30000, .speechStart), Self.at(30040, .speechEnd)]
                + Self.ending(.endOfInput, .audioCaptured, at: 60040))
    }

    // MARK: - extendTimeout

    @Test func extendTimeoutMovesTheInitialSilenceDeadlineLaterOnly() throws {
        var endpointer = Endpointer(
            configuration: Self.configuration(maxInitialSilence: 0.05), start: .zero(sampleRate: Script.rate))
        var events: [StageEvent] = []
        Self.feed(&endpointer, Script.decisions("___"), &events)
        try endpointer.extendTimeout(by: 0.1, at: Script.t(30), into: &events)
        Self.feed(&endpointer, Script.decisions(Self.silence, startMs: 30), &events)
        #expect(events == Self.ending(.initialSilenceTimeout, .noAudio, at: 130))

        var shorter = Endpointer(
            configuration: Self.configuration(maxInitialSilence: 0.05), start: .zero(sampleRate: Script.rate))
        events = []
        try shorter.extendTimeout(by: 0.01, at: Script.t(10), into: &events)
        Self.feed(&shorter, Script.decisions(Self.silence), &events)
        #expect(events == Self.ending(.initialSilenceTimeout, .noAudio, at: 50))
    }

    @Test func extendTimeoutHoldsOffSilenceEndpoints() throws {
        var endpointer = Endpointer(
            configuration: Self.configuration(endingSilence: 0.03), start: .zero(sampleRate: Script.rate))
        var events: [StageEvent] = []
        Self.feed(&endpointer, Script.decisions("SS"), &events)
        try endpointer.extendTimeout(by: 0.1, at: Script.t(20), into: &events)
        Self.feed(&endpointer, Script.decisions(Self.silence, startMs: 20), &events)
        #expect(events.suffix(2) == Self.ending(.endingSilence, .audioCaptured, at: 120)[...])
    }

    @Test func extendTimeoutDoesNotExtendMaxRecordingTime() throws {
        var endpointer = Endpointer(
            configuration: Self.configuration(maxRecordingTime: 0.1), start: .zero(sampleRate: Script.rate))
        var events: [StageEvent] = []
        try endpointer.extendTimeout(by: 1, at: Script.t(0), into: &events)
        Self.feed(&endpointer, Script.decisions(Self.silence), &events)
        #expect(events == Self.ending(.maxRecordingTime, .noAudio, at: 100))
    }

    @Test func infiniteExtensionListensUntilTheInputEnds() throws {
        var endpointer = Endpointer(
            configuration: Self.configuration(maxInitialSilence: 0.05, endingSilence: 0.03),
            start: .zero(sampleRate: Script.rate))
        var events: [StageEvent] = []
        try endpointer.extendTimeout(by: EndpointerConfiguration.infiniteInterval, at: Script.t(0), into: &events)
        Self.feed(&endpointer, Script.decisions("SS" + String(repeating: "_", count: 500)), &events)
        #expect(endpointer.isListening)
        endpointer.finish(at: Script.t(5020), into: &events)
        #expect(events.suffix(2) == Self.ending(.endOfInput, .audioCaptured, at: 5020)[...])
    }

    @Test func negativeExtensionIsNamed() throws {
        var endpointer = Endpointer(configuration: Self.configuration(), start: .zero(sampleRate: Script.rate))
        var events: [StageEvent] = []
        let error = try thrownEarshotError { try endpointer.extendTimeout(by: -1, at: Script.t(0), into: &events) }
        #expect(error?.message == "extendTimeout: expected a duration ≥ 0 s or infinity, got -1")
    }

    // MARK: - Manual stop, cancel, end of input

    @Test func manualStopBeforeMinRecordingTimeIsTooShortFromItOnCaptured() {
        let configuration = Self.configuration(endingSilence: .infinity, minRecordingTime: 0.1)
        for (stopMs, outcome) in [(50, InteractionOutcome.audioTooShort), (100, .audioCaptured), (150, .audioCaptured)]
        {
            var (events, endpointer, _) = Self.run(
                configuration, "SSSS" + String(repeating: "_", count: stopMs / 10 - 4))
            endpointer.stop(at: Script.t(stopMs), into: &events)
            #expect(
                events == [Self.at(0, .speechStart), Self.at(40, .speechEnd)]
                    + Self.ending(.manualStop, outcome, at: stopMs))
        }
        // minRecordingTime 0 disables the check.
        var (events, endpointer, _) = Self.run(Self.configuration(minRecordingTime: 0), "S")
        endpointer.stop(at: Script.t(10), into: &events)
        #expect(events.suffix(3) == [Self.at(10, .speechEnd)] + Self.ending(.manualStop, .audioCaptured, at: 10))
    }

    @Test(arguments: [true, false])
    func silentManualStopFollowsCancelWhenSilent(cancelWhenSilent: Bool) {
        let configuration = Self.configuration(maxInitialSilence: .infinity, cancelWhenSilent: cancelWhenSilent)
        var (events, endpointer, _) = Self.run(configuration, "__________")
        endpointer.stop(at: Script.t(100), into: &events)
        #expect(events == Self.ending(.manualStop, cancelWhenSilent ? .noAudio : .audioCaptured, at: 100))
    }

    @Test func aDeadlinePassedBeforeAStopEndsTheInteractionFirst() {
        var (events, endpointer, _) = Self.run(Self.configuration(maxInitialSilence: 0.05), "__")
        endpointer.stop(at: Script.t(80), into: &events)
        #expect(events == Self.ending(.initialSilenceTimeout, .noAudio, at: 50))
    }

    @Test func cancelPostsOnlyCanceledAndEndsTheInteraction() {
        var (events, endpointer, _) = Self.run(Self.configuration(), "SSS")
        endpointer.cancel(at: Script.t(40), into: &events)
        #expect(events == [Self.at(0, .speechStart), Self.at(30, .speechEnd), Self.at(40, .outcome(.canceled))])
        #expect(endpointer.outcome == .canceled && endpointer.endpointReason == nil && !endpointer.isListening)
        let before = events
        #expect(!endpointer.process(Script.decisions("S", startMs: 30)[0], into: &events))
        endpointer.stop(at: Script.t(50), into: &events)
        endpointer.finish(at: Script.t(60), into: &events)
        #expect(events == before)
    }

    @Test func endOfInputGivesCapturedWithSpeechAndNoAudioWithout() {
        var (events, endpointer, _) = Self.run(Self.configuration(endingSilence: .infinity), "__SSS___")
        endpointer.finish(at: Script.t(80), into: &events)
        #expect(
            events == [Self.at(20, .speechStart), Self.at(50, .speechEnd)]
                + Self.ending(.endOfInput, .audioCaptured, at: 80))

        for (cancelWhenSilent, outcome) in [(true, InteractionOutcome.noAudio), (false, .audioCaptured)] {
            var (events, endpointer, _) = Self.run(Self.configuration(cancelWhenSilent: cancelWhenSilent), "____")
            endpointer.finish(at: Script.t(40), into: &events)
            #expect(events == Self.ending(.endOfInput, outcome, at: 40))
        }
    }

    @Test func emptyInputIsNoAudio() {
        var (events, endpointer, _) = Self.run(Self.configuration(), "")
        endpointer.finish(at: Script.t(0), into: &events)
        #expect(events == Self.ending(.endOfInput, .noAudio, at: 0))
    }

    @Test func inputEndingDuringSpeechClosesIt() {
        var (events, endpointer, _) = Self.run(Self.configuration(), "_SSS")
        endpointer.finish(at: Script.t(40), into: &events)
        #expect(
            events == [Self.at(10, .speechStart), Self.at(40, .speechEnd)]
                + Self.ending(.endOfInput, .audioCaptured, at: 40))
    }

    @Test func recordingTimeCountsFromTheStartAndEarlierDecisionsAreIgnored() {
        var endpointer = Endpointer(configuration: Self.configuration(maxRecordingTime: 0.1), start: Script.t(1000))
        var events: [StageEvent] = []
        let taken = Self.feed(&endpointer, Script.decisions("SSSSS" + Self.silence, startMs: 950), &events)
        // The speech before 1000 ms is not part of this interaction; the cap is at 1100 ms.
        #expect(events == Self.ending(.maxRecordingTime, .noAudio, at: 1100))
        #expect(taken == 10)
    }
}
