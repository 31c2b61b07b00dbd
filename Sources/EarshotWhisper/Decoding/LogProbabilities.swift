import Foundation

/// Softmax and log-softmax over a row of logits, summed as CTranslate2 sums them on x86: the
/// exponentials in 8 lanes (index mod 8) accumulated in order in `Float`, the lanes combined as
/// `((a0+a4)+(a2+a6)) + ((a1+a5)+(a3+a7))`, the tail added last. Over 51 864 mostly tiny terms the
/// order matters in the fifth decimal of a token's log-probability, and scores, the average
/// log-probability and its −1.0 fallback threshold are compared at that precision; summing the same
/// way gives the reference's scores, not merely close ones.
enum LogProbabilities {
    /// The value a suppressed logit gets: the lowest finite float, as CTranslate2 writes (−∞ would
    /// turn a fully suppressed row's arithmetic into NaN).
    static let suppressed = -Float.greatestFiniteMagnitude

    /// `log Σ exp(x − maximum)` over `count` values, with `maximum` their largest.
    static func logSumExp(_ x: UnsafePointer<Float>, count: Int, maximum: Float) -> Float {
        logf(sumOfExponentials(x, count: count, maximum: maximum)) + maximum
    }

    /// `Σ exp(x − maximum)`, in CTranslate2's order.
    static func sumOfExponentials(_ x: UnsafePointer<Float>, count: Int, maximum: Float) -> Float {
        let whole = count - count % 8
        guard whole > 0 else {
            var sum: Float = 0
            for i in 0..<count { sum += WhisperKernels.exp(x[i] - maximum) }
            return sum
        }
        var a: (Float, Float, Float, Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0, 0, 0, 0)
        var i = 0
        while i < whole {
            a.0 += WhisperKernels.exp(x[i] - maximum)
            a.1 += WhisperKernels.exp(x[i + 1] - maximum)
            a.2 += WhisperKernels.exp(x[i + 2] - maximum)
            a.3 += WhisperKernels.exp(x[i + 3] - maximum)
            a.4 += WhisperKernels.exp(x[i + 4] - maximum)
            a.5 += WhisperKernels.exp(x[i + 5] - maximum)
            a.6 += WhisperKernels.exp(x[i + 6] - maximum)
            a.7 += WhisperKernels.exp(x[i + 7] - maximum)
            i += 8
        }
        var sum = ((a.0 + a.4) + (a.2 + a.6)) + ((a.1 + a.5) + (a.3 + a.7))
        while i < count {
            sum += WhisperKernels.exp(x[i] - maximum)
            i += 1
        }
        return sum
    }

    /// Log-softmax of `count` logits into `output` (`x + (−max − log Σ)`, in `Float`).
    static func logSoftmax(_ x: UnsafePointer<Float>, count: Int, into output: UnsafeMutablePointer<Float>) {
        let maximum = WhisperKernels.maximum(x, count: count)
        let shift = -maximum - logf(sumOfExponentials(x, count: count, maximum: maximum))
        for i in 0..<count { output[i] = x[i] + shift }
    }

    /// The softmax probability of `token` among `count` logits.
    static func probability(of token: Int, _ x: UnsafePointer<Float>, count: Int) -> Float {
        let maximum = WhisperKernels.maximum(x, count: count)
        return WhisperKernels.exp(x[token] - maximum) * (1 / sumOfExponentials(x, count: count, maximum: maximum))
    }
}
