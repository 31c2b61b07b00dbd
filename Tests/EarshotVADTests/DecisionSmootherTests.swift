import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Testing

@testable import EarshotVAD

/// The smoother's steps one at a time on scripted probabilities, with exact labels and decision times.
@Suite(.computing)
struct DecisionSmootherTests {
    static func smoother(_ configuration: SmoothingConfiguration) throws -> DecisionSmoother {
        try DecisionSmoother(configuration: configuration, sampleRate: Script.rate, hopLength: Script.hop)
    }

    /// Every frame through one smoother, then finish: all decisions, in order.
    static func smooth(_ script: String, _ configuration: SmoothingConfiguration) throws -> [VADDecision] {
        try smooth(Script.frames(script), configuration)
    }

    static func smooth(_ frames: [VADFrame], _ configuration: SmoothingConfiguration) throws -> [VADDecision] {
        var smoother = try smoother(configuration)
        var output = StageOutput<VADDecision>()
        for frame in frames { try smoother.process(frame, into: &output) }
        try smoother.finish(into: &output)
        #expect(output.events.isEmpty)
        return output.items
    }

    /// When each decision was made, in ms.
    static func decidedAtMs(_ decisions: [VADDecision]) -> [Int] {
        decisions.map { Int($0.decidedAt.frame) * 1000 / Script.rate }
    }

    static let plain = try! SmoothingConfiguration.hysteresisOnly()

    @Test func hysteresisEntersAtOnsetAndLeavesBelowOffset() throws {
        let decisions = try Self.smooth("064434642", Self.plain)
        #expect(Script.labels(decisions) == "_SSS__SS_")
        // Nothing needs look-ahead, so each decision is made when its frame arrives.
        #expect(decisions.map(\.decidedAt) == decisions.map(\.end))
        #expect(decisions.map(\.probability) == [0, 0.6, 0.4, 0.4, 0.3, 0.4, 0.6, 0.4, 0.2])
    }

    @Test func theStreamsLastFrameMayBeShortAndItsDecisionIsToo() throws {
        // VADStage ends a stream that is not a whole number of hops with a short frame.
        var frames = Script.frames("99")
        frames.append(VADFrame(start: frames[1].end, frameCount: Script.hop / 4, probability: 0.9))
        var smoother = try Self.smoother(Self.plain)
        var output = StageOutput<VADDecision>()
        for frame in frames { try smoother.process(frame, into: &output) }
        try smoother.finish(into: &output)
        #expect(output.items.map(\.frameCount) == [Script.hop, Script.hop, Script.hop / 4])
        #expect(output.items.last?.end == frames.last?.end)
        // Nothing may follow a short frame: it was the end of the stream.
        let after = VADFrame(start: frames[2].end, frameCount: Script.hop, probability: 0)
        let error = try thrownEarshotError { try smoother.process(after, into: &output) }
        #expect(error?.code == .invalidInput)
    }

    @Test func probabilityAtOnsetIsSpeech() throws {
        #expect(Script.labels(try Self.smooth("5_", Self.plain)) == "S_")
    }

    @Test func hangoverKeepsSpeechAfterTheProbabilityFallsAndRestartsOnRecovery() throws {
        let configuration = try SmoothingConfiguration(
            minSpeechDuration: 0, minSilenceDuration: 0, speechPadBefore: 0, speechPadAfter: 0, hangover: 0.02)
        #expect(Script.labels(try Self.smooth("99____", configuration)) == "SSSS__")
        #expect(Script.labels(try Self.smooth("909000", configuration)) == "SSSSS_")
        // Hangover is causal: it adds no delay.
        let decisions = try Self.smooth("99____", configuration)
        #expect(decisions.map(\.decidedAt) == decisions.map(\.end))
    }

    @Test func gapsShorterThanMinSilenceAreFilledOthersKept() throws {
        let configuration = try SmoothingConfiguration(
            minSpeechDuration: 0, minSilenceDuration: 0.03, speechPadBefore: 0, speechPadAfter: 0, hangover: 0)
        let decisions = try Self.smooth("SS__SS___SS_", configuration)
        #expect(Script.labels(decisions) == "SSSSSS___SS_")
        // The 2-frame gap waits for the speech that fills it (frame 4, ending at 50 ms); the 3-frame gap
        // is silence once it is 3 frames long (at 90 ms); the trailing gap is released at finish.
        #expect(Self.decidedAtMs(decisions) == [10, 20, 50, 50, 50, 60, 90, 90, 90, 100, 110, 120])
    }

