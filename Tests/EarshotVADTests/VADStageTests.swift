import EarshotCore
import EarshotIO
import EarshotTesting
import EarshotTestTraits
import Testing

@testable import EarshotVAD

/// Records every window it is shown and answers with the window's last sample, so framing is checkable.
private final class ProbeDetector: VoiceActivityDetector {
    let name = "probe"
    let sampleRate = 8_000
    let frameLength: Int
    let hopLength: Int
    let lookAhead: Int
    var windows: [[Float]] = []

    init(frameLength: Int, hopLength: Int, lookAhead: Int) {
        self.frameLength = frameLength
        self.hopLength = hopLength
        self.lookAhead = lookAhead
    }

    func probability(of frame: UnsafeBufferPointer<Float>) -> Float {
        windows.append(Array(frame))
        return frame[frame.count - 1] / 1000
    }

    func reset() { windows = [] }
}

@Suite(.computing) struct VADStageTests {
    /// Frame i sees samples [(i+1)·hop + lookAhead − frameLength, (i+1)·hop + lookAhead), zeros outside
    /// the stream; frames tile the stream exactly, the last one partial.
    @Test(arguments: [(5, 2, 1), (4, 4, 0), (3, 2, 3), (10, 3, 2)])
    func framesFollowTheProtocolsConvention(frameLength: Int, hop: Int, lookAhead: Int) throws {
        let count = 23
        let format = AudioFormat.narrowband
        let ramp = AudioBuffer(format: format, samples: (1...count).map(Float.init), startFrame: 1_000)
        let probe = ProbeDetector(frameLength: frameLength, hopLength: hop, lookAhead: lookAhead)
        let frames = try VADFixtures.frames(probe, Signal.blocks(of: ramp, frames: 4))
        #expect(frames.count == (count + hop - 1) / hop)
        #expect(frames.map(\.frameCount).reduce(0, +) == count)
        #expect(frames.last?.frameCount == count - (frames.count - 1) * hop)
        for (index, frame) in frames.enumerated() {
            #expect(frame.start == MediaTime(frame: 1_000 + Int64(index * hop), sampleRate: 8_000))
            let end = (index + 1) * hop + lookAhead
            let expected = (end - frameLength..<end).map { $0 >= 0 && $0 < count ? Float($0 + 1) : 0 }
            #expect(probe.windows[index] == expected, "frame \(index)")
        }
    }

    @Test func emptyStreamGivesNoFrames() throws {
        #expect(try VADFixtures.frames(EnergyDetector(sampleRate: 16_000), []).isEmpty)
        #expect(try VADFixtures.frames(EnergyDetector(sampleRate: 16_000), [AudioBuffer(format: .wideband)]).isEmpty)
    }

    @Test func refusesAudioNotInTheDetectorsFormat() throws {
        var stage = try VADStage(detector: EnergyDetector(sampleRate: 16_000))
        let stereo = try AudioFormat(sampleRate: 16_000, channelCount: 2)
        for buffer in [Signal.silence(seconds: 0.1, format: .narrowband), Signal.silence(seconds: 0.1, format: stereo)]
        {
            let error = try #require(throws: EarshotError.self) { try stage.process(buffer) }
            #expect(error.code == .unsupportedFormat)
            #expect(error.message.contains("energy"))
        }
    }

    /// The parity promise: a file fed whole, in random blocks, or paced like a microphone gives the same
    /// frames, exactly.
    @Test(arguments: DetectorKind.allCases)
    func blockingAndPacingDoNotChangeTheFrames(kind: DetectorKind) throws {
        let clip = try LibriVoxClips.load()[4]
        let whole = try VADFixtures.clip(4)
        let models = DetectorModels(silero: try SileroFixtures.model())
        let reference = try VADFixtures.frames(kind.makeDetector(sampleRate: 16_000, models: models), [whole])
        let hop = reference.first?.frameCount ?? 0
        #expect(hop == (kind == .silero ? 512 : 160))
        #expect(reference.count == (whole.frameCount + hop - 1) / hop)

        var generator = SplitMix64(seed: 42)
        var blocks: [AudioBuffer] = []
        var first = 0
        while first < whole.frameCount {
            let last = min(whole.frameCount, first + Int.random(in: 1...2_500, using: &generator))
            blocks.append(
                AudioBuffer(format: .wideband, samples: Array(whole.samples[first..<last]), startFrame: Int64(first)))
            first = last
        }
        #expect(try VADFixtures.frames(kind.makeDetector(sampleRate: 16_000, models: models), blocks) == reference)

        var paced = try PacedSource(AudioFileSource(path: clip.path, blockFrames: 1_000), speed: 400)
        var stage = try VADStage(detector: kind.makeDetector(sampleRate: 16_000, models: models))
        var pacedFrames: [VADFrame] = []
        try Pipeline.run(&paced, through: &stage) { pacedFrames += $0.items }
        #expect(pacedFrames == reference)
    }

    @Test func resetStartsANewStream() throws {
        var stage = try VADStage(detector: SpectralDetector(sampleRate: 16_000))
        let clip = try VADFixtures.clip(1)
        var first = try stage.process(clip).items
        first += try stage.finish().items
        stage.reset()
        var shifted = clip
        shifted.startFrame = 0
        var second = try stage.process(shifted).items
        second += try stage.finish().items
        #expect(first == second)
    }
}
