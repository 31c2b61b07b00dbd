import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotWhisper

/// Weight matrices kept as the file's float16 values (issue 49, item 5): every product on halves gives
/// the bits of the same product on the widened matrix, so a model held at half the memory transcribes
/// exactly as the widened one; the single-row product (a greedy step) is the half-row kernel's.
@Suite(.computing)
struct WhisperHalfWeightsTests {
    /// Halves of values over several orders of magnitude, both signs, a few subnormals.
    static func halves(_ count: Int, seed: UInt64) -> [UInt16] {
        WhisperKernelsTests.values(count, seed: seed).enumerated().map { index, value in
            index % 97 == 0 ? 0x0001 | (index % 2 == 0 ? 0 : 0x8000) : Float16(value).bitPattern
        }
    }

    static func widened(_ halves: [UInt16]) -> [Float] { halves.map { Float(Float16(bitPattern: $0)) } }

    /// `linear` on a `.half` matrix and on its widened `.float` copy: rows of a beam (the few-row
    /// kernels, twins and portable), and more rows than that (OpenBLAS on the widened matrix).
    @Test(arguments: [2, 5, 8, 9, 40])
    func aLinearLayerOnHalvesGivesTheBitsOfTheWidenedMatrix(rows: Int) {
        let (inputs, outputs) = (392, 1_031)
        let halves = Self.halves(outputs * inputs, seed: 7)
        let floats = Self.widened(halves)
        let bias = WhisperKernelsTests.values(outputs, seed: 8)
        let x = WhisperKernelsTests.values(rows * inputs, seed: 9)
        var onHalves = [Float](repeating: .nan, count: rows * outputs)
        var onFloats = [Float](repeating: .nan, count: rows * outputs)
        halves.withUnsafeBufferPointer { h in
            floats.withUnsafeBufferPointer { f in
                bias.withUnsafeBufferPointer { b in
                    let half = WhisperWeights.Linear(
                        weight: .half(h.baseAddress!), bias: b.baseAddress!, outputs: outputs, inputs: inputs)
                    let float = WhisperWeights.Linear(
                        weight: .float(f.baseAddress!), bias: b.baseAddress!, outputs: outputs, inputs: inputs)
                    WhisperKernels.linear(x, rows: rows, half, into: &onHalves)
                    WhisperKernels.linear(x, rows: rows, float, into: &onFloats)
                }
            }
        }
        let differing = zip(onHalves, onFloats).filter { $0.0.bitPattern != $0.1.bitPattern }.count
        #expect(differing == 0, "\(differing) of \(rows * outputs) outputs differ")
        #expect(onFloats.allSatisfy { $0.isFinite })
    }

    /// The few-row product on halves, portable (widened a block at a time) and with the CPU's twins
    /// (widened in registers): the same bits, which are the float kernel's on the widened matrix.
    @Test(arguments: 1...8)
    func theFewRowProductOnHalvesIsTheSameWhicheverLoopsRun(rows: Int) {
        let (depth, columns) = (384, 777)
        let halves = Self.halves(columns * depth, seed: 11)
        let floats = Self.widened(halves)
        let a = WhisperKernelsTests.values(rows * depth, seed: 12)
        var portable = [Float](repeating: .nan, count: rows * columns)
        var fast = [Float](repeating: .nan, count: rows * columns)
        var reference = [Float](repeating: .nan, count: rows * columns)
        halves.withUnsafeBufferPointer { h in
            WhisperKernels.multiplyFewRows(
                a, rows: rows, by: .half(h.baseAddress!), columns: columns, depth: depth, into: &portable,
                cStride: columns, twins: .portable)
            WhisperKernels.multiplyFewRows(
                a, rows: rows, by: .half(h.baseAddress!), columns: columns, depth: depth, into: &fast,
                cStride: columns)
        }
        WhisperKernels.multiplyFewRowsPortably(
            a, rows: rows, by: floats, columns: columns, depth: depth, into: &reference, cStride: columns)
        #expect(portable.map(\.bitPattern) == reference.map(\.bitPattern))
        #expect(fast.map(\.bitPattern) == reference.map(\.bitPattern))
    }

