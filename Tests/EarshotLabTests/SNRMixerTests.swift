import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotLab

@Suite(.computing) struct SNRMixerTests {
    /// A "speech" signal: 1 s of silence, 2 s of a 300 Hz tone with a wobble, 1 s of silence.
    static let speech: [Float] = (0..<64_000).map { index in
        guard (16_000..<48_000).contains(index) else { return 0 }
        let t = Double(index) / 16_000
        let tone: Double = sin(2 * Double.pi * 300 * t)
        let wobble: Double = 0.6 + 0.4 * sin(2 * Double.pi * 3 * t)
        return Float(0.2 * tone * wobble)
    }
    static let segments = [LabeledSegment(start: 1, end: 3)]

    @Test(arguments: [0.0, 5, 10, 20])
    func measuredSNRMatchesTheTarget(snr: Double) throws {
        var random = SplitMix64(seed: 5)
        for noise in [
            NoiseGenerator.white(frames: 64_000, using: &random), NoiseGenerator.pink(frames: 64_000, using: &random),
            NoiseGenerator.clicks(frames: 64_000, using: &random),
        ] {
            let mix = try SNRMixer.mix(speech: Self.speech, segments: Self.segments, noise: noise, snrDB: snr)
            // Measured on the 16-bit samples the file will hold, against the speech as scaled in the mix.
            let written = RecipeAudio.quantized(mix.samples)
            let measured = SNRMixer.measuredSNR(
                speech: Self.speech, mixed: written, segments: Self.segments, speechGain: mix.outputGain)
            #expect(abs(measured - snr) < 0.1, "target \(snr) dB, measured \(measured) dB")
            #expect(written.allSatisfy { abs($0) <= Float(SNRMixer.peakLimit) + 1e-4 })
        }
    }

    @Test func loudNoiseIsScaledDownWithTheSpeechNotClipped() throws {
        var random = SplitMix64(seed: 9)
        let noise = NoiseGenerator.clicks(frames: 64_000, using: &random)
        let mix = try SNRMixer.mix(speech: Self.speech, segments: Self.segments, noise: noise, snrDB: 0)
        #expect(mix.outputGain < 1)
    }

    @Test func rejectsShortOrSilentNoise() throws {
        #expect(throws: EarshotError.self) {
            try SNRMixer.mix(speech: Self.speech, segments: Self.segments, noise: [0.1], snrDB: 0)
        }
        #expect(throws: EarshotError.self) {
            try SNRMixer.mix(
                speech: Self.speech, segments: Self.segments, noise: [Float](repeating: 0, count: 64_000), snrDB: 0)
        }
    }
}
