import CWhisperKernels

/// The int8 products: a weight matrix held as int8 with one step per row (``WhisperWeights/Matrix/int8(_:steps:)``)
/// against activations quantized the same way, row by row, as CTranslate2 computes with `int8`
/// weights: `c[i][j] = (Σₖ qa[i][k] · qw[j][k]) · (step_a[i] · step_w[j])`. The integer sums are exact,
/// so the AVX2 twin and the portable loop give the same bits, and the quantization (here, in Swift,
/// for both) decides the results alone.
extension WhisperKernels {
    /// Quantizes `count` values to int8 as CTranslate2 does: `scale = 127 / max|x|`, `q = x · scale`
    /// rounded to nearest, ties to even, within −127…127 (so the AVX2 product's sign trick never meets
    /// −128); returns the step `1 / scale` (0 for a row of zeros, whose `q` are all 0). Arithmetic
    /// only, so the loops vectorize on baseline x86-64: rounding by adding and subtracting 1.5·2²³,
    /// whose pattern's low bits are then the integer.
    @discardableResult
    static func quantize(_ x: UnsafePointer<Float>, count: Int, into q: UnsafeMutablePointer<Int8>) -> Float {
        var largest: Float = 0
        for k in 0..<count {
            let magnitude = Float(bitPattern: x[k].bitPattern & 0x7fff_ffff)
            largest = magnitude > largest ? magnitude : largest
        }
        guard largest > 0 else {
            q.update(repeating: 0, count: count)
            return 0
        }
        let scale = 127 / largest
        for k in 0..<count {
            let shifted = x[k] * scale + 12_582_912
            q[k] = Int8(truncatingIfNeeded: Int32(bitPattern: shifted.bitPattern &- 0x4B40_0000))
        }
        return 1 / scale
    }

    /// `c[i][j] = Σₖ a[i][k] · w[j][k]` for 1 to 8 rows of `a` (row stride `depth`) against an int8
    /// matrix: each row of `a` quantized (``quantize(_:count:into:)``), the integer products summed
    /// exactly, scaled by the two steps. Where the weights are held as int8, the decoder's steps
    /// (hypotheses of a beam, one row when greedy) read a quarter of the bytes of floats.
    static func multiplyFewRows(
        _ a: UnsafePointer<Float>, rows: Int, byInt8 w: UnsafePointer<Int8>, steps: UnsafePointer<Float>, columns: Int,
        depth: Int, into c: UnsafeMutablePointer<Float>, cStride: Int, twins: Twins = twins
    ) {
        precondition(rows >= 1 && rows <= 8)
        withUnsafeTemporaryAllocation(of: Int8.self, capacity: rows * depth) { quantized in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: rows) { aSteps in
                let (q, s) = (quantized.baseAddress!, aSteps.baseAddress!)
                for row in 0..<rows { s[row] = quantize(a + row * depth, count: depth, into: q + row * depth) }
                if twins != .portable, depth % 32 == 0 {
                    earshot_whisper_few_int8_rows_avx2(q, rows, s, w, steps, columns, depth, c, cStride)
                } else {
                    multiplyFewInt8RowsPortably(
                        q, rows: rows, steps: s, by: w, steps: steps, columns: columns, depth: depth, into: c,
                        cStride: cStride)
                }
            }
        }
    }

    /// The integer sums and their scaling in Swift: the results the AVX2 twin reproduces bit for bit.
    static func multiplyFewInt8RowsPortably(
        _ a: UnsafePointer<Int8>, rows: Int, steps aSteps: UnsafePointer<Float>, by w: UnsafePointer<Int8>,
        steps wSteps: UnsafePointer<Float>, columns: Int, depth: Int, into c: UnsafeMutablePointer<Float>,
        cStride: Int
    ) {
        for j in 0..<columns {
            let weights = w + j * depth
            for row in 0..<rows {
                let x = a + row * depth
                var total: Int32 = 0
                for k in 0..<depth { total &+= Int32(x[k]) &* Int32(weights[k]) }
                c[row * cStride + j] = Float(total) * (aSteps[row] * wSteps[j])
            }
        }
    }

    /// `count` int8 values times `step`, as `Float`s: a row of the token embedding, or a block of rows
    /// for a matrix product (``forEachWidenedBlock(of:columns:depth:values:_:)``).
    static func widenInt8(
        _ q: UnsafePointer<Int8>, count: Int, step: Float, into output: UnsafeMutablePointer<Float>
    ) {
        for k in 0..<count { output[k] = Float(q[k]) * step }
    }
}
