import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Testing

@testable import EarshotVAD

@Suite(.computing) struct EnergyDetectorTests {
    @Test(arguments: [8_000, 16_000, 44_100, 48_000])
    func hopIsTenMillisecondsAtAnyRate(rate: Int) throws {
        let detector = try EnergyDetector(sampleRate: rate)
        #expect(detector.hopLength == rate / 100)
        #expect(detector.frameLength == 2 * detector.hopLength)
        #expect(detector.lookAhead == 0)
    }

    @Test func silenceIsNotSpeech() throws {
        let frames = try VADFixtures.frames(
            EnergyDetector(sampleRate: 16_000), [Signal.silence(seconds: 2, format: .wideband)])
        #expect(frames.count == 200)
        #expect(frames.allSatisfy { $0.probability < 0.05 })
    }

    @Test func realSpeechIsDetectedWhereTheCleanClipIsLoud() throws {
        let clip = try VADFixtures.clip(0)
        let labels = VADFixtures.labels(clean: clip.samples, hop: 160)
        let frames = try VADFixtures.frames(EnergyDetector(sampleRate: 16_000), [clip])
        var score = VADFixtures.Score()
        score.add(frames, labels: labels)
        #expect(score.f1 > 0.85, "F1 \(score.f1) on the clean clip")
    }

    /// Level is measured against the tracked floor, so a clip 20 dB quieter gives the same decisions.
    @Test func decisionsDoNotDependOnGain() throws {
        let clip = try VADFixtures.clip(2)
        var quiet = clip
        quiet.samples = clip.samples.map { $0 * 0.1 }
        let loud = try VADFixtures.frames(EnergyDetector(sampleRate: 16_000), [clip])
        let soft = try VADFixtures.frames(EnergyDetector(sampleRate: 16_000), [quiet])
        #expect(loud.count == soft.count)
        let decisions = loud.map { $0.probability >= 0.5 }
        let differing = zip(loud, soft).enumerated().filter { ($1.0.probability >= 0.5) != ($1.1.probability >= 0.5) }
            .map(\.offset)
        #expect(differing.count <= 2, "frames \(differing) differ")
        for index in differing {
            // A difference is allowed only next to a speech/non-speech boundary.
            let neighbours = decisions[max(0, index - 2)...min(decisions.count - 1, index + 2)]
            #expect(Set(neighbours).count == 2, "frame \(index) differs away from a boundary")
        }
        #expect(decisions.contains(true) && decisions.contains(false))
    }

    /// The floor follows a noise that grows: 2 s of noise at −40 dB then 8 s at −20 dB end as non-speech.
    @Test func followsARisingNoiseFloor() throws {
        var noise = Signal.whiteNoise(amplitude: 0.017, seconds: 10, format: .wideband, seed: 3)
        for index in 32_000..<noise.samples.count { noise.samples[index] *= 10 }
        let frames = try VADFixtures.frames(EnergyDetector(sampleRate: 16_000), [noise])
        #expect(frames[frames.count - 200..<frames.count].allSatisfy { $0.probability < 0.5 })
    }

    @Test(arguments: [7_999, 16_050, 48_001, 96_000])
    func unsupportedRatesFailNamingSampleRate(rate: Int) throws {
        let error = try #require(throws: EarshotError.self) { try EnergyDetector(sampleRate: rate) }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("sampleRate"))
    }

    @Test func invalidConfigurationFailsNamingTheField() throws {
        let error = try #require(throws: EarshotError.self) {
            try EnergyDetector(sampleRate: 16_000, configuration: .init(fallRate: 0))
        }
        #expect(error.code == .invalidParameter)
        #expect(error.message.contains("fallRate"))
    }
}

@Suite(.computing) struct DigitalSilenceTests {
    /// Speech-like bursts separated by digital zero, then room tone at −66 dBFS: the tone is not speech,
    /// because no detector adapts its noise estimate to a gap that holds no signal.
    @Test(arguments: [DetectorKind.energy, .spectral])
    func roomToneAfterAnEditedGapIsNotSpeech(kind: DetectorKind) throws {
        let format = AudioFormat.wideband
        let tone = { (seconds: Double, seed: UInt64) in
            Signal.whiteNoise(amplitude: 0.0005 * 1.732, seconds: seconds, format: format, seed: seed).samples
        }
        let burst = Signal.sine(frequency: 300, peakDBFS: -10, seconds: 0.4, format: format).samples
        let zero = [Float](repeating: 0, count: 8_000)
        let samples = tone(1.0, 1) + burst + zero + burst + tone(3.0, 2)
        let stage = try VADStage(detector: kind.makeDetector(sampleRate: 16_000))
        var output = StageOutput<VADFrame>()
        try stage.process(AudioBuffer(format: format, samples: samples), into: &output)
        try stage.finish(into: &output)
        // The last 2 s of room tone: at most a few stray frames above 0.5.
        let tail = output.items.filter { $0.start.seconds >= 3.0 }
        let speech = tail.filter { $0.probability >= 0.5 }.count
        #expect(speech <= tail.count / 20, "\(speech) of \(tail.count) room-tone frames called speech")
    }
}
