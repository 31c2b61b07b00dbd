import EarshotCore
import EarshotIO
import Foundation

@testable import EarshotVAD

/// The Silero model (installed by `make models`, never committed) and the onnxruntime reference
/// probabilities of `Benchmarks/vad/silero_reference.py`, committed as a small JSON fixture.
enum SileroFixtures {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Where the model is: `EARSHOT_VAD_MODEL`, or `.earshot/models/silero-vad/` in the repository.
    static func modelPath() throws -> String {
        guard
            let path = SileroModel.locate(
                explicitPath: nil, environment: ProcessInfo.processInfo.environment,
                places: ModelSearch.repositoryPlaces(under: [repository.path]))
        else {
            throw EarshotError(.modelUnavailable, "silero VAD model not found; \(SileroModel.installHint)")
        }
        return path
    }

    /// The model, loaded once for the whole test run.
    static let shared: Result<SileroModel, any Error> = Result { try SileroModel(path: try modelPath()) }

    static func model() throws -> SileroModel { try shared.get() }

    struct Reference: Decodable {
        struct Recording: Decodable {
            var source: String
            var path: String
            var samples: Int
            var probabilities: [Float]
        }
        var recordings: [Recording]
    }

    static func reference() throws -> Reference {
        let url = repository.appendingPathComponent("Tests/EarshotVADTests/Fixtures/silero_reference.json")
        return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }

    /// A recording named in the fixture (absolute, or relative to the repository), read whole.
    static func audio(_ path: String) throws -> AudioBuffer {
        let full = path.hasPrefix("/") ? path : repository.appendingPathComponent(path).path
        let source = try AudioFileSource(path: full)
        var all = AudioBuffer(format: source.format)
        while let buffer = try source.read() { all.samples += buffer.samples }
        return all
    }
}
