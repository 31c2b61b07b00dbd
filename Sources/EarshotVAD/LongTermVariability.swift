#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Long-term spectral variability (LTSV): how unevenly each band's energy is spread over the last
/// `window` frames, varied across bands — after Ghosh, Tsiartas & Narayanan, "Robust voice activity
/// detection using long-term signal variability", IEEE Trans. Audio, Speech, Lang. Process. 19(3), 2011.
///
/// For band *k*, pₖ(n) = Pₖ(n) / Σₙ Pₖ(n) over the window, and Hₖ = −Σₙ pₖ(n) log pₖ(n) is near log R
/// for a band whose energy is steady (stationary noise, a held note) and lower where it comes and goes.
/// Speech switches energy between bands syllable by syllable, so the entropies differ across bands and
/// their variance (the LTSV) is high; steady noise gives every band the same, maximal entropy.
/// Entropy does not depend on level, so neither does the LTSV.
///
/// Sums are kept running (O(bands) per frame) and recomputed exactly once per window so rounding never
/// accumulates. Owns its buffers: a final class, not `Sendable`, one per detector.
final class LongTermVariability {
    let bandCount: Int
    let window: Int
    private let history: UnsafeMutablePointer<Float>
    /// P·log P of each value in `history`, kept so that a value leaving the window costs no logarithm.
    private let weightedHistory: UnsafeMutablePointer<Float>
    private let sums: UnsafeMutablePointer<Double>
    private let weightedLogs: UnsafeMutablePointer<Double>
    private var next = 0
    private var filled = 0

    init(bandCount: Int, window: Int) {
        self.bandCount = bandCount
        self.window = window
        history = .allocate(capacity: bandCount * window)
        weightedHistory = .allocate(capacity: bandCount * window)
        sums = .allocate(capacity: bandCount)
        weightedLogs = .allocate(capacity: bandCount)
        reset()
    }

    deinit {
        history.deallocate()
        weightedHistory.deallocate()
        sums.deallocate()
        weightedLogs.deallocate()
    }

    func reset() {
        history.initialize(repeating: 0, count: bandCount * window)
        weightedHistory.initialize(repeating: 0, count: bandCount * window)
        sums.initialize(repeating: 0, count: bandCount)
        weightedLogs.initialize(repeating: 0, count: bandCount)
        next = 0
        filled = 0
    }

    /// Adds one frame's band powers (all > 0) and returns the LTSV over the window so far.
    func push(_ power: UnsafeMutablePointer<Float>) -> Float {
        let row = history + next * bandCount
        let weightedRow = weightedHistory + next * bandCount
        for band in 0..<bandCount {
            if filled == window {
                sums[band] -= Double(row[band])
                weightedLogs[band] -= Double(weightedRow[band])
            }
            let new = power[band]
            let weighted = new * logf(new)
            row[band] = new
            weightedRow[band] = weighted
            sums[band] += Double(new)
            weightedLogs[band] += Double(weighted)
        }
        next += 1
        filled = min(filled + 1, window)
        if next == window {
            next = 0
            recomputeSums()
        }
        var mean = 0.0
        var meanSquare = 0.0
        for band in 0..<bandCount {
            let sum = sums[band]
            let entropy = Double(logf(Float(sum))) - weightedLogs[band] / sum
            mean += entropy
            meanSquare += entropy * entropy
        }
        mean /= Double(bandCount)
        return Float(max(0, meanSquare / Double(bandCount) - mean * mean))
    }

    private func recomputeSums() {
        for band in 0..<bandCount {
            var sum = 0.0
            var weighted = 0.0
            for frame in 0..<filled {
                sum += Double(history[frame * bandCount + band])
                weighted += Double(weightedHistory[frame * bandCount + band])
            }
            sums[band] = sum
            weightedLogs[band] = weighted
        }
    }
}
