import COpenBLAS

/// The dense work of ``SileroDetector``: every layer of the network is a small matrix times a few
/// column vectors (the STFT's 4 windows, a convolution's unfolded inputs, the LSTM's `[x; h]`), run by
/// OpenBLAS (Debian's `libopenblas-dev`) on contiguous `Float` buffers; nothing here allocates.
///
/// Measured on the long corpus (BENCHMARKS.md): one `sgemv` per column beat both our own
/// `SIMD8<Float>` loops (~15 % slower) and one `sgemm` per layer (~30 % slower: it packs the weights on
/// every call, while a matrix–vector product streams them straight from cache). And unlike Swift SIMD
/// loops, which Swift compiles without optimization in a debug build — also in the debug build of any
/// app that depends on Earshot — where they ran at about real time, OpenBLAS runs at its own speed
/// whatever the caller's build.
enum SileroKernels {
    /// OpenBLAS runs each call on one thread: the matrices are small, and Earshot runs streams side
    /// by side instead. Process-wide; set once, before the first multiply.
    static let singleThreaded: Void = openblas_set_num_threads(1)

    /// `output[m·count + t] = bias[m] + Σₖ matrix[m][k] · columns[t·stride + k]` for `t < count`,
    /// ReLU applied when `relu`. Columns may overlap (the STFT's windows do).
    static func multiply(
        _ matrix: SileroModel.Matrix, columns: UnsafePointer<Float>, stride: Int, count: Int,
        into output: UnsafeMutablePointer<Float>, relu: Bool
    ) {
        let (rows, length) = (Int32(matrix.rows), Int32(matrix.columns))
        var beta: Float = 0
        if let bias = matrix.bias {
            for row in 0..<matrix.rows { (output + row * count).update(repeating: bias[row], count: count) }
            beta = 1
        }
        for t in 0..<count {
            cblas_sgemv(
                CblasRowMajor, CblasNoTrans, rows, length, 1, matrix.weights, length, columns + t * stride, 1, beta,
                output + t, Int32(count))
        }
        if relu {
            for index in 0..<(matrix.rows * count) where output[index] < 0 { output[index] = 0 }
        }
    }

    /// Unfolds a `[channels][inputLength]` feature map for a kernel-3, padding-1 convolution with
    /// `stride`: column `t` is `[c·3 + k] = input[c][t·stride + k − 1]` (0 outside the map).
    static func unfold(
        _ input: UnsafePointer<Float>, channels: Int, inputLength: Int, stride: Int, outputLength: Int,
        into columns: UnsafeMutablePointer<Float>
    ) {
        let columnLength = channels * 3
        for t in 0..<outputLength {
            let column = columns + t * columnLength
            for k in 0..<3 {
                let position = t * stride + k - 1
                let inside = position >= 0 && position < inputLength
                for channel in 0..<channels {
                    column[channel * 3 + k] = inside ? input[channel * inputLength + position] : 0
                }
            }
        }
    }
}