    @Test func runsShorterThanMinSpeechAreDropped() throws {
        let configuration = try SmoothingConfiguration(
            minSpeechDuration: 0.03, minSilenceDuration: 0, speechPadBefore: 0, speechPadAfter: 0, hangover: 0)
        let decisions = try Self.smooth("_SS__SSS_S", configuration)
        #expect(Script.labels(decisions) == "_____SSS__")
        // A run is held until it is long enough (frame 7, at 80 ms) or ends (frame 3, at 40 ms; finish, at 100 ms).
        #expect(Self.decidedAtMs(decisions) == [10, 40, 40, 40, 50, 80, 80, 80, 90, 100])
    }

    @Test func gapsAreFilledBeforeShortRunsAreJudged() throws {
        // Two 2-frame runs with a 1-frame gap make one 5-frame run, which a 3-frame minimum keeps.
        let configuration = try SmoothingConfiguration(
            minSpeechDuration: 0.03, minSilenceDuration: 0.02, speechPadBefore: 0, speechPadAfter: 0, hangover: 0)
        #expect(Script.labels(try Self.smooth("_SS_SS___", configuration)) == "_SSSSS___")
    }

    @Test func paddingExtendsSpeechBothWaysAndDelaysSilence() throws {
        let configuration = try SmoothingConfiguration(
            minSpeechDuration: 0, minSilenceDuration: 0, speechPadBefore: 0.02, speechPadAfter: 0.01, hangover: 0)
        let decisions = try Self.smooth("_____SS____", configuration)
        #expect(Script.labels(decisions) == "___SSSSS___")
        // Silence waits two frames for speech that would pad it; padding after speech is immediate.
        #expect(Self.decidedAtMs(decisions) == [30, 40, 50, 60, 60, 60, 70, 80, 110, 110, 110])
        #expect(decisions.speechSegments() == [Script.t(30)..<Script.t(80)])
    }

    @Test func paddingBeforeStopsAtTheStartOfTheStream() throws {
        let configuration = try SmoothingConfiguration(
            minSpeechDuration: 0, minSilenceDuration: 0, speechPadBefore: 0.05, speechPadAfter: 0, hangover: 0)
        #expect(Script.labels(try Self.smooth("_SS", configuration)) == "SSS")
    }

    @Test func durationsRoundUpToWholeHops() throws {
        // 25 ms of padding is 2.5 hops: three frames are padded.
        let configuration = try SmoothingConfiguration(
            minSpeechDuration: 0, minSilenceDuration: 0, speechPadBefore: 0.025, speechPadAfter: 0, hangover: 0)
        #expect(Script.labels(try Self.smooth("_____S", configuration)) == "__SSSS")
    }

    @Test func defaultsHoldAtMostTheSumOfTheirLookAheads() throws {
        let smoother = try Self.smoother(SmoothingConfiguration())
        // (10 − 1) hops of minimum silence + (25 − 1) of minimum speech + 3 of padding.
        #expect(smoother.maxDelayFrames == 36)
        #expect(smoother.maxDelay == 0.36)
        #expect(try Self.smoother(Self.plain).maxDelayFrames == 0)
    }

    @Test func everyFrameIsDecidedExactlyOnceInOrderWithinTheMaxDelay() throws {
        let frames = Self.noisyFrames(count: 3000)
        var smoother = try Self.smoother(SmoothingConfiguration())
        var output = StageOutput<VADDecision>()
        for frame in frames {
            try smoother.process(frame, into: &output)
            #expect(smoother.heldFrames <= smoother.maxDelayFrames)
        }
        try smoother.finish(into: &output)
        let decisions = output.items
        #expect(decisions.map(\.start) == frames.map(\.start))
        #expect(decisions.map(\.probability) == frames.map(\.probability))
        #expect(decisions.allSatisfy { $0.frameCount == Script.hop })
        let maxDelay = Int64(smoother.maxDelayFrames * Script.hop)
        #expect(decisions.allSatisfy { $0.decidedAt >= $0.end && $0.decidedAt.frame - $0.end.frame <= maxDelay })
        #expect(decisions.allSatisfy { $0.decidedAt <= frames.last!.end })
        // The noise holds both speech and silence, so the test exercises every step.
        #expect(decisions.contains { $0.isSpeech } && decisions.contains { !$0.isSpeech })
    }

