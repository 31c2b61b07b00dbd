/// The dense loops of ``SileroDetector``: every layer of the network is a small matrix times a few
/// column vectors (the STFT's 4 windows, a convolution's unfolded inputs, the LSTM's `[x; h]`).
/// Plain Swift SIMD on contiguous `Float` buffers; nothing here allocates.
enum SileroKernels {
    /// `output[m·count + t] = bias[m] + Σₖ matrix[m][k] · columns[t·stride + k]` for `t < count`
    /// (`count` ≤ 4), ReLU applied when `relu`.
    @inline(__always)
    static func multiply(
        _ matrix: SileroModel.Matrix, columns: UnsafePointer<Float>, stride: Int, count: Int,
        into output: UnsafeMutablePointer<Float>, relu: Bool
    ) {
        let length = matrix.columns
        let vectorLength = length & ~7
        for row in 0..<matrix.rows {
            let weights = matrix.weights + row * length
            let bias = matrix.bias?[row] ?? 0
            if count == 4 {
                let sums = dot4(weights, columns, stride: stride, vectorLength: vectorLength, length: length)
                for column in 0..<4 { output[row * 4 + column] = activate(bias + sums[column], relu) }
            } else {
                for column in 0..<count {
                    let sum = dot(weights, columns + column * stride, vectorLength: vectorLength, length: length)
                    output[row * count + column] = activate(bias + sum, relu)
                }
            }
        }
    }

    @inline(__always)
    static func activate(_ value: Float, _ relu: Bool) -> Float { relu ? max(value, 0) : value }

    /// One row against four columns: each weight vector is loaded once for the four.
    @inline(__always)
    static func dot4(
        _ weights: UnsafePointer<Float>, _ columns: UnsafePointer<Float>, stride: Int, vectorLength: Int, length: Int
    ) -> SIMD4<Float> {
        let w = UnsafeRawPointer(weights)
        let c0 = UnsafeRawPointer(columns)
        let c1 = UnsafeRawPointer(columns + stride)
        let c2 = UnsafeRawPointer(columns + 2 * stride)
        let c3 = UnsafeRawPointer(columns + 3 * stride)
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
        var offset = 0
        while offset < vectorLength * 4 {
            let v = w.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            a0 += v * c0.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            a1 += v * c1.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            a2 += v * c2.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            a3 += v * c3.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            offset += 32
        }
        var sums = SIMD4<Float>(a0.sum(), a1.sum(), a2.sum(), a3.sum())
        for k in vectorLength..<length {
            let weight = weights[k]
            sums += weight * SIMD4(columns[k], columns[stride + k], columns[2 * stride + k], columns[3 * stride + k])
        }
        return sums
    }

    /// One row against one column, with two accumulators to hide the add latency.
    @inline(__always)
    static func dot(_ weights: UnsafePointer<Float>, _ column: UnsafePointer<Float>, vectorLength: Int, length: Int)
        -> Float
    {
        let w = UnsafeRawPointer(weights)
        let c = UnsafeRawPointer(column)
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
        var offset = 0
        let pairs = (vectorLength & ~15) * 4
        while offset < pairs {
            a0 += w.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                * c.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            a1 += w.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
                * c.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
            offset += 64
        }
        while offset < vectorLength * 4 {
            a0 += w.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                * c.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            offset += 32
        }
        var sum = (a0 + a1).sum()
        for k in vectorLength..<length { sum += weights[k] * column[k] }
        return sum
    }

    /// Unfolds a `[channels][inputLength]` feature map for a kernel-3, padding-1 convolution with
    /// `stride`: column `t` is `[c·3 + k] = input[c][t·stride + k − 1]` (0 outside the map).
    @inline(__always)
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
