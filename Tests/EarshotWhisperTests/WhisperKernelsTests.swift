import CWhisperKernels
import EarshotTestTraits
import Testing

@testable import EarshotWhisper

/// The AVX2 and AVX-512 twins of the few-row and half-float products, the softmax and GELU give the
/// portable Swift loops' results to the bit — every row count of a beam, column counts that leave a remainder, strides, alpha
/// and accumulation, halves across the whole range (subnormals included) — so the parity test's exact
/// tokens hold whichever runs. Each twin is tested on a CPU that has it: an AVX-512 machine tests both.
@Suite(.computing)
struct WhisperKernelsTests {
    static let avx2 = WhisperKernels.widest != .portable
    static let avx512 = WhisperKernels.widest == .avx512

    /// A twin's few-row product, by name.
    typealias FewRows = (
        UnsafePointer<Float>, Int, Int, UnsafePointer<Float>, Int, Int, Int, UnsafeMutablePointer<Float>, Int, Float,
        Int32
    ) -> Void
    typealias FewHalfRows = (
        UnsafePointer<Float>, Int, UnsafePointer<UInt16>, Int, Int, UnsafeMutablePointer<Float>, Int
    ) -> Void
    typealias HalfRows = (UnsafePointer<Float>, UnsafePointer<UInt16>, Int, Int, UnsafeMutablePointer<Float>) -> Void

    static var fewRowsTwins: [(String, FewRows)] {
        (avx2 ? [("avx2", earshot_whisper_few_rows_avx2)] : [])
            + (avx512 ? [("avx512", earshot_whisper_few_rows_avx512)] : [])
    }
    static var fewHalfRowsTwins: [(String, FewHalfRows)] {
        (avx2 ? [("avx2", earshot_whisper_few_half_rows_avx2)] : [])
            + (avx512 ? [("avx512", earshot_whisper_few_half_rows_avx512)] : [])
    }
    typealias Softmax = (UnsafeMutablePointer<Float>, Int, Int, Int) -> Void
    typealias GELU = (UnsafeMutablePointer<Float>, Int) -> Void
    static var softmaxTwins: [(String, Softmax)] {
        (avx2 ? [("avx2", earshot_whisper_softmax_avx2)] : [])
            + (avx512 ? [("avx512", earshot_whisper_softmax_avx512)] : [])
    }
    static var geluTwins: [(String, GELU)] {
        (avx2 ? [("avx2", earshot_whisper_gelu_avx2)] : []) + (avx512 ? [("avx512", earshot_whisper_gelu_avx512)] : [])
    }
    static var halfRowsTwins: [(String, HalfRows)] {
        (avx2 ? [("avx2", earshot_whisper_half_rows_avx2)] : [])
            + (avx512 ? [("avx512", earshot_whisper_half_rows_avx512)] : [])
    }