    @Test func afterASilenceDecisionNoSpeechWasHeardUpToWhenItWasDecided() throws {
        // The promise the endpointer measures silence by (VADDecision.decidedAt): a frame between a silence
        // decision's end and its decidedAt is silence, or padding before a run that begins after it.
        let decisions = try Self.smooth(Self.noisyFrames(count: 3000), SmoothingConfiguration())
        let pad = Script.t(30).frame
        var runStart = [Int64](repeating: 0, count: decisions.count)
        for (index, decision) in decisions.enumerated() where decision.isSpeech {
            let continues = index > 0 && decisions[index - 1].isSpeech
            runStart[index] = continues ? runStart[index - 1] : decision.start.frame
        }
        var checked = 0
        for (index, decision) in decisions.enumerated() where !decision.isSpeech {
            for later in decisions[(index + 1)...] {
                guard later.start < decision.decidedAt else { break }
                if later.isSpeech {
                    let laterIndex = decisions.firstIndex(of: later)!
                    #expect(runStart[laterIndex] >= decision.decidedAt.frame - pad)
                }
                checked += 1
            }
        }
        #expect(checked > 1000)
    }

    @Test(arguments: [1, 2, 7, 64])
    func groupingOfFramesDoesNotChangeDecisions(seed: UInt64) throws {
        let frames = Self.noisyFrames(count: 1000)
        let oneByOne = try Self.smoothInGroups(frames, seed: nil)
        #expect(try Self.smoothInGroups(frames, seed: seed) == oneByOne)
    }

    @Test func framesMustFollowOnFromTheLastAtTheConfiguredHopAndRate() throws {
        var smoother = try Self.smoother(Self.plain)
        _ = try smoother.process(VADFrame(start: Script.t(500), frameCount: Script.hop, probability: 0))
        let gap = try thrownEarshotError {
            _ = try smoother.process(VADFrame(start: Script.t(520), frameCount: Script.hop, probability: 0))
        }
        #expect(gap?.code == .invalidInput)
        #expect(
            gap?.message
                == "VADFrame: expected a frame starting at sample 8160, where the previous one ended, got one at 8320")
        let hop = try thrownEarshotError {
            _ = try smoother.process(VADFrame(start: Script.t(510), frameCount: 320, probability: 0))
        }
        #expect(
            hop?.message
                == "VADFrame: expected 160 samples at 16000 Hz (fewer only in the last frame), got 320 at 16000 Hz")
    }

    @Test func badHopIsNamed() throws {
        let error = try thrownEarshotError {
            _ = try DecisionSmoother(configuration: Self.plain, sampleRate: 16000, hopLength: 0)
        }
        #expect(error?.message == "hopLength: expected a positive number of samples, got 0")
    }

    @Test func speechSegmentsMergeAdjacentSpeechOnly() {
        let decisions = Script.decisions("_SS__S_SSS", startMs: 100)
        #expect(
            decisions.speechSegments() == [
                Script.t(110)..<Script.t(130), Script.t(150)..<Script.t(160), Script.t(170)..<Script.t(200),
            ])
        #expect(Script.decisions("____").speechSegments().isEmpty)
    }

    // MARK: - Helpers

    /// Frames whose probability drifts like a detector's on speech with pauses: a deterministic
    /// pseudo-random walk, so runs and gaps of many lengths occur.
    static func noisyFrames(count: Int) -> [VADFrame] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var probability: Float = 0
        return (0..<count).map { index in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let step = Float(Int(state >> 59) - 16) / 40  // −0.4 … 0.375
            probability = Swift.min(Swift.max(probability + step, 0), 1)
            return VADFrame(start: Script.t(index * 10), frameCount: Script.hop, probability: probability)
        }
    }

    /// Feeds frames in groups of pseudo-random size (1 when `seed` is nil), one output per group that is
    /// read and emptied after it, as a live caller does.
    static func smoothInGroups(_ frames: [VADFrame], seed: UInt64?) throws -> [VADDecision] {
        var smoother = try smoother(SmoothingConfiguration())
        var output = StageOutput<VADDecision>()
        var decisions: [VADDecision] = []
        var state = seed ?? 0
        var index = 0
        while index < frames.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let size = seed == nil ? 1 : Int(state >> 58) + 1
            for frame in frames[index..<Swift.min(index + size, frames.count)] {
                try smoother.process(frame, into: &output)
            }
            index += size
            decisions += output.items
            output.removeAll()
        }
        try smoother.finish(into: &output)
        return decisions + output.items
    }
}
