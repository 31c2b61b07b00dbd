import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Testing

@testable import EarshotVAD

@Suite(.computing) struct SpeexDetectorTests {
    @Test func silenceIsNotSpeech() throws {
        let frames = try VADFixtures.frames(
            SpeexDetector(sampleRate: 16_000), [Signal.silence(seconds: 2, format: .wideband)])
        #expect(frames.count == 200)
        #expect(frames.allSatisfy { $0.probability < 0.5 })
    }

    /// A weak baseline, but still more confident inside speech than between words.
    @Test func realSpeechScoresHigherThanPauses() throws {
        let clip = try VADFixtures.clip(3)
        let labels = VADFixtures.labels(clean: clip.samples, hop: 160)
        let frames = try VADFixtures.frames(SpeexDetector(sampleRate: 16_000), [clip])
        let speech = zip(frames, labels).filter(\.1).map(\.0.probability)
        let pauses = zip(frames, labels).filter { !$0.1 }.map(\.0.probability)
        let speechMean = speech.reduce(0, +) / Float(speech.count)
        let pauseMean = pauses.reduce(0, +) / Float(pauses.count)
        print("speex: speech \(speechMean), pauses \(pauseMean)")
        #expect(speechMean > pauseMean, "speech \(speechMean), pauses \(pauseMean)")
    }

    /// Steady noise before speech is learnt as noise: its last half second scores below the speech.
    @Test func noiseBeforeSpeechScoresLowerThanSpeech() throws {
        let clip = try VADFixtures.clip(3)
        let clean = VADFixtures.labels(clean: clip.samples, hop: 160)
        let leadIn = 16_000
        let noise = VADFixtures.whiteNoise(count: leadIn + clip.samples.count, seed: 5)
        let mixed = VADFixtures.mix(clean: clip.samples, labels: clean, hop: 160, noise: noise, snr: 15, leadIn: leadIn)
        let frames = try VADFixtures.frames(
            SpeexDetector(sampleRate: 16_000), [AudioBuffer(format: .wideband, samples: mixed)])
        let noiseMean = frames[50..<100].map(\.probability).reduce(0, +) / 50
        let speech = zip(frames.dropFirst(100), clean).filter(\.1).map(\.0.probability)
        let speechMean = speech.reduce(0, +) / Float(speech.count)
        print("speex: noise \(noiseMean), speech in noise \(speechMean)")
        #expect(speechMean > noiseMean + 0.2, "noise \(noiseMean), speech \(speechMean)")
    }

    @Test func resetForgetsTheNoiseEstimate() throws {
        let detector = try SpeexDetector(sampleRate: 16_000)
        let clip = try VADFixtures.clip(1)
        let first = try VADFixtures.frames(detector, [clip])
        detector.reset()
        let second = try VADFixtures.frames(detector, [clip])
        #expect(first == second)
    }

    @Test(arguments: [7_999, 16_050, 96_000])
    func unsupportedRatesFailNamingSampleRate(rate: Int) throws {
        let error = try #require(throws: EarshotError.self) { try SpeexDetector(sampleRate: rate) }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("sampleRate"))
    }
}
