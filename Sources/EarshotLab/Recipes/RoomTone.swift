import EarshotCore
import Foundation

/// Noise shaped like a recording's own background: the padding the real corpus puts around each clip.
///
/// Padding a real recording with white noise makes a seam where the background's spectrum changes,
/// and an adaptive spectral detector reads the change as speech — a property of the corpus, not of
/// the detector. Splicing the clip's own pauses instead carries breaths and word edges (alignment is
/// ±40 ms) into the pad. So the pad is white noise through an all-pole filter fitted to the clip's
/// background (32nd-order linear prediction, enough to follow an MP3 low-pass; autocorrelation method
/// with Levinson–Durbin, over the clip's quietest frames), scaled to the clip's background level: the background's
/// spectral envelope and level, without its events.
enum RoomTone {
    static let order = 32
    /// The clip's quietest 10 ms frames (within 3 dB of its 10th-percentile level), joined: its
    /// background without breaths and word edges, which pauses between aligned words still hold.
    static func background(of clip: [Float]) -> [Float] {
        let frame = RecipeAudio.sampleRate / 100
        let starts = Array(stride(from: 0, to: clip.count - frame + 1, by: frame))
        let levels = starts.map { RecipeAudio.rms(clip[$0..<$0 + frame]) }
        guard let quiet = levels.sorted().dropFirst(levels.count / 10).first, quiet > 0 else { return [] }
        var bank: [Float] = []
        for (start, level) in zip(starts, levels) where level <= quiet * 1.41 { bank += clip[start..<start + frame] }
        return bank
    }

    /// Prediction coefficients a₁…aₚ of `samples` (x[n] ≈ Σ aₖ x[n−k]), or nil when the signal is too
    /// short or has no energy (digital silence).
    static func predictor(_ samples: [Float]) -> [Double]? {
        guard samples.count >= RecipeAudio.frames(0.05) else { return nil }
        var autocorrelation = [Double](repeating: 0, count: order + 1)
        for lag in 0...order {
            var sum = 0.0
            for index in lag..<samples.count { sum += Double(samples[index]) * Double(samples[index - lag]) }
            autocorrelation[lag] = sum
        }
        guard autocorrelation[0] > 1e-9 * Double(samples.count) else { return nil }
        autocorrelation[0] *= 1.0001  // a little white noise: keeps the recursion stable
        var coefficients = [Double](repeating: 0, count: order + 1)
        var error = autocorrelation[0]
        for step in 1...order {
            var reflection = autocorrelation[step]
            for k in 1..<step { reflection -= coefficients[k] * autocorrelation[step - k] }
            reflection /= error
            var updated = coefficients
            updated[step] = reflection
            for k in 1..<step { updated[k] = coefficients[k] - reflection * coefficients[step - k] }
            coefficients = updated
            error *= 1 - reflection * reflection
        }
        return Array(coefficients[1...])
    }

    /// `frames` samples of noise with the spectral envelope of `coefficients`, at `dBFS` RMS.
    static func noise(frames: Int, coefficients: [Double], dBFS: Double, using random: inout SplitMix64) -> [Float] {
        let warmUp = RecipeAudio.frames(0.1)
        let white = NoiseGenerator.white(frames: frames + warmUp, using: &random)
        var history = [Double](repeating: 0, count: coefficients.count)
        var shaped = [Double](repeating: 0, count: white.count)
        for index in white.indices {
            var value = Double(white[index])
            for (k, coefficient) in coefficients.enumerated() { value += coefficient * history[k] }
            history.removeLast()
            history.insert(value, at: 0)
            shaped[index] = value
        }
        let body = shaped[warmUp...]
        let rms = (body.reduce(0) { $0 + $1 * $1 } / Double(max(body.count, 1))).squareRoot()
        let gain = rms > 0 ? pow(10, dBFS / 20) / rms : 0
        return body.map { Float($0 * gain) }
    }
}
