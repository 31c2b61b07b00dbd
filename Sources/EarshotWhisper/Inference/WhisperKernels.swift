import COpenBLAS
import CWhisperKernels

/// The dense work of Whisper's encoder and decoder on contiguous row-major `Float` buffers: matrix
/// products through OpenBLAS (Debian's `libopenblas-dev`), everything else in plain loops over
/// pointers that the optimizer vectorizes (no branches, no calls into the C library per element).
/// Weight matrices come as ``WhisperWeights/Matrix``: floats; the file's float16 values, which the
/// few-row products widen in registers and the matrix products widen into a buffer first (the only
/// allocation here); or int8, which the few-row products multiply in integers (`WhisperKernels+Int8`)
/// and the matrix products widen as they do halves.
enum WhisperKernels {
    /// OpenBLAS runs each call on one thread: Earshot parallelizes across utterances and requests
    /// instead, and the Silero detector of the same process does the same. Process-wide; set once.
    static let singleThreaded: Void = openblas_set_num_threads(1)

    /// Which twins of the portable loops run (`CWhisperKernels`, the same bits in fewer instructions).
    enum Twins: String {
        /// The Swift loops, compiled for baseline x86-64.
        case portable
        /// The few-row and half-float products, the softmax and GELU in AVX2 and F16C.
        case avx2
        /// The same in AVX-512 (F, DQ, BW and VL).
        case avx512
    }

    /// The widest twins this CPU and kernel allow.
    static let widest: Twins = {
        #if arch(x86_64)
            let level = earshot_x86_vector_level()
            return level >= 3 ? .avx512 : level == 2 ? .avx2 : .portable
        #else
            return .portable
        #endif
    }()

    /// The twins that run: the widest, unless `EARSHOT_WHISPER_KERNELS` names a narrower one
    /// (`portable` or `avx2`, to compare them on one machine).
    static let twins: Twins = {
        switch getenv("EARSHOT_WHISPER_KERNELS").flatMap({ Twins(rawValue: String(cString: $0)) }) {
        case .portable: return .portable
        case .avx2 where widest != .portable: return .avx2
        default: return widest
        }
    }()

