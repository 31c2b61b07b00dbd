import EarshotCore
import Foundation

/// Mixes speech and noise at a signal-to-noise ratio measured over the labelled speech.
///
/// SNR is `10·log10(Ps / Pn)`, with `Ps` the mean power of the speech signal over the samples inside
/// its speech segments and `Pn` the mean power of the (scaled) noise over the same samples. Measuring
/// over speech only makes the SNR independent of how much silence surrounds the utterance, which is
/// what a listener hears. If the sum would clip, the whole mix is scaled down, which keeps the SNR.
public enum SNRMixer {
    /// The result of one mix.
    public struct Mix: Sendable {
        /// `speech + noiseGain · noise`, times `outputGain`.
        public var samples: [Float]
        /// The gain applied to the noise before summing.
        public var noiseGain: Double
        /// The gain applied to the sum to keep its peak below full scale (1 when no scaling was needed).
        public var outputGain: Double
    }

    /// The largest peak a mix may have: 16-bit full scale less 0.5 dB.
    public static let peakLimit = 0.944

    /// Mixes `noise` (at least as long as `speech`) into `speech` at `snrDB` over `segments` (seconds).
    public static func mix(speech: [Float], segments: [LabeledSegment], noise: [Float], snrDB: Double) throws -> Mix {
        guard noise.count >= speech.count else {
            throw EarshotError(
                .invalidParameter, "SNR mix: noise has \(noise.count) samples; expected at least \(speech.count)")
        }
        let speechPower = power(speech, over: segments)
        let noisePower = power(noise, over: segments)
        guard speechPower > 0, noisePower > 0 else {
            throw EarshotError(.invalidParameter, "SNR mix: speech or noise is silent over the labelled speech")
        }
        let noiseGain = (speechPower / (noisePower * pow(10, snrDB / 10))).squareRoot()
        var mixed = [Float](repeating: 0, count: speech.count)
        var peak: Float = 0
        for index in 0..<speech.count {
            mixed[index] = speech[index] + Float(noiseGain) * noise[index]
            peak = max(peak, abs(mixed[index]))
        }
        var outputGain = 1.0
        if Double(peak) > peakLimit {
            outputGain = peakLimit / Double(peak)
            for index in 0..<mixed.count { mixed[index] *= Float(outputGain) }
        }
        return Mix(samples: mixed, noiseGain: noiseGain, outputGain: outputGain)
    }

    /// The SNR in dB of `mixed` against its clean `speech` (scaled by `speechGain`), over `segments`:
    /// the noise is whatever the mix adds to the speech.
    public static func measuredSNR(
        speech: [Float], mixed: [Float], segments: [LabeledSegment], speechGain: Double = 1
    ) -> Double {
        let scaled = speech.map { Float(speechGain) * $0 }
        let residual = zip(mixed, scaled).map { $0 - $1 }
        return 10 * log10(power(scaled, over: segments) / power(residual, over: segments))
    }

    /// Mean power of `samples` inside `segments` (seconds at 16 kHz).
    public static func power(_ samples: [Float], over segments: [LabeledSegment]) -> Double {
        var sum = 0.0
        var count = 0
        for segment in segments {
            let first = max(0, RecipeAudio.frames(segment.start))
            let last = min(samples.count, RecipeAudio.frames(segment.end))
            guard first < last else { continue }
            for index in first..<last { sum += Double(samples[index]) * Double(samples[index]) }
            count += last - first
        }
        return count > 0 ? sum / Double(count) : 0
    }
}
