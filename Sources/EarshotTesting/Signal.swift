public import EarshotCore
import Foundation

/// Synthesised test signals with known answers: a 1 kHz sine at −20 dBFS peak has an RMS of
/// exactly −23.01 dBFS, silence is −∞, and seeded noise is reproducible.
public enum Signal {
    /// A sine of `frequency` Hz whose peak is `peakDBFS`, lasting `seconds`, copied to every channel.
    public static func sine(
        frequency: Double, peakDBFS: Double = -20, seconds: Double, format: AudioFormat, startFrame: Int64 = 0
    ) -> AudioBuffer {
        let amplitude = pow(10, peakDBFS / 20)
        let frames = Int((seconds * Double(format.sampleRate)).rounded())
        var samples = [Float](repeating: 0, count: frames * format.channelCount)
        let step = 2 * Double.pi * frequency / Double(format.sampleRate)
        for frame in 0..<frames {
            let value = Float(amplitude * sin(step * Double(frame)))
            for channel in 0..<format.channelCount { samples[frame * format.channelCount + channel] = value }
        }
        return AudioBuffer(format: format, samples: samples, startFrame: startFrame)
    }

    /// Digital silence.
    public static func silence(seconds: Double, format: AudioFormat, startFrame: Int64 = 0) -> AudioBuffer {
        let frames = Int((seconds * Double(format.sampleRate)).rounded())
        return AudioBuffer(
            format: format, samples: [Float](repeating: 0, count: frames * format.channelCount), startFrame: startFrame)
    }

    /// Uniform white noise in [-amplitude, amplitude] from a fixed seed (SplitMix64), the same on every run.
    public static func whiteNoise(amplitude: Float = 0.1, seconds: Double, format: AudioFormat, seed: UInt64 = 1)
        -> AudioBuffer
    {
        var generator = SplitMix64(seed: seed)
        let count = Int((seconds * Double(format.sampleRate)).rounded()) * format.channelCount
        let samples = (0..<count).map { _ in Float.random(in: -amplitude...amplitude, using: &generator) }
        return AudioBuffer(format: format, samples: samples)
    }

    /// Splits `buffer` into consecutive buffers of at most `frames` frames, with their media times.
    public static func blocks(of buffer: AudioBuffer, frames: Int) -> [AudioBuffer] {
        let channels = buffer.format.channelCount
        return stride(from: 0, to: buffer.frameCount, by: frames).map { first in
            let last = min(first + frames, buffer.frameCount)
            return AudioBuffer(
                format: buffer.format, samples: Array(buffer.samples[first * channels..<last * channels]),
                startFrame: buffer.startFrame + Int64(first))
        }
    }

    /// Estimates the frequency of a periodic mono signal from its upward zero crossings, with linear
    /// interpolation between samples; accurate to well under 1 Hz over a second of a clean tone.
    public static func estimatedFrequency(of samples: ArraySlice<Float>, sampleRate: Int) -> Double {
        var crossings: [Double] = []
        var previous = samples.first ?? 0
        for (offset, value) in samples.dropFirst().enumerated() {
            // `previous` sits at index `offset`, `value` at `offset + 1`: interpolate the crossing between them.
            if previous < 0 && value >= 0 { crossings.append(Double(offset) + Double(-previous / (value - previous))) }
            previous = value
        }
        guard crossings.count >= 2, let first = crossings.first, let final = crossings.last else { return 0 }
        return Double(crossings.count - 1) * Double(sampleRate) / (final - first)
    }
}