    /// One row (a greedy decoding step) reads the halves through the half-row kernel, then adds the bias.
    @Test func aSingleRowOnHalvesIsTheHalfRowKernelPlusTheBias() {
        let (inputs, outputs) = (512, 300)
        let halves = Self.halves(outputs * inputs, seed: 21)
        let bias = WhisperKernelsTests.values(outputs, seed: 22)
        let x = WhisperKernelsTests.values(inputs, seed: 23)
        var y = [Float](repeating: .nan, count: outputs)
        var expected = [Float](repeating: .nan, count: outputs)
        halves.withUnsafeBufferPointer { h in
            bias.withUnsafeBufferPointer { b in
                let layer = WhisperWeights.Linear(
                    weight: .half(h.baseAddress!), bias: b.baseAddress!, outputs: outputs, inputs: inputs)
                WhisperKernels.linear(x, rows: 1, layer, into: &y)
            }
            WhisperKernels.multiplyHalfRowsPortably(
                x, by: h.baseAddress!, columns: outputs, depth: inputs, into: &expected)
        }
        for j in 0..<outputs { expected[j] += bias[j] }
        #expect(y.map(\.bitPattern) == expected.map(\.bitPattern))
    }

    /// tiny.en's float16 file held as stored takes about half the memory of the widened weights, and
    /// its encoder output and a beam's logits are the widened model's to the bit (the products of more
    /// than one row see the same values in the same order).
    @Test func tinyEnHeldAsStoredTakesHalfTheMemoryAndComputesTheSameBits() throws {
        let directory = try WhisperFixtures.modelDirectory()
        let stored = try WhisperModel(directory: directory, precision: .stored)
        let widened = try WhisperModel(directory: directory, precision: .float32)
        let ratio = Double(stored.weightBytes) / Double(widened.weightBytes)
        #expect(ratio > 0.5 && ratio < 0.52, "stored \(stored.weightBytes) B, widened \(widened.weightBytes) B")
        let dimensions = stored.dimensions
        let frames = 2 * dimensions.audioContext
        let mel = WhisperKernelsTests.values(frames * dimensions.melBins, seed: 31)
        let (a, b) = (WhisperEncoder(model: stored), WhisperEncoder(model: widened))
        // A fitted window of 200 positions, all content (rows of padding copy a row computed once, a
        // single-row product: the half-row kernel's sums, not OpenBLAS's).
        mel.withUnsafeBufferPointer {
            a.encode($0.baseAddress!, contentFrames: 400, positions: 200)
            b.encode($0.baseAddress!, contentFrames: 400, positions: 200)
        }
        let count = 200 * dimensions.width
        let differing = (0..<count).filter { a.output[$0].bitPattern != b.output[$0].bitPattern }.count
        #expect(differing == 0, "\(differing) of \(count) encoder outputs differ")

        // The prompt (four rows of one hypothesis), then a step of a five-hypothesis beam.
        let prompt = [50257, 50362, 464, 3290]
        var logits: [[UInt32]] = []
        for (model, encoder) in [(stored, a), (widened, b)] {
            let decoder = WhisperDecoder(model: model, capacity: 5)
            decoder.begin(encoderOutput: encoder.output, positions: 200)
            decoder.run(tokens: prompt, perHypothesis: 4, logitRows: [3])
            decoder.reorder([0, 0, 0, 0, 0])
            decoder.run(tokens: [262, 290, 257, 286, 284], perHypothesis: 1, logitRows: Array(0..<5))
            logits.append((0..<(5 * dimensions.vocabularySize)).map { decoder.logits[$0].bitPattern })
        }
        #expect(logits[0] == logits[1], "a beam's logits differ between halves and widened weights")
    }
}
