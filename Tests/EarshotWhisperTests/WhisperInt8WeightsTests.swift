import EarshotCore
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotWhisper

/// Weight matrices held as int8 with one step per row (issue 49, item 5): CTranslate2's quantization,
/// the integer product (AVX2 twin and portable loop to the bit), int8 files kept as stored, and any
/// model quantized on load with `int8`.
@Suite(.computing)
struct WhisperInt8WeightsTests {
    /// CTranslate2's rule, written plainly: `scale = 127 / max|x|`, `q = round(x · scale)`, ties to even.
    static func reference(_ x: [Float]) -> (q: [Int8], step: Float) {
        let largest = x.map(abs).max() ?? 0
        guard largest > 0 else { return (x.map { _ in 0 }, 0) }
        let scale = 127 / largest
        return (x.map { Int8(($0 * scale).rounded(.toNearestOrEven)) }, 1 / scale)
    }

    @Test func quantizingARowIsCTranslate2sRoundingWithinPlusOrMinus127() {
        let rows: [[Float]] = [
            WhisperKernelsTests.values(1_000, seed: 3), [0, 0, 0, 0], [-2, 1, 0.5, 0.25, -0.0078740157],
            // Ties: 127 · 0.5 / 127 lands on .5 exactly.
            [1, 0.5 / 127, 1.5 / 127, 2.5 / 127, -0.5 / 127],
        ]
        for row in rows {
            var q = [Int8](repeating: 99, count: row.count)
            let step = WhisperKernels.quantize(row, count: row.count, into: &q)
            let expected = Self.reference(row)
            #expect(q == expected.q, "\(row.prefix(5))")
            #expect(step == expected.step)
            #expect(q.allSatisfy { $0 >= -127 })
        }
    }

    /// An int8 matrix and activations of a few rows: the AVX2 twin's bits are the portable loop's, and
    /// both are within quantization's error of the float product on the widened matrix.
    @Test(arguments: 1...8)
    func theFewRowInt8ProductIsTheSameWhicheverLoopsRunAndNearTheFloatOne(rows: Int) {
        let (depth, columns) = (384, 777)
        let weights = WhisperKernelsTests.values(columns * depth, seed: 41)
        var q = [Int8](repeating: 0, count: columns * depth)
        var steps = [Float](repeating: 0, count: columns)
        for j in 0..<columns {
            weights.withUnsafeBufferPointer { w in
                q.withUnsafeMutableBufferPointer {
                    steps[j] = WhisperKernels.quantize(
                        w.baseAddress! + j * depth, count: depth, into: $0.baseAddress! + j * depth)
                }
            }
        }
        let a = WhisperKernelsTests.values(rows * depth, seed: 42)
        var portable = [Float](repeating: .nan, count: rows * columns)
        var fast = [Float](repeating: .nan, count: rows * columns)
        var float = [Float](repeating: .nan, count: rows * columns)
        q.withUnsafeBufferPointer { q in
            steps.withUnsafeBufferPointer { s in
                let matrix = WhisperWeights.Matrix.int8(q.baseAddress!, steps: s.baseAddress!)
                WhisperKernels.multiplyFewRows(
                    a, rows: rows, by: matrix, columns: columns, depth: depth, into: &portable, cStride: columns,
                    twins: .portable)
                WhisperKernels.multiplyFewRows(
                    a, rows: rows, by: matrix, columns: columns, depth: depth, into: &fast, cStride: columns)
            }
        }
        WhisperKernels.multiplyFewRowsPortably(
            a, rows: rows, by: weights, columns: columns, depth: depth, into: &float, cStride: columns)
        #expect(fast.map(\.bitPattern) == portable.map(\.bitPattern))
        // Quantization's error against the size of the products: under 2 % of the outputs' RMS.
        let error = zip(portable, float).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
        let size = float.map { $0 * $0 }.reduce(0, +)
        #expect((error / size).squareRoot() < 0.02, "relative RMS error \((error / size).squareRoot())")
    }

    /// A depth the twin does not take (not a multiple of 32, as the first convolution's 3 × 80) runs the
    /// portable loop; more rows than a beam widen the int8 rows for OpenBLAS, the bits of the product
    /// on the widened matrix.
    @Test func otherShapesTakeThePortableLoopOrTheWidenedMatrix() {
        let (inputs, outputs) = (240, 301)
        let q = (0..<(inputs * outputs)).map { Int8(truncatingIfNeeded: ($0 * 37) % 255 - 127) }
        let steps = (0..<outputs).map { Float($0 + 1) / 4096 }
        let bias = WhisperKernelsTests.values(outputs, seed: 51)
        let widened = (0..<(inputs * outputs)).map { Float(q[$0]) * steps[$0 / inputs] }
        for rows in [3, 12] {
            let x = WhisperKernelsTests.values(rows * inputs, seed: 52)
            var onInt8 = [Float](repeating: .nan, count: rows * outputs)
            var expected = [Float](repeating: .nan, count: rows * outputs)
            q.withUnsafeBufferPointer { q in
                steps.withUnsafeBufferPointer { s in
                    bias.withUnsafeBufferPointer { b in
                        let layer = WhisperWeights.Linear(
                            weight: .int8(q.baseAddress!, steps: s.baseAddress!), bias: b.baseAddress!,
                            outputs: outputs, inputs: inputs)
                        WhisperKernels.linear(x, rows: rows, layer, into: &onInt8)
                        if rows > 8 {
                            widened.withUnsafeBufferPointer { f in
                                let float = WhisperWeights.Linear(
                                    weight: .float(f.baseAddress!), bias: b.baseAddress!, outputs: outputs,
                                    inputs: inputs)
                                WhisperKernels.linear(x, rows: rows, float, into: &expected)
                            }
                        }
                    }
                }
            }
            if rows <= 8 {
                // Each row quantized by CTranslate2's rule, the integer sums, the two steps.
                for row in 0..<rows {
                    let (qa, step) = Self.reference(Array(x[(row * inputs)..<((row + 1) * inputs)]))
                    for j in 0..<outputs {
                        let total = (0..<inputs).reduce(Int32(0)) { $0 + Int32(qa[$1]) * Int32(q[j * inputs + $1]) }
                        expected[row * outputs + j] = Float(total) * (step * steps[j]) + bias[j]
                    }
                }
            }
            #expect(onInt8.map(\.bitPattern) == expected.map(\.bitPattern), "\(rows) rows")
        }
    }

