import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

@testable import EarshotVAD

/// Loading `silero_vad.onnx`: the real file's tensors, and one clear error for files that are not it.
/// The bad files are made here from the real one; no weights are committed.
@Suite(.computing) struct SileroModelTests {
    static func load(_ bytes: [UInt8]) throws -> (error: EarshotError, path: String) {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(bytes, to: "model.onnx")
        let error = try #require(throws: EarshotError.self) { try SileroModel(path: path) }
        return (error, path)
    }

    static func realBytes() throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: try SileroFixtures.modelPath())))
    }

    @Test func readsTheSixteenKilohertzBranch() throws {
        let model = try SileroFixtures.model()
        #expect(model.stft.rows == 258 && model.stft.columns == 256)
        #expect(model.encoder.map(\.rows) == [128, 64, 64, 128])
        #expect(model.encoder.map(\.columns) == [387, 384, 192, 192])
        #expect(model.lstm.rows == 512 && model.lstm.columns == 256)
        // The 16 kHz branch's output bias, as onnx.numpy_helper reads it from the file.
        #expect(model.decoder.bias?[0] == -0.6245977282524109)
    }

    @Test func aTruncatedFileNamesTheFileAndWhereItEnds() throws {
        let bytes = try Self.realBytes()
        for length in [bytes.count / 2, bytes.count - 1_000, 100] {
            let (error, path) = try Self.load(Array(bytes[0..<length]))
            #expect(error.code == .modelUnavailable)
            #expect(error.message.contains(path) && error.message.contains("truncated"), "\(error.message)")
        }
    }

    @Test func corruptedWeightsAreRefused() throws {
        // Overwrite part of the 16 kHz STFT basis with 0xFF bytes: NaNs where floats belong.
        var bytes = try Self.realBytes()
        let name = Array("then_branch__Inline_0__stft.forward_basis_buffer".utf8)
        let at = try #require(
            bytes.withUnsafeBufferPointer { all in
                (0..<(all.count - name.count)).first { start in
                    all[start] == name[0] && name.indices.allSatisfy { all[start + $0] == name[$0] }
                }
            })
        for index in (at + 20_000)..<(at + 20_064) { bytes[index] = 0xFF }
        let (error, path) = try Self.load(bytes)
        #expect(error.code == .modelUnavailable)
        #expect(error.message.contains(path) && error.message.contains("stft.forward_basis_buffer"), "\(error.message)")
    }

    @Test func otherFilesAreRefused() throws {
        // A WAV file, an empty file, and a protobuf with no graph.
        let wav = Array(try Data(contentsOf: URL(fileURLWithPath: LibriVoxClips.load()[0].path)))
        for bytes in [wav, [], [0x08, 0x07]] {
            let (error, path) = try Self.load(bytes)
            #expect(error.code == .modelUnavailable)
            #expect(error.message.contains(path) && error.message.contains("expected"), "\(error.message)")
        }
        let missing = try #require(throws: EarshotError.self) { try SileroModel(path: "/nonexistent/silero_vad.onnx") }
        #expect(missing.message.contains("/nonexistent/silero_vad.onnx") && missing.message.contains("make models"))
    }

    @Test func locateFollowsFlagThenVariableThenTheRepository() throws {
        let root = SileroFixtures.repository.path
        let repository = ModelSearch.repositoryPlaces(under: [root])
        let found = SileroModel.locate(
            explicitPath: nil, environment: [:],
            places: ModelSearch.repositoryPlaces(under: [root + "/Sources/EarshotVAD"]))
        #expect(found == root + "/.earshot/models/" + SileroModel.relativePath)
        #expect(
            SileroModel.locate(explicitPath: "/a.onnx", environment: ["EARSHOT_VAD_MODEL": "/b"], places: [])
                == "/a.onnx")
        #expect(
            SileroModel.locate(explicitPath: nil, environment: ["EARSHOT_VAD_MODEL": "/b"], places: repository) == "/b")
        #expect(
            SileroModel.locate(explicitPath: nil, environment: ["EARSHOT_VAD_MODEL": "none"], places: repository) == nil
        )
        #expect(
            SileroModel.locate(explicitPath: nil, environment: [:], places: [.init("/proc/self", .userData)]) == nil)
    }
}
