import EarshotCore
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotVAD

/// Our inference of Silero VAD v6 against ONNX Runtime's, on real recordings, and its streaming state.
@Suite(.computing) struct SileroDetectorTests {
    /// Every 32 ms chunk of six real recordings (LibriVox, cards, the noisy corpus's sample) within 1e-4
    /// of onnxruntime's probability, through the same VADStage framing every command uses.
    @Test func probabilitiesMatchOnnxRuntime() throws {
        let model = try SileroFixtures.model()
        let reference = try SileroFixtures.reference()
        #expect(reference.recordings.count == 6)
        var worst: Float = 0
        for recording in reference.recordings {
            let audio = try SileroFixtures.audio(recording.path)
            #expect(audio.samples.count == recording.samples, "\(recording.path)")
            let frames = try VADFixtures.frames(try SileroDetector(model: model), [audio])
            try #require(frames.count == recording.probabilities.count, "\(recording.path)")
            for (frame, expected) in zip(frames, recording.probabilities) {
                worst = max(worst, abs(frame.probability - expected))
            }
            #expect(frames.map(\.frameCount).dropLast().allSatisfy { $0 == 512 })
        }
        #expect(worst <= 1e-4, "max |Δp| = \(worst)")
        print("silero parity: \(reference.recordings.count) recordings, max |Δp| = \(worst)")
        // The recordings hold both speech and silence, so the comparison is not of flat outputs.
        let all = reference.recordings.flatMap(\.probabilities)
        #expect(all.contains { $0 > 0.9 } && all.contains { $0 < 0.1 })
    }

    /// Two streams interleaved chunk by chunk give each the probabilities it gets alone: the state is
    /// the detector's, not the model's. And `reset()` makes a used detector a new one.
    @Test func streamsKeepTheirOwnStateAndResetForgetsIt() throws {
        let model = try SileroFixtures.model()
        let reference = try SileroFixtures.reference()
        let first = try SileroFixtures.audio(reference.recordings[0].path)
        let second = try SileroFixtures.audio(reference.recordings[2].path)
        let alone = (
            try VADFixtures.frames(SileroDetector(model: model), [first]),
            try VADFixtures.frames(SileroDetector(model: model), [second])
        )
        let stages = try [VADStage(detector: SileroDetector(model: model)), VADStage(detector: SileroDetector(model: model))]
        var outputs = [StageOutput<VADFrame>(), StageOutput<VADFrame>()]
        let blocks = [first, second].map { $0.blocks(of: 512) }
        for index in 0..<max(blocks[0].count, blocks[1].count) {
            for stream in 0..<2 where index < blocks[stream].count {
                try stages[stream].process(blocks[stream][index], into: &outputs[stream])
            }
        }
        for stream in 0..<2 { try stages[stream].finish(into: &outputs[stream]) }
        #expect(outputs[0].items == alone.0)
        #expect(outputs[1].items == alone.1)

        stages[0].reset()
        var again = StageOutput<VADFrame>()
        try stages[0].process(second, into: &again)
        try stages[0].finish(into: &again)
        #expect(again.items == alone.1)
    }

    @Test(arguments: [8_000, 44_100])
    func otherRatesAreRefusedNamingTheRate(rate: Int) throws {
        let error = try #require(throws: EarshotError.self) { try SileroDetector(model: SileroFixtures.model(), sampleRate: rate) }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("\(rate) Hz") && error.message.contains("16000"))
    }

    @Test func geometryIsSilerosChunkAndContext() throws {
        let detector = try SileroDetector(model: SileroFixtures.model())
        #expect(detector.hopLength == 512 && detector.frameLength == 576 && detector.lookAhead == 0)
        #expect(detector.name == "silero" && detector.sampleRate == 16_000)
    }
}

extension AudioBuffer {
    /// Consecutive buffers of `count` samples (the last may be shorter), with their media times.
    fileprivate func blocks(of count: Int) -> [AudioBuffer] {
        stride(from: 0, to: samples.count, by: count).map { first in
            AudioBuffer(
                format: format, samples: Array(samples[first..<min(first + count, samples.count)]),
                startFrame: startFrame + Int64(first))
        }
    }
}
