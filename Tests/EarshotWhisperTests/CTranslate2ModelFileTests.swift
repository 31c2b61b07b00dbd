import EarshotCore
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotWhisper

/// The reader of CTranslate2's `model.bin` and the checks of the loader, on toy files whose every byte
/// the test wrote (``TinyModelFile``).
@Suite(.computing) struct CTranslate2ModelFileTests {
    func load(_ bytes: [UInt8]) throws -> WhisperDimensions {
        try bytes.withUnsafeBytes { raw in
            let loaded = try WhisperModel.loadTensors(
                raw, path: "tiny/model.bin", vocabularySize: TinyModelFile.dimensions.vocabularySize)
            return loaded.dimensions
        }
    }

    func failure(_ bytes: [UInt8]) -> String {
        do {
            _ = try load(bytes)
            return "(loaded)"
        } catch let error as EarshotError {
            #expect(error.code == .modelUnavailable)
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test(arguments: [CTranslate2ModelFile.DataType.float16, .float32])
    func aWellFormedFileLoadsWithTheDimensionsItsShapesImply(type: CTranslate2ModelFile.DataType) throws {
        let bytes = TinyModelFile.bytes(type: type)
        try bytes.withUnsafeBytes { raw in
            let file = try CTranslate2ModelFile(bytes: raw)
            #expect(file.specName == "WhisperSpec" && file.specRevision == 3)
            #expect(file.variables.count == TinyModelFile.dimensions.expectedTensors.count + 7)
            let projection = try #require(file.byName["decoder/projection/weight"])
            #expect(projection.offset == file.byName["decoder/embeddings/weight"]?.offset, "the alias is the embedding")
        }
        #expect(try load(bytes) == TinyModelFile.dimensions)
    }

    @Test func float16ValuesAreWidenedExactly() throws {
        let bytes = TinyModelFile.bytes(type: .float16)
        let widened = try bytes.withUnsafeBytes { raw in
            let file = try CTranslate2ModelFile(bytes: raw)
            let variable = try #require(file.byName["encoder/conv1/bias"])
            let halves = (0..<variable.count).map {
                raw.loadUnaligned(fromByteOffset: variable.offset + 2 * $0, as: UInt16.self)
            }
            return (try file.floats(variable), halves)
        }
        #expect(widened.0 == widened.1.map { Float(Float16(bitPattern: $0)) })
        #expect(widened.0.contains { $0 != 0 })
    }

    /// Every one of the 65 536 halves, in groups of eight and one by one (a count that is not a
    /// multiple of eight): the same bits as `Float(Float16)`, NaNs and infinities kept.
    @Test func everyHalfIsWidenedAsFloat16Does() {
        let halves = (0...UInt16.max).map { $0 } + [0x3c00, 0x7c00, 0xfe01]
        var widened = [Float](repeating: 0, count: halves.count)
        halves.withUnsafeBytes {
            WhisperKernels.widenHalves($0.baseAddress!, count: halves.count, into: &widened)
        }
        let expected = halves.map { Float(Float16(bitPattern: $0)) }
        let wrong = zip(widened, expected).enumerated().filter { (_, pair) in
            pair.0.isNaN ? !pair.1.isNaN || pair.0.sign != pair.1.sign : pair.0.bitPattern != pair.1.bitPattern
        }
        #expect(wrong.isEmpty, "\(wrong.count) halves differ, the first \(halves[wrong.first?.offset ?? 0])")
    }

    @Test func aNonFiniteHalfIsRefused() throws {
        var bytes = TinyModelFile.bytes(type: .float16)
        let offset = try bytes.withUnsafeBytes {
            try #require(try CTranslate2ModelFile(bytes: $0).byName["decoder/layer_norm/beta"]).offset
        }
        bytes.replaceSubrange(offset..<(offset + 2), with: [0x00, 0x7c])  // +infinity
        #expect(
            failure(bytes)
                == "tiny/model.bin: expected finite values in decoder/layer_norm/beta; it holds NaN or infinity (corrupted?)"
        )
    }

    @Test func everyTruncationIsRefusedWithTheOffsetWhereTheFileEnds() throws {
        let bytes = TinyModelFile.bytes()
        for length in 0..<bytes.count {
            let message = failure(Array(bytes[..<length]))
            #expect(
                message.hasPrefix("tiny/model.bin: expected a CTranslate2 model file"), "\(length) bytes: \(message)")
            #expect(message.contains("of \(length)"), "\(length) bytes: \(message)")
        }
    }

    @Test func aTrailingByteIsRefused() {
        #expect(failure(TinyModelFile.bytes() + [0]).contains("1 bytes follow the aliases"))
    }

    @Test func aWrongShapeIsRefusedNamingTheTensorAndTheShapeExpected() {
        let message = failure(
            TinyModelFile.bytes { name, shape in if name == "encoder/layer_0/ffn/linear_1/weight" { shape = [8, 15] } })
        #expect(
            message == "tiny/model.bin: expected encoder/layer_0/ffn/linear_1/weight with shape [8, 16]; found [8, 15]")
    }

    @Test func aMissingTensorIsRefusedNamingIt() {
        let message = failure(
            TinyModelFile.bytes { name, _ in
                if name == "decoder/layer_0/attention/linear_2/bias" { name = "decoder/spare" }
            })
        #expect(message.contains("unexpected variable decoder/spare"), "\(message)")
    }

    @Test func aNonFiniteWeightIsRefused() throws {
        var bytes = TinyModelFile.bytes(type: .float32)
        let offset = try bytes.withUnsafeBytes {
            try #require(try CTranslate2ModelFile(bytes: $0).byName["decoder/layer_norm/beta"]).offset
        }
        bytes.replaceSubrange(offset..<(offset + 4), with: [0, 0, 0xc0, 0x7f])  // NaN
        #expect(
            failure(bytes)
                == "tiny/model.bin: expected finite values in decoder/layer_norm/beta; it holds NaN or infinity (corrupted?)"
        )
    }

    @Test func anotherFormatVersionOrSpecIsRefused() {
        var bytes = TinyModelFile.bytes()
        bytes[0] = 5
        #expect(failure(bytes).contains("format version 5, expected 6"))
        var spec = TinyModelFile.bytes()
        spec.replaceSubrange(6..<13, with: Array("Trnsfmr".utf8))
        #expect(
            failure(spec).contains("expected a Whisper model (spec WhisperSpec); this one is a Trnsfmr"),
            "\(failure(spec))")
    }

    @Test func aForeignFileIsRefusedAtItsFirstBytes() throws {
        let onnx = Array("\u{08}\u{07}\u{12}\u{07}pytorch\u{1a}\u{05}2.5.0".utf8) + [UInt8](repeating: 0x41, count: 64)
        #expect(failure(onnx).contains("expected a CTranslate2 model file; format version"), "\(failure(onnx))")
    }
}
