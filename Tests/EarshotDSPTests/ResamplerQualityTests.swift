import EarshotCore
import EarshotDSP
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// How faithfully each engine converts the rate, measured with a stepped sine sweep: tones across the
/// output's passband (their gain, whose spread is the passband ripple) and tones between the output's
/// Nyquist frequency and the input's (whatever comes out of those is aliasing; its level below the
/// input's is the alias rejection). The README states the figures this prints.
@Suite(.computing) struct ResamplerQualityTests {
    struct Figures {
        /// Largest minus smallest gain over the passband tones, dB.
        var rippleDB: Double
        /// The weakest rejection over the tones above the output's Nyquist frequency, dB.
        var aliasRejectionDB: Double
    }

    /// Tones of 0.5 s at −6 dBFS every `step` Hz; the middle 0.3 s of each output is measured.
    static func measure(_ engine: Resampler.Engine, from inputRate: Int, to outputRate: Int) throws -> Figures {
        let format = try AudioFormat(sampleRate: inputRate, channelCount: 1)
        let nyquist = Double(outputRate) / 2
        func outputRMS(_ frequency: Double) throws -> Double {
            let tone = Signal.sine(frequency: frequency, peakDBFS: -6, seconds: 0.5, format: format)
            var resampler = try Resampler(
                inputFormat: format, configuration: .init(sampleRate: outputRate, engine: engine))
            var samples: [Float] = []
            for buffer in try resampler.process(tone).items + (try resampler.finish()).items {
                samples += buffer.samples
            }
            let middle = samples[(outputRate / 10)..<(outputRate * 4 / 10)]
            return sqrt(middle.reduce(0) { $0 + Double($1) * Double($1) } / Double(middle.count))
        }
        let inputRMS = pow(10, -6.0 / 20) / 2.0.squareRoot()
        // The passband: 100 Hz to 87.5 % of the output's Nyquist frequency (7 kHz at 16 kHz).
        let passband = try stride(from: 100.0, through: 0.875 * nyquist, by: 100).map {
            20 * log10(try outputRMS($0) / inputRMS)
        }
        // Above the output's Nyquist frequency, from 10 % past it to 95 % of the input's.
        let upper = 0.95 * Double(inputRate) / 2
        let stopband = try stride(from: 1.1 * nyquist, through: upper, by: (upper - 1.1 * nyquist) / 40).map {
            20 * log10(inputRMS / max(try outputRMS($0), 1e-12))
        }
        return Figures(rippleDB: passband.max()! - passband.min()!, aliasRejectionDB: stopband.min()!)
    }

    @Test(arguments: [(44_100, 16_000), (48_000, 16_000), (48_000, 8_000)])
    func libsoxrIsFlatInThePassbandAndRejectsAliases(rates: (Int, Int)) throws {
        let soxr = try Self.measure(.soxr, from: rates.0, to: rates.1)
        let speex = try Self.measure(.speexdsp, from: rates.0, to: rates.1)
        print(
            "resampler quality \(rates.0) → \(rates.1) Hz: "
                + String(
                    format: "soxr ripple %.4f dB, alias rejection %.1f dB; speexdsp q4 ripple %.4f dB, rejection %.1f dB",
                    soxr.rippleDB, soxr.aliasRejectionDB, speex.rippleDB, speex.aliasRejectionDB))
        #expect(soxr.rippleDB < 0.05, "soxr ripple \(soxr.rippleDB) dB")
        #expect(soxr.aliasRejectionDB > 120, "soxr rejection \(soxr.aliasRejectionDB) dB")
        #expect(speex.rippleDB < 1, "speexdsp ripple \(speex.rippleDB) dB")
        #expect(speex.aliasRejectionDB > 70, "speexdsp rejection \(speex.aliasRejectionDB) dB")
        #expect(soxr.aliasRejectionDB > speex.aliasRejectionDB)
    }
}
