import EarshotCore
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotLab

@Suite(.computing) struct NoiseGeneratorTests {
    /// Power in a band, from a plain DFT over `samples` (slow but exact enough for a test).
    static func bandPower(_ samples: [Float], from low: Double, to high: Double) -> Double {
        var total = 0.0
        let n = samples.count
        var frequency = low
        while frequency < high {
            var re = 0.0
            var im = 0.0
            let step = 2 * Double.pi * frequency / 16_000
            for (index, sample) in samples.enumerated() {
                re += Double(sample) * cos(step * Double(index))
                im -= Double(sample) * sin(step * Double(index))
            }
            total += (re * re + im * im) / Double(n)
            frequency += (high - low) / 8
        }
        return total / 8
    }

    @Test func noisesHaveUnitRMSAndTheirSlope() {
        var random = SplitMix64(seed: 11)
        let frames = 16_000
        let white = NoiseGenerator.white(frames: frames, using: &random)
        let pink = NoiseGenerator.pink(frames: frames, using: &random)
        let brown = NoiseGenerator.brown(frames: frames, using: &random)
        for noise in [white, pink, brown] { #expect(abs(RecipeAudio.rms(noise[...]) - 1) < 1e-3) }
        // Ratio of power per Hz at 250–500 Hz to 2–4 kHz: flat, 3 dB/octave × 3 octaves, 6 dB/octave × 3.
        func tilt(_ noise: [Float]) -> Double {
            10 * log10(Self.bandPower(noise, from: 250, to: 500) / Self.bandPower(noise, from: 2000, to: 4000))
        }
        #expect(abs(tilt(white)) < 3)
        #expect(abs(tilt(pink) - 9) < 3)
        #expect(abs(tilt(brown) - 18) < 4)
    }

    @Test func sameSeedSameNoise() {
        var a = SplitMix64(seed: 4)
        var b = SplitMix64(seed: 4)
        #expect(NoiseGenerator.clicks(frames: 8000, using: &a) == NoiseGenerator.clicks(frames: 8000, using: &b))
    }
}