    /// `c[i][j] = alpha · Σₖ a[i][k] · b[j][k] + beta · c[i][j]`: `a` is `rows × depth` (row stride
    /// `aStride`), `b` is `columns × depth` (row stride `bStride`), `c` is `rows × columns` (row stride
    /// `cStride`). Every product of the network multiplies by a transposed weight or key matrix.
    @inline(__always)
    static func multiplyTransposed(
        _ a: UnsafePointer<Float>, aStride: Int, _ b: UnsafePointer<Float>, bStride: Int,
        into c: UnsafeMutablePointer<Float>, cStride: Int, rows: Int, columns: Int, depth: Int,
        alpha: Float = 1, beta: Float = 0
    ) {
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(columns), Int32(depth), alpha, a,
            Int32(aStride), b, Int32(bStride), beta, c, Int32(cStride))
    }

    /// ``multiplyTransposed(_:aStride:_:bStride:into:cStride:rows:columns:depth:alpha:beta:)`` with a
    /// weight matrix as `b` (rows of `depth` values): halves and int8 rows are widened into a buffer
    /// first, the whole matrix when it holds at most ``widenedLimit`` values (every layer's weights, up
    /// to large-v3's), so the product has the bits of the same product on the widened model, and in
    /// blocks of 4 MB of rows otherwise (the token embedding, when word alignment takes the logits of
    /// every text position: 80 MB widened for tiny.en).
    /// OpenBLAS sums a product in a different order when its size changes (its small-matrix kernels),
    /// so splitting a layer's weights would change the bits.
    static func multiplyTransposed(
        _ a: UnsafePointer<Float>, aStride: Int, by b: WhisperWeights.Matrix, into c: UnsafeMutablePointer<Float>,
        cStride: Int, rows: Int, columns: Int, depth: Int, alpha: Float = 1, beta: Float = 0
    ) {
        if case .float(let b) = b {
            return multiplyTransposed(
                a, aStride: aStride, b, bStride: depth, into: c, cStride: cStride, rows: rows, columns: columns,
                depth: depth, alpha: alpha, beta: beta)
        }
        // Split, the blocks' bits are not the whole product's anyway: 4 MB of floats at a time then.
        let values = columns * depth <= widenedLimit ? widenedLimit : 1 << 20
        forEachWidenedBlock(of: b, columns: columns, depth: depth, values: values) { first, block, widened in
            multiplyTransposed(
                a, aStride: aStride, widened, bStride: depth, into: c + first, cStride: cStride, rows: rows,
                columns: block, depth: depth, alpha: alpha, beta: beta)
        }
    }

    /// Values of a half or int8 matrix widened at once for a matrix product: 32 MB of floats.
    static let widenedLimit = 1 << 23

    /// Calls `body(first, count, widened)` for consecutive blocks of `columns` rows of `depth` values of
    /// `matrix`, as many rows as `values` allow (at least 16), each widened into one reused buffer
    /// (a float matrix is passed as it is, whole).
    static func forEachWidenedBlock(
        of matrix: WhisperWeights.Matrix, columns: Int, depth: Int, values: Int,
        _ body: (Int, Int, UnsafePointer<Float>) -> Void
    ) {
        // Widens `count` rows from row `first` into a buffer.
        let widen: (_ first: Int, _ count: Int, _ into: UnsafeMutablePointer<Float>) -> Void
        switch matrix {
        case .float(let floats): return body(0, columns, floats)
        case .half(let halves):
            widen = { first, count, output in widenHalves(halves + first * depth, count: count * depth, into: output) }
        case .int8(let q, let steps):
            widen = { first, count, output in
                for row in 0..<count {
                    widenInt8(
                        q + (first + row) * depth, count: depth, step: steps[first + row], into: output + row * depth)
                }
            }
        }
        let block = min(max(16, values / max(depth, 1)), columns)
        guard block > 0 else { return }
        let widened = UnsafeMutablePointer<Float>.allocate(capacity: block * depth)
        defer { widened.deallocate() }
        var first = 0
        while first < columns {
            let count = min(block, columns - first)
            widen(first, count, widened)
            body(first, count, widened)
            first += count
        }
    }

    /// `c[i][j] = Σₖ a[i][k] · b[k][j] + beta · c[i][j]` (attention weights times values).
    @inline(__always)
    static func multiply(
        _ a: UnsafePointer<Float>, aStride: Int, _ b: UnsafePointer<Float>, bStride: Int,
        into c: UnsafeMutablePointer<Float>, cStride: Int, rows: Int, columns: Int, depth: Int, beta: Float = 0
    ) {
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(rows), Int32(columns), Int32(depth), 1, a,
            Int32(aStride), b, Int32(bStride), beta, c, Int32(cStride))
    }

    /// `c[i][j] = Σₖ a[i][k] · w[j][k]` for a few rows of `a` (2 to 8: the hypotheses of a beam) against
    /// a tall `w` (the 51 864-token embedding): each row of `w` is read once and dotted with every row
    /// of `a`, where a matrix product would first copy all of `w` into its packed layout and a
    /// matrix–vector product per row would read it once per row. Measured on the beam's logits
    /// (5 × 384 against 51 864 × 384, one core): 17 ms for OpenBLAS's sgemm, 37 ms for five sgemv, ~9 ms
    /// here, about the time to read `w` once.
    static func multiplyFewRows(
        _ a: UnsafePointer<Float>, rows: Int, by w: UnsafePointer<Float>, columns: Int, depth: Int,
        into c: UnsafeMutablePointer<Float>, cStride: Int, aStride: Int? = nil, wStride: Int? = nil, alpha: Float = 1,
        accumulate: Bool = false
    ) {
        precondition(rows >= 1 && rows <= 8 && depth % 4 == 0)
        switch twins {
        case .avx512:
            earshot_whisper_few_rows_avx512(
                a, rows, aStride ?? depth, w, wStride ?? depth, columns, depth, c, cStride, alpha, accumulate ? 1 : 0)
            return
        case .avx2:
            earshot_whisper_few_rows_avx2(
                a, rows, aStride ?? depth, w, wStride ?? depth, columns, depth, c, cStride, alpha, accumulate ? 1 : 0)
            return
        case .portable: break
        }
        multiplyFewRowsPortably(
            a, rows: rows, by: w, columns: columns, depth: depth, into: c, cStride: cStride, aStride: aStride,
            wStride: wStride, alpha: alpha, accumulate: accumulate)
    }

    /// `c[i][j] = Σₖ a[i][k] · w[j][k]` for 1 to 8 rows of `a` (row stride `depth`) against `w` stored
    /// as IEEE half floats: the bits of ``multiplyFewRows(_:rows:by:columns:depth:into:cStride:aStride:wStride:alpha:accumulate:)``
    /// on the widened matrix from half the bytes (the beam's logits are bound by reading the embedding).
    /// Only with twins (widening in the portable loop costs more than the bytes it saves): callers check
    /// ``twins`` first.
    static func multiplyFewHalfRows(
        _ a: UnsafePointer<Float>, rows: Int, by w: UnsafePointer<UInt16>, columns: Int, depth: Int,
        into c: UnsafeMutablePointer<Float>, cStride: Int
    ) {
        precondition(rows >= 1 && rows <= 8 && depth % 4 == 0)
        switch twins {
        case .avx512: earshot_whisper_few_half_rows_avx512(a, rows, w, columns, depth, c, cStride)
        case .avx2: earshot_whisper_few_half_rows_avx2(a, rows, w, columns, depth, c, cStride)
        case .portable: preconditionFailure("no portable few-row product of halves")
        }
    }

    /// `c[i][j] = Σₖ a[i][k] · w[j][k]` for 1 to 8 contiguous rows of `a` against a weight matrix (rows of
    /// `depth`): halves through the twins' in-register widening, or, in the portable loops, widened a
    /// block at a time; either way the bits of ``multiplyFewRows(_:rows:by:columns:depth:into:cStride:aStride:wStride:alpha:accumulate:)``
    /// on the widened matrix. An int8 matrix is multiplied in integers
    /// (``multiplyFewRows(_:rows:byInt8:steps:columns:depth:into:cStride:twins:)``).
    /// (`twins: .portable` takes the portable path on any CPU, for tests.)
    static func multiplyFewRows(
        _ a: UnsafePointer<Float>, rows: Int, by w: WhisperWeights.Matrix, columns: Int, depth: Int,
        into c: UnsafeMutablePointer<Float>, cStride: Int, twins: Twins = twins
    ) {
        switch w {
        case .float(let w):
            multiplyFewRows(a, rows: rows, by: w, columns: columns, depth: depth, into: c, cStride: cStride)
        case .half(let w) where twins != .portable:
            multiplyFewHalfRows(a, rows: rows, by: w, columns: columns, depth: depth, into: c, cStride: cStride)
        case .half:
            precondition(rows >= 1 && rows <= 8 && depth % 4 == 0)
            // The portable loops' sums do not depend on the blocks: 512 kB of floats at a time.
            forEachWidenedBlock(of: w, columns: columns, depth: depth, values: 1 << 17) { first, block, widened in
                multiplyFewRowsPortably(
                    a, rows: rows, by: widened, columns: block, depth: depth, into: c + first, cStride: cStride)
            }
        case .int8(let q, let steps):
            multiplyFewRows(
                a, rows: rows, byInt8: q, steps: steps, columns: columns, depth: depth, into: c, cStride: cStride,
                twins: twins)
        }
    }

    /// ``multiplyFewRows(_:rows:by:columns:depth:into:cStride:aStride:wStride:alpha:accumulate:)`` in
    /// Swift's SIMD4 loops: the arithmetic the AVX2 and AVX-512 twins reproduce bit for bit.
    static func multiplyFewRowsPortably(
        _ a: UnsafePointer<Float>, rows: Int, by w: UnsafePointer<Float>, columns: Int, depth: Int,
        into c: UnsafeMutablePointer<Float>, cStride: Int, aStride: Int? = nil, wStride: Int? = nil, alpha: Float = 1,
        accumulate: Bool = false
    ) {
        precondition(rows <= 8 && depth % 4 == 0)
        let vectors = depth / 4
        let x = UnsafeRawPointer(a)
        let stride = 4 * (aStride ?? depth)
        let wStride = wStride ?? depth
        if rows == 5 {
            // The beam's (and the samples') count, without a test per row in the inner loop.
            for j in 0..<columns {
                let row = UnsafeRawPointer(w + j * wStride)
                var (s0, s1, s2, s3, s4) = (
                    SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>()
                )
                for k in 0..<vectors {
                    let offset = 16 * k
                    let e = row.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                    s0 += e * x.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                    s1 += e * x.loadUnaligned(fromByteOffset: stride + offset, as: SIMD4<Float>.self)
                    s2 += e * x.loadUnaligned(fromByteOffset: 2 * stride + offset, as: SIMD4<Float>.self)
                    s3 += e * x.loadUnaligned(fromByteOffset: 3 * stride + offset, as: SIMD4<Float>.self)
                    s4 += e * x.loadUnaligned(fromByteOffset: 4 * stride + offset, as: SIMD4<Float>.self)
                }
                if accumulate {
                    c[j] += alpha * s0.sum()
                    c[cStride + j] += alpha * s1.sum()
                    c[2 * cStride + j] += alpha * s2.sum()
                    c[3 * cStride + j] += alpha * s3.sum()
                    c[4 * cStride + j] += alpha * s4.sum()
                } else {
                    c[j] = alpha * s0.sum()
                    c[cStride + j] = alpha * s1.sum()
                    c[2 * cStride + j] = alpha * s2.sum()
                    c[3 * cStride + j] = alpha * s3.sum()
                    c[4 * cStride + j] = alpha * s4.sum()
                }
            }
            return
        }
        for j in 0..<columns {
            let row = UnsafeRawPointer(w + j * wStride)
            var sums = (
                SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>(),
                SIMD4<Float>(), SIMD4<Float>()
            )
            for k in 0..<vectors {
                let e = row.loadUnaligned(fromByteOffset: 16 * k, as: SIMD4<Float>.self)
                let offset = 16 * k
                sums.0 += e * x.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                if rows > 1 { sums.1 += e * x.loadUnaligned(fromByteOffset: stride + offset, as: SIMD4<Float>.self) }
                if rows > 2 {
                    sums.2 += e * x.loadUnaligned(fromByteOffset: 2 * stride + offset, as: SIMD4<Float>.self)
                }
                if rows > 3 {
                    sums.3 += e * x.loadUnaligned(fromByteOffset: 3 * stride + offset, as: SIMD4<Float>.self)
                }
                if rows > 4 {
                    sums.4 += e * x.loadUnaligned(fromByteOffset: 4 * stride + offset, as: SIMD4<Float>.self)
                }
                if rows > 5 {
                    sums.5 += e * x.loadUnaligned(fromByteOffset: 5 * stride + offset, as: SIMD4<Float>.self)
                }
                if rows > 6 {
                    sums.6 += e * x.loadUnaligned(fromByteOffset: 6 * stride + offset, as: SIMD4<Float>.self)
                }
                if rows > 7 {
                    sums.7 += e * x.loadUnaligned(fromByteOffset: 7 * stride + offset, as: SIMD4<Float>.self)
                }
            }
            func store(_ i: Int, _ total: Float) {
                c[i * cStride + j] = accumulate ? alpha * total + c[i * cStride + j] : alpha * total
            }
            store(0, sums.0.sum())
            if rows > 1 { store(1, sums.1.sum()) }
            if rows > 2 { store(2, sums.2.sum()) }
            if rows > 3 { store(3, sums.3.sum()) }
            if rows > 4 { store(4, sums.4.sum()) }
            if rows > 5 { store(5, sums.5.sum()) }
            if rows > 6 { store(6, sums.6.sum()) }
            if rows > 7 { store(7, sums.7.sum()) }
        }
    }

    /// `c[j] = Σₖ a[k] · w[j][k]` for one row `a` against a tall `w` stored as IEEE half floats (the
    /// token embedding as the model file holds it): half the bytes of floats to read, where a greedy
    /// step's logits are bound by reading. Each half is widened exactly in the loop, by arithmetic
    /// that vectorizes (`(h & 0x7fff) << 13` is the magnitude's bits at 2⁻¹¹² of its value; sign
    /// restored), valid for every finite half, subnormals included.
    static func multiplyHalfRows(
        _ a: UnsafePointer<Float>, by w: UnsafePointer<UInt16>, columns: Int, depth: Int,
        into c: UnsafeMutablePointer<Float>
    ) {
        precondition(depth % 8 == 0)
        switch twins {
        case .avx512: return earshot_whisper_half_rows_avx512(a, w, columns, depth, c)
        case .avx2: return earshot_whisper_half_rows_avx2(a, w, columns, depth, c)
        case .portable: break
        }
        multiplyHalfRowsPortably(a, by: w, columns: columns, depth: depth, into: c)
    }

    /// ``multiplyHalfRows(_:by:columns:depth:into:)`` in Swift's SIMD4 loops: the arithmetic the AVX2 and
    /// AVX-512 twins reproduce bit for bit.
    static func multiplyHalfRowsPortably(
        _ a: UnsafePointer<Float>, by w: UnsafePointer<UInt16>, columns: Int, depth: Int,
        into c: UnsafeMutablePointer<Float>
    ) {
        precondition(depth % 8 == 0)
        let pairs = depth / 8
        let x = UnsafeRawPointer(a)
        @inline(__always) func widen(_ halves: SIMD4<UInt16>) -> SIMD4<Float> {
            let half = SIMD4<UInt32>(truncatingIfNeeded: halves)
            let magnitude = unsafeBitCast((half & 0x7fff) &<< 13, to: SIMD4<Float>.self) * 0x1p112
            return unsafeBitCast(
                unsafeBitCast(magnitude, to: SIMD4<UInt32>.self) | ((half & 0x8000) &<< 16), to: SIMD4<Float>.self)
        }
        for j in 0..<columns {
            let row = UnsafeRawPointer(w + j * depth)
            // Two sums, so consecutive additions do not wait for each other.
            var (even, odd) = (SIMD4<Float>(), SIMD4<Float>())
            for k in 0..<pairs {
                even +=
                    widen(row.loadUnaligned(fromByteOffset: 16 * k, as: SIMD4<UInt16>.self))
                    * x.loadUnaligned(fromByteOffset: 32 * k, as: SIMD4<Float>.self)
                odd +=
                    widen(row.loadUnaligned(fromByteOffset: 16 * k + 8, as: SIMD4<UInt16>.self))
                    * x.loadUnaligned(fromByteOffset: 32 * k + 16, as: SIMD4<Float>.self)
            }
            c[j] = (even + odd).sum()
        }
    }

    /// `y = x·Wᵀ + b` for `rows` rows of `x` (`rows × inputs`, contiguous) into `y` (`rows × outputs`).
    static func linear(
        _ x: UnsafePointer<Float>, rows: Int, _ layer: WhisperWeights.Linear, into y: UnsafeMutablePointer<Float>
    ) {
        guard rows > 0 else { return }
        if case .int8 = layer.weight, rows <= 8 {
            multiplyFewRows(
                x, rows: rows, by: layer.weight, columns: layer.outputs, depth: layer.inputs, into: y,
                cStride: layer.outputs)
            for row in 0..<rows { add(layer.bias, to: y + row * layer.outputs, count: layer.outputs) }
            return
        }
        if case .half(let w) = layer.weight, rows <= 8, layer.inputs % 8 == 0 {
            // The products' sums first, then the bias: the same bits as adding them onto the bias.
            if rows == 1 {
                multiplyHalfRows(x, by: w, columns: layer.outputs, depth: layer.inputs, into: y)
            } else {
                multiplyFewRows(
                    x, rows: rows, by: layer.weight, columns: layer.outputs, depth: layer.inputs, into: y,
                    cStride: layer.outputs)
            }
            for row in 0..<rows { add(layer.bias, to: y + row * layer.outputs, count: layer.outputs) }
            return
        }
        for row in 0..<rows { (y + row * layer.outputs).update(from: layer.bias, count: layer.outputs) }
        if case .float(let w) = layer.weight, rows <= 8, layer.inputs % 4 == 0 {
            if rows == 1 {
                // One row (a decoding step): a matrix–vector product streams the weights once, where a
                // matrix product would first copy them into its packed layout.
                cblas_sgemv(
                    CblasRowMajor, CblasNoTrans, Int32(layer.outputs), Int32(layer.inputs), 1, w, Int32(layer.inputs),
                    x, 1, 1, y, 1)
            } else {
                multiplyFewRows(
                    x, rows: rows, by: w, columns: layer.outputs, depth: layer.inputs, into: y, cStride: layer.outputs,
                    accumulate: true)
            }
            return
        }
        multiplyTransposed(
            x, aStride: layer.inputs, by: layer.weight, into: y, cStride: layer.outputs, rows: rows,
            columns: layer.outputs, depth: layer.inputs, beta: 1)
    }

    /// Layer normalization of each row (ε = 1e-5, as Whisper's `LayerNorm`): `y = γ·(x − mean)/σ + β`.
    static func layerNorm(
        _ x: UnsafePointer<Float>, rows: Int, width: Int, _ norm: WhisperWeights.Norm,
        into y: UnsafeMutablePointer<Float>
    ) {
        for row in 0..<rows {
            let input = x + row * width
            let output = y + row * width
            let mean = Self.sum(input, count: width) / Float(width)
            var squares: Float = 0
            for i in 0..<width {
                let centered = input[i] - mean
                squares += centered * centered
            }
            let scale = 1 / (squares / Float(width) + 1e-5).squareRoot()
            for i in 0..<width { output[i] = (input[i] - mean) * scale * norm.gamma[i] + norm.beta[i] }
        }
    }

    /// The sum of `count` values, four lanes at a time.
    @inline(__always)
    static func sum(_ values: UnsafePointer<Float>, count: Int) -> Float {
        var lanes: (Float, Float, Float, Float) = (0, 0, 0, 0)
        var i = 0
        while i + 4 <= count {
            lanes = (lanes.0 + values[i], lanes.1 + values[i + 1], lanes.2 + values[i + 2], lanes.3 + values[i + 3])
            i += 4
        }
        var result = (lanes.0 + lanes.1) + (lanes.2 + lanes.3)
        while i < count {
            result += values[i]
            i += 1
        }
        return result
    }

    /// `x += y`, element-wise.
    static func add(_ y: UnsafePointer<Float>, to x: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { x[i] += y[i] }
    }

    /// GELU in place, the exact form `x·Φ(x) = ½x(1 + erf(x/√2))` that Whisper uses.
    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int) {
        switch twins {
        case .avx512: earshot_whisper_gelu_avx512(x, count)
        case .avx2: earshot_whisper_gelu_avx2(x, count)
        case .portable: geluPortably(x, count: count)
        }
    }

    /// ``gelu(_:count:)`` in Swift: the arithmetic the AVX2 and AVX-512 twins reproduce bit for bit.
    static func geluPortably(_ x: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count {
            let value = x[i]
            x[i] = 0.5 * value * (1 + erf(value * 0.70710678118654752))
        }
    }

    /// Softmax of each of `rows` rows of `width` values (row stride `stride`), in place.
    static func softmax(_ x: UnsafeMutablePointer<Float>, rows: Int, width: Int, stride: Int) {
        switch twins {
        case .avx512: earshot_whisper_softmax_avx512(x, rows, width, stride)
        case .avx2: earshot_whisper_softmax_avx2(x, rows, width, stride)
        case .portable: softmaxPortably(x, rows: rows, width: width, stride: stride)
        }
    }

    /// ``softmax(_:rows:width:stride:)`` in Swift: the arithmetic the AVX2 and AVX-512 twins reproduce bit
    /// for bit.
    static func softmaxPortably(_ x: UnsafeMutablePointer<Float>, rows: Int, width: Int, stride: Int) {
        for row in 0..<rows {
            let values = x + row * stride
            let maximum = self.maximum(values, count: width)
            for i in 0..<width { values[i] = exp(values[i] - maximum) }
            let sum = Self.sum(values, count: width)
            let inverse = 1 / sum
            for i in 0..<width { values[i] *= inverse }
        }
    }

    /// The largest of `count` values (−∞ for none), four lanes at a time.
    @inline(__always)
    static func maximum(_ values: UnsafePointer<Float>, count: Int) -> Float {
        var lanes: (Float, Float, Float, Float) = (-.infinity, -.infinity, -.infinity, -.infinity)
        var i = 0
        while i + 4 <= count {
            lanes = (
                values[i] > lanes.0 ? values[i] : lanes.0, values[i + 1] > lanes.1 ? values[i + 1] : lanes.1,
                values[i + 2] > lanes.2 ? values[i + 2] : lanes.2, values[i + 3] > lanes.3 ? values[i + 3] : lanes.3
            )
            i += 4
        }
        var result = max(max(lanes.0, lanes.1), max(lanes.2, lanes.3))
        while i < count {
            result = max(result, values[i])
            i += 1
        }
        return result
    }

    /// `eˣ` to within 2 ulp for x ≥ −87.3 (0 below, as softmax's −∞ needs), from arithmetic alone so
    /// loops vectorize: `x = n·ln 2 + r` with `|r| ≤ ln 2 / 2` (Cody–Waite: ln 2 split in two parts),
    /// `eʳ` by the degree-7 polynomial of Cephes' `expf`, and `2ⁿ` built in the exponent bits.
    @inline(__always)
    static func exp(_ x: Float) -> Float {
        let clamped = x > 88.72283 ? 88.72283 : (x < -87.33654 ? -87.33654 : x)
        // Round to nearest by adding 1.5·2²³: n is then the low bits of the sum's pattern.
        let shifted = clamped * 1.44269504088896341 + 12_582_912
        let n = shifted - 12_582_912
        let r = clamped - n * 0.693359375 + n * 2.12194440e-4
        var p: Float = 1.9875691500e-4
        p = p * r + 1.3981999507e-3
        p = p * r + 8.3334519073e-3
        p = p * r + 4.1665795894e-2
        p = p * r + 1.6666665459e-1
        p = p * r + 5.0000001201e-1
        p = p * r * r + r + 1
        // 2ⁿ: n + 127 in the exponent field (0x4B40_0000 is 1.5·2²³'s pattern).
        let scale = Float(bitPattern: (shifted.bitPattern &- 0x4B40_0000 &+ 127) &<< 23)
        return x < -87.33654 ? 0 : p * scale
    }

    /// erf(x) to within 1.5·10⁻⁷ absolute, by Abramowitz & Stegun's 7.1.26 (Hastings' rational
    /// approximation), odd-extended to negative x.
    @inline(__always)
    static func erf(_ x: Float) -> Float {
        let a = Float(bitPattern: x.bitPattern & 0x7fff_ffff)
        let t = 1 / (1 + 0.3275911 * a)
        var p: Float = 1.061405429
        p = p * t - 1.453152027
        p = p * t + 1.421413741
        p = p * t - 0.284496736
        p = p * t + 0.254829592
        let magnitude = 1 - p * t * exp(-a * a)
        return Float(bitPattern: magnitude.bitPattern | (x.bitPattern & 0x8000_0000))
    }

    /// IEEE halves (little-endian) widened exactly by arithmetic the optimizer vectorizes on baseline
    /// x86-64, where `Float(Float16)` is a library call per value (a tenth of a second per model load):
    /// the magnitude's bits shifted into a float's place are the value times 2⁻¹¹², so one
    /// multiplication rescales every finite half, subnormals included; infinities and NaNs keep their
    /// all-ones exponent, so the finiteness check still sees them.
    static func widenHalves(_ source: UnsafeRawPointer, count: Int, into output: UnsafeMutablePointer<Float>) {
        let halves = source.assumingMemoryBound(to: UInt16.self)
        let bits = UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt32.self)
        for i in 0..<count {
            let half = UInt32(UInt16(littleEndian: halves[i]))
            let shifted = (half & 0x7fff) &<< 13
            let scaled = (Float(bitPattern: shifted) * 0x1p112).bitPattern
            let magnitude = half & 0x7c00 == 0x7c00 ? shifted | 0x7f80_0000 : scaled
            bits[i] = magnitude | (half & 0x8000) &<< 16
        }
    }
}
