import Foundation

/// Whisper's input features: the log-mel spectrogram of 16 kHz audio, 25 ms Hann windows every 10 ms
/// (400-point DFT, hop 160), on Slaney-style mel filters (librosa's `filters.mel` with `htk=False,
/// norm="slaney"`, as openai/whisper's `mel_filters.npz` holds them), log10-compressed, floored 8
/// (80 dB) below the loudest value, and scaled as `(x + 4) / 4`.
///
/// It reproduces faster-whisper's `FeatureExtractor` (the reference Earshot is checked against):
/// 160 zero samples appended, the signal reflected 200 samples at each end, the last frame dropped, so
/// N samples give `N / 160 + 1` frames, the floor taken over all of them. The DFT is one matrix
/// product (the window folded into a cosine and a sine basis) through OpenBLAS, like the rest of the
/// network; the whole spectrogram of a 30 s window costs about as much as one encoder layer's
/// projections.
struct LogMelSpectrogram {
    static let sampleRate = 16_000
    static let fftLength = 400
    static let hopLength = 160
    static let bins = fftLength / 2 + 1

    let melBins: Int
    /// `[melBins][bins]` Slaney mel filters.
    private let filters: [Float]
    /// `[2·bins][fftLength]`: `w[n]·cos(2πkn/N)` for each bin, then `w[n]·sin(2πkn/N)`.
    private let basis: [Float]

    init(melBins: Int) {
        self.melBins = melBins
        filters = Self.melFilters(melBins: melBins)
        var basis = [Float](repeating: 0, count: 2 * Self.bins * Self.fftLength)
        let n = Double(Self.fftLength)
        for k in 0..<Self.bins {
            for t in 0..<Self.fftLength {
                let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(t) / n)  // periodic Hann
                let angle = 2 * Double.pi * Double((k * t) % Self.fftLength) / n
                basis[k * Self.fftLength + t] = Float(window * cos(angle))
                basis[(Self.bins + k) * Self.fftLength + t] = Float(window * sin(angle))
            }
        }
        self.basis = basis
    }

    /// The number of frames `sampleCount` samples give.
    static func frameCount(samples sampleCount: Int) -> Int { sampleCount / hopLength + 1 }

    /// The features of `samples` (16 kHz, any length ≥ 1), time-major: `frames × melBins`.
    func callAsFunction(_ samples: UnsafeBufferPointer<Float>) -> (frames: Int, values: [Float]) {
        let (length, hop, half) = (Self.fftLength, Self.hopLength, Self.fftLength / 2)
        let padded = samples.count + hop  // 160 zeros appended
        let frames = Self.frameCount(samples: samples.count)
        // The padded signal reflected at both ends (numpy's "reflect": the edge sample is not repeated).
        func sample(_ index: Int) -> Float {
            var i = index - half
            if i < 0 { i = -i }
            if i >= padded { i = 2 * (padded - 1) - i }
            return i < samples.count && i >= 0 ? samples[i] : 0
        }
        var windows = [Float](repeating: 0, count: frames * length)
        windows.withUnsafeMutableBufferPointer { windows in
            for frame in 0..<frames {
                let start = frame * hop
                let row = windows.baseAddress! + frame * length
                if start >= half && start + length - half <= samples.count {
                    for t in 0..<length { row[t] = samples[start - half + t] }
                } else {
                    for t in 0..<length { row[t] = sample(start + t) }
                }
            }
        }
        let bins = Self.bins
        var spectrum = [Float](repeating: 0, count: frames * 2 * bins)
        windows.withUnsafeBufferPointer { windows in
            basis.withUnsafeBufferPointer { basis in
                spectrum.withUnsafeMutableBufferPointer { spectrum in
                    WhisperKernels.multiplyTransposed(
                        windows.baseAddress!, aStride: length, basis.baseAddress!, bStride: length,
                        into: spectrum.baseAddress!, cStride: 2 * bins, rows: frames, columns: 2 * bins, depth: length)
                }
            }
        }
        // Power into the first `bins` columns of each row.
        spectrum.withUnsafeMutableBufferPointer { spectrum in
            for frame in 0..<frames {
                let row = spectrum.baseAddress! + frame * 2 * bins
                for k in 0..<bins { row[k] = row[k] * row[k] + row[bins + k] * row[bins + k] }
            }
        }
        var mel = [Float](repeating: 0, count: frames * melBins)
        spectrum.withUnsafeBufferPointer { spectrum in
            filters.withUnsafeBufferPointer { filters in
                mel.withUnsafeMutableBufferPointer { mel in
                    WhisperKernels.multiplyTransposed(
                        spectrum.baseAddress!, aStride: 2 * bins, filters.baseAddress!, bStride: bins,
                        into: mel.baseAddress!, cStride: melBins, rows: frames, columns: melBins, depth: bins)
                }
            }
        }
        var maximum = -Float.infinity
        for i in mel.indices {
            let value = log10(max(mel[i], 1e-10))
            mel[i] = value
            maximum = max(maximum, value)
        }
        let floor = maximum - 8
        for i in mel.indices { mel[i] = (max(mel[i], floor) + 4) / 4 }
        return (frames, mel)
    }

    /// Slaney's mel filters for a 400-point DFT at 16 kHz: `melBins` triangles between 0 Hz and 8 kHz
    /// on a scale linear below 1 kHz (66.7 Hz per mel) and logarithmic above (27 mels per factor 6.4),
    /// each scaled to unit area (2 / bandwidth).
    static func melFilters(melBins: Int) -> [Float] {
        let (linearStep, logStart, logStep) = (200.0 / 3, 1000.0, log(6.4) / 27)
        let logStartMel = logStart / linearStep
        func hertz(_ mel: Double) -> Double {
            mel >= logStartMel ? logStart * Foundation.exp(logStep * (mel - logStartMel)) : linearStep * mel
        }
        let maximumMel = logStartMel + log(Double(sampleRate / 2) / logStart) / logStep  // 8 kHz
        let edges = (0..<(melBins + 2)).map { hertz(maximumMel * Double($0) / Double(melBins + 1)) }
        var filters = [Float](repeating: 0, count: melBins * bins)
        for m in 0..<melBins {
            let (lower, centre, upper) = (edges[m], edges[m + 1], edges[m + 2])
            let area = 2 / (upper - lower)
            for k in 0..<bins {
                let frequency = Double(k * sampleRate) / Double(fftLength)
                let rising = (frequency - lower) / (centre - lower)
                let falling = (upper - frequency) / (upper - centre)
                filters[m * bins + k] = Float(max(0, min(rising, falling)) * area)
            }
        }
        return filters
    }
}
