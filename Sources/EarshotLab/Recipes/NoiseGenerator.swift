public import EarshotCore
import Foundation

/// The generated noises of the noisy corpus, each returned at unit RMS so the mixer alone sets levels.
public enum NoiseGenerator {
    /// Gaussian white noise: flat spectrum.
    public static func white(frames: Int, using random: inout SplitMix64) -> [Float] {
        normalized((0..<frames).map { _ in random.gaussian() })
    }

    /// Pink noise (about −3 dB per octave): white noise through six summed first-order sections with
    /// poles spread over the spectrum (Paul Kellet's published approximation of a 1/f filter).
    public static func pink(frames: Int, using random: inout SplitMix64) -> [Float] {
        // Poles and gains of a 1/f approximation by summed first-order sections.
        let poles = [0.99886, 0.99332, 0.96900, 0.86650, 0.55000, -0.7616]
        let gains = [0.0555179, 0.0750759, 0.1538520, 0.3104856, 0.5329522, -0.0168980]
        var state = [Double](repeating: 0, count: poles.count)
        var out = [Double](repeating: 0, count: frames)
        for index in 0..<frames {
            let white = random.gaussian()
            var sum = white * 0.5362
            for section in 0..<poles.count {
                state[section] = poles[section] * state[section] + white * gains[section]
                sum += state[section]
            }
            out[index] = sum
        }
        return normalized(out)
    }

    /// Brown (red) noise (−6 dB per octave): integrated white noise with a slight leak, so it
    /// cannot drift off, and the DC removed.
    public static func brown(frames: Int, using random: inout SplitMix64) -> [Float] {
        var level = 0.0
        var out = [Double](repeating: 0, count: frames)
        for index in 0..<frames {
            level = 0.998 * level + random.gaussian()
            out[index] = level
        }
        let mean = out.reduce(0, +) / Double(max(frames, 1))
        return normalized(out.map { $0 - mean })
    }

    /// Clicks: an impulse train with irregular spacing (50–600 ms), each click a 2 ms decaying
    /// burst of random sign, the kind of transient (keyboard, cable, mouse) that fools energy detectors.
    public static func clicks(frames: Int, using random: inout SplitMix64) -> [Float] {
        var out = [Double](repeating: 0, count: frames)
        var position = RecipeAudio.frames(random.uniform(0.02...0.3))
        let length = RecipeAudio.frames(0.002)
        while position < frames {
            let amplitude = random.uniform(0.3...1) * (random.unit() < 0.5 ? -1 : 1)
            for offset in 0..<length where position + offset < frames {
                let decay = exp(-Double(offset) / Double(length) * 4)
                out[position + offset] = amplitude * decay * (offset % 2 == 0 ? 1 : -0.6)
            }
            position += RecipeAudio.frames(random.uniform(0.05...0.6))
        }
        return normalized(out)
    }

    /// Scales to unit RMS (all zeros stay zeros).
    static func normalized(_ samples: [Double]) -> [Float] {
        let power = samples.reduce(0) { $0 + $1 * $1 } / Double(max(samples.count, 1))
        let scale = power > 0 ? 1 / power.squareRoot() : 0
        return samples.map { Float($0 * scale) }
    }
}
