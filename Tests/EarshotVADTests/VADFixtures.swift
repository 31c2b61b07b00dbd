import EarshotCore
import EarshotIO
import EarshotTesting
import Foundation

@testable import EarshotVAD

/// Real speech, reference labels and noisy mixtures shared by the detector tests.
enum VADFixtures {
    /// One LibriVox clip (16 kHz mono), read whole.
    static func clip(_ index: Int) throws -> AudioBuffer {
        let source = try AudioFileSource(path: try LibriVoxClips.load()[index].path)
        var all = AudioBuffer(format: source.format)
        while let buffer = try source.read() { all.samples += buffer.samples }
        return all
    }

    /// All five clips.
    static func clips() throws -> [AudioBuffer] { try (0..<5).map(clip) }

    /// Runs `detector` over `blocks` through a ``VADStage`` and returns every frame.
    static func frames(_ detector: any VoiceActivityDetector, _ blocks: [AudioBuffer]) throws -> [VADFrame] {
        let stage = try VADStage(detector: detector)
        var output = StageOutput<VADFrame>()
        for block in blocks { try stage.process(block, into: &output) }
        try stage.finish(into: &output)
        return output.items
    }

    /// Energy of each 10 ms slice `[i·hop, (i+1)·hop)` in dBFS (mean square, floored at −120 dB).
    static func sliceEnergies(_ samples: [Float], hop: Int) -> [Float] {
        stride(from: 0, to: samples.count, by: hop).map { first in
            let slice = samples[first..<min(first + hop, samples.count)]
            let meanSquare = slice.reduce(0) { $0 + $1 * $1 } / Float(slice.count)
            return 10 * log10(max(meanSquare, 1e-12))
        }
    }

    /// Reference labels from the clean recording: a slice is speech when its energy is at least 12 dB
    /// above the clip's noise floor, taken as the 10th percentile of slice energies. (The recordings are
    /// quiet between words — around −50 dBFS against speech at −30 to −15 — so this is unambiguous on
    /// the clean signal, which the noisy mixtures then hide.)
    static func labels(clean samples: [Float], hop: Int) -> [Bool] {
        let energies = sliceEnergies(samples, hop: hop)
        let floor = energies.sorted()[energies.count / 10]
        return energies.map { $0 >= floor + 12 }
    }

    /// Noise whose power falls by 3 dB per octave: a sum of one-pole low-passes with corners four times
    /// apart, each scaled by 1/√corner, so every corner adds the power the octaves above it lack.
    static func pinkNoise(count: Int, sampleRate: Int, seed: UInt64) -> [Float] {
        var generator = SplitMix64(seed: seed)
        let corners: [Double] = [20, 80, 320, 1_280, 5_120]
        let poles = corners.map { Float(exp(-2 * Double.pi * $0 / Double(sampleRate))) }
        let gains = corners.map { Float(1 / $0.squareRoot()) }
        var states = [Float](repeating: 0, count: corners.count)
        return (0..<count).map { _ in
            let white = Float.random(in: -1...1, using: &generator)
            var sum: Float = 0
            for section in 0..<corners.count {
                states[section] = (1 - poles[section]) * white + poles[section] * states[section]
                sum += gains[section] * states[section]
            }
            return sum
        }
    }

    static func whiteNoise(count: Int, seed: UInt64) -> [Float] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in Float.random(in: -1...1, using: &generator) }
    }

    /// `clean` after `leadIn` samples of silence, plus `noise` scaled so that the power of the labelled
    /// speech slices is `snr` dB above the noise power.
    static func mix(clean: [Float], labels: [Bool], hop: Int, noise: [Float], snr: Float, leadIn: Int) -> [Float] {
        var speechPower: Float = 0
        var speechCount = 0
        for (slice, isSpeech) in labels.enumerated() where isSpeech {
            for index in slice * hop..<min((slice + 1) * hop, clean.count) {
                speechPower += clean[index] * clean[index]
                speechCount += 1
            }
        }
        speechPower /= Float(max(speechCount, 1))
        let noisePower = noise.reduce(0) { $0 + $1 * $1 } / Float(noise.count)
        let scale = (speechPower / noisePower / pow(10, snr / 10)).squareRoot()
        let padded = [Float](repeating: 0, count: leadIn) + clean
        return zip(padded, noise).map { $0 + scale * $1 }
    }

    /// Frame-level F1 of `p ≥ 0.5` against `labels`, as counts to pool across clips.
    struct Score {
        var truePositives = 0
        var falsePositives = 0
        var falseNegatives = 0
        var trueNegatives = 0

        mutating func add(_ frames: [VADFrame], labels: [Bool]) {
            for (frame, isSpeech) in zip(frames, labels) {
                let detected = frame.probability >= 0.5
                if detected && isSpeech { truePositives += 1 }
                if detected && !isSpeech { falsePositives += 1 }
                if !detected && isSpeech { falseNegatives += 1 }
                if !detected && !isSpeech { trueNegatives += 1 }
            }
        }

        /// Fraction of speech frames detected.
        var recall: Double { Double(truePositives) / Double(max(1, truePositives + falseNegatives)) }
        /// Fraction of non-speech frames rejected.
        var specificity: Double { Double(trueNegatives) / Double(max(1, trueNegatives + falsePositives)) }
        /// Mean of recall and specificity: ½ for any detector that ignores its input.
        var balancedAccuracy: Double { (recall + specificity) / 2 }

        var f1: Double {
            Double(2 * truePositives) / Double(max(1, 2 * truePositives + falsePositives + falseNegatives))
        }
    }
}
