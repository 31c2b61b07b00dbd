import EarshotCore
import EarshotTestTraits
import Testing

@testable import EarshotVAD

/// The endpointer chained after the smoother: events carry the smoothing delay, and decisions stop
/// flowing when the interaction ends.
@Suite(.computing)
struct EndpointerStageTests {
    static func chain(_ endpointer: EndpointerConfiguration) throws -> StageChain<DecisionSmoother, EndpointerStage> {
        let smoothing = try SmoothingConfiguration(
            minSpeechDuration: 0, minSilenceDuration: 0, speechPadBefore: 0.02, speechPadAfter: 0, hangover: 0)
        return try DecisionSmoother(configuration: smoothing, sampleRate: Script.rate, hopLength: Script.hop)
            .then(EndpointerStage(configuration: endpointer, start: .zero(sampleRate: Script.rate)))
    }

    @Test func endpointAfterSmoothingIncludesItsDelay() throws {
        var chain = try Self.chain(EndpointerConfiguration(endingSilence: 0.1, minRecordingTime: 0))
        var output = StageOutput<VADDecision>()
        let script =
            String(repeating: "_", count: 10) + String(repeating: "S", count: 30) + String(repeating: "_", count: 100)
        for frame in Script.frames(script) { try chain.process(frame, into: &output) }
        try chain.finish(into: &output)
        // Padding puts speech at 80–400 ms; 100 ms of silence ends at 500 ms, a decision the smoother
        // makes 20 ms later, when it has seen silence to 520 ms.
        #expect(
            output.events == [
                StageEvent(time: Script.t(80), kind: .speechStart), StageEvent(time: Script.t(400), kind: .speechEnd),
                StageEvent(time: Script.t(520), kind: .endpoint(.endingSilence)),
                StageEvent(time: Script.t(520), kind: .outcome(.audioCaptured)),
            ])
        #expect(output.items.map(\.start) == (0..<50).map { Script.t($0 * 10) })
        #expect(output.items.speechSegments() == [Script.t(80)..<Script.t(400)])
    }

    @Test func finishIsTheEndOfInputAtTheNewestAudio() throws {
        var chain = try Self.chain(EndpointerConfiguration(maxInitialSilence: .infinity))
        var output = StageOutput<VADDecision>()
        for frame in Script.frames("_____") { try chain.process(frame, into: &output) }
        try chain.finish(into: &output)
        #expect(
            output.events == [
                StageEvent(time: Script.t(50), kind: .endpoint(.endOfInput)),
                StageEvent(time: Script.t(50), kind: .outcome(.noAudio)),
            ])
        #expect(output.items.count == 5)

        var empty = EndpointerStage(configuration: try EndpointerConfiguration(), start: Script.t(200))
        #expect(
            try empty.finish().events == [
                StageEvent(time: Script.t(200), kind: .endpoint(.endOfInput)),
                StageEvent(time: Script.t(200), kind: .outcome(.noAudio)),
            ])
    }

    @Test func applicationCallsPostThroughTheStage() throws {
        var stage = EndpointerStage(configuration: try EndpointerConfiguration(), start: .zero(sampleRate: Script.rate))
        var output = StageOutput<VADDecision>()
        for decision in Script.decisions("SSS") { stage.process(decision, into: &output) }
        try stage.control(.extendTimeout(by: 1, at: Script.t(30)), into: &output)
        try stage.control(.stop(at: Script.t(40)), into: &output)
        try stage.control(.cancel(at: Script.t(50)), into: &output)
        #expect(
            output.events == [
                StageEvent(time: Script.t(0), kind: .speechStart), StageEvent(time: Script.t(30), kind: .speechEnd),
                StageEvent(time: Script.t(40), kind: .endpoint(.manualStop)),
                StageEvent(time: Script.t(40), kind: .outcome(.audioTooShort)),
            ])
        #expect(output.items.count == 3)
    }
}