    /// CTranslate2's int8 file (int8 matrices with a float32 `…_scale` per row): `stored` keeps the
    /// matrices as int8 with the scales' inverses as steps; `float32` widens them to the same values;
    /// `int8` on a float16 file quantizes every two-dimensional matrix and leaves the convolutions as
    /// stored.
    @Test func int8FilesStayInt8AndOtherFilesAreQuantizedOnRequest() throws {
        let bytes = TinyModelFile.bytes(type: .int8)
        let (stored, widened) = try bytes.withUnsafeBytes { raw in
            (
                try WhisperModel.loadTensors(
                    raw, path: "m", vocabularySize: TinyModelFile.dimensions.vocabularySize
                ).tensors,
                try WhisperModel.loadTensors(
                    raw, path: "m", vocabularySize: TinyModelFile.dimensions.vocabularySize, precision: .float32
                ).tensors
            )
        }
        let name = "decoder/layer_0/ffn/linear_0/weight"
        guard case .int8(let q, let steps) = stored.matrix(name), case .float(let floats) = widened.matrix(name)
        else { Issue.record("\(name): \(stored.matrix(name)), \(widened.matrix(name))"); return }
        let (rows, columns) = (16, 8)
        #expect(steps[3] == 1 / Float(100 + 7 * 3))
        for index in 0..<(rows * columns) {
            #expect(Float(q[index]) * steps[index / columns] == floats[index])
        }
        #expect(stored.byteCount < widened.byteCount / 2)

        let quantized = try TinyModelFile.bytes(type: .float16).withUnsafeBytes { raw in
            try WhisperModel.loadTensors(
                raw, path: "m", vocabularySize: TinyModelFile.dimensions.vocabularySize, precision: .int8
            ).tensors
        }
        guard case .int8 = quantized.matrix(name), case .int8 = quantized.matrix("decoder/embeddings/weight"),
            case .half = quantized.matrix("encoder/conv1/weight")
        else { Issue.record("expected int8 matrices and float16 convolutions"); return }
    }

    /// An int8 value of −128 (CTranslate2 writes −127…127) is refused naming the tensor.
    @Test func anInt8FileWithMinus128IsRefusedNamingTheTensor() {
        let bytes = TinyModelFile.bytes(type: .int8, firstInt8: -128)
        let message: String
        do {
            _ = try bytes.withUnsafeBytes { raw in
                try WhisperModel.loadTensors(
                    raw, path: "m/model.bin", vocabularySize: TinyModelFile.dimensions.vocabularySize)
            }
            message = "(loaded)"
        } catch let error as EarshotError {
            message = error.message
        } catch {
            message = "\(error)"
        }
        #expect(message.hasPrefix("m/model.bin: expected int8 values within −127…127"), "\(message)")
        #expect(message.contains("encoder/conv1/weight"), "\(message)")
    }

    /// tiny.en quantized on load holds about a quarter of the widened model's bytes (half of its float16
    /// file), and transcribes a LibriVox clip to the words the float16 weights give.
    @Test func tinyEnQuantizedOnLoadTakesAQuarterOfTheMemoryAndHearsTheSameWords() throws {
        let directory = try WhisperFixtures.modelDirectory()
        let int8 = try WhisperModel(directory: directory, precision: .int8)
        let widened = try WhisperModel(directory: directory, precision: .float32)
        let ratio = Double(int8.weightBytes) / Double(widened.weightBytes)
        #expect(ratio > 0.25 && ratio < 0.3, "int8 \(int8.weightBytes) B, widened \(widened.weightBytes) B")
        let samples = try WhisperFixtures.samples(
            "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0930.wav")
        func text(_ model: WhisperModel) throws -> String {
            let transcriber = try WhisperTranscriber(model: model)
            return try samples.withUnsafeBufferPointer { try transcriber.transcribe($0, options: WhisperOptions()) }
                .map(\.text).joined()
        }
        #expect(try text(int8) == text(try WhisperFixtures.model()))
    }
}