    /// Values over several orders of magnitude and both signs, from a fixed seed.
    static func values(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let unit = Float(state >> 40) / Float(1 << 24) - 0.5
            return unit * Float(1 << Int((state >> 20) % 12)) / 64
        }
    }

    @Test(.enabled(if: avx2, "this CPU has no AVX2: only the portable loops run"), arguments: 1...8)
    func fewRowsGiveThePortableBits(rows: Int) {
        let depth = 388, columns = 1_031, aStride = 392, wStride = 396, cStride = 1_040
        let a = Self.values(rows * aStride, seed: UInt64(rows))
        let w = Self.values(columns * wStride, seed: 99)
        for (alpha, accumulate) in [(Float(1), false), (Float(0.125), true)] {
            let start = Self.values(rows * cStride, seed: 7)
            var portable = start
            WhisperKernels.multiplyFewRowsPortably(
                a, rows: rows, by: w, columns: columns, depth: depth, into: &portable, cStride: cStride,
                aStride: aStride, wStride: wStride, alpha: alpha, accumulate: accumulate)
            for (name, twin) in Self.fewRowsTwins {
                var fast = start
                twin(a, rows, aStride, w, wStride, columns, depth, &fast, cStride, alpha, accumulate ? 1 : 0)
                #expect(fast.map(\.bitPattern) == portable.map(\.bitPattern), "\(name), rows \(rows), alpha \(alpha)")
            }
        }
    }

    @Test(.enabled(if: avx2, "this CPU has no AVX2: only the portable loops run"), arguments: [2_051, 2_048])
    func halfRowsGiveThePortableBits(columns: Int) {
        let depth = 384
        let a = Self.values(depth, seed: 3)
        // Every finite half but the largest exponents (whose products would overflow), in turn.
        let halves = (0..<(columns * depth)).map { index -> UInt16 in
            let bits = UInt16(truncatingIfNeeded: index &* 40_503)
            return bits & 0x7c00 >= 0x7000 ? bits & 0x83ff : bits
        }
        var portable = [Float](repeating: 0, count: columns)
        WhisperKernels.multiplyHalfRowsPortably(a, by: halves, columns: columns, depth: depth, into: &portable)
        for (name, twin) in Self.halfRowsTwins {
            var fast = [Float](repeating: 0, count: columns)
            twin(a, halves, columns, depth, &fast)
            #expect(fast.map(\.bitPattern) == portable.map(\.bitPattern), "\(name), \(columns) columns")
        }
    }

    /// The beam's logits read the file's halves: the same bits as the float product on the widened matrix.
    @Test(.enabled(if: avx2, "this CPU has no AVX2: only the portable loops run"), arguments: [1, 2, 5, 7, 8])
    func fewHalfRowsGiveTheFloatProductsBits(rows: Int) {
        let depth = 384, columns = 1_031
        let a = Self.values(rows * depth, seed: UInt64(rows) + 20)
        let halves = Self.values(columns * depth, seed: 5).map { Float16($0).bitPattern }
        let widened = halves.map { Float(Float16(bitPattern: $0)) }
        var portable = [Float](repeating: 0, count: rows * columns)
        WhisperKernels.multiplyFewRowsPortably(
            a, rows: rows, by: widened, columns: columns, depth: depth, into: &portable, cStride: columns)
        for (name, twin) in Self.fewHalfRowsTwins {
            var fast = [Float](repeating: 0, count: rows * columns)
            twin(a, rows, halves, columns, depth, &fast, columns)
            #expect(fast.map(\.bitPattern) == portable.map(\.bitPattern), "\(name), rows \(rows)")
        }
    }

    /// Attention's softmax: rows of scores over a wide range (−∞ where a position is masked), widths that
    /// leave remainders after sixteen and after four.
    @Test(
        .enabled(if: avx2, "this CPU has no AVX2: only the portable loops run"), arguments: [1_500, 1_499, 7, 3])
    func softmaxGivesThePortableBits(width: Int) {
        let rows = 9, stride = width + 5
        var scores = Self.values(rows * stride, seed: UInt64(width)).map { $0 * 40 }
        scores[3] = -.infinity
        var portable = scores
        WhisperKernels.softmaxPortably(&portable, rows: rows, width: width, stride: stride)
        for (name, twin) in Self.softmaxTwins {
            var fast = scores
            twin(&fast, rows, width, stride)
            #expect(fast.map(\.bitPattern) == portable.map(\.bitPattern), "\(name), width \(width)")
        }
    }

    /// GELU over −12 … 12, the range of the encoder's and decoder's activations and beyond.
    @Test(.enabled(if: avx2, "this CPU has no AVX2: only the portable loops run"))
    func geluGivesThePortableBits() {
        let values = (0..<10_007).map { Float($0 - 5_003) / 417 }
        var portable = values
        WhisperKernels.geluPortably(&portable, count: portable.count)
        for (name, twin) in Self.geluTwins {
            var fast = values
            twin(&fast, fast.count)
            #expect(fast.map(\.bitPattern) == portable.map(\.bitPattern), "\(name)")
        }
    }
}
