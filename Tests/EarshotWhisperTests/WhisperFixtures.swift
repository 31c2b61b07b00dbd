import EarshotCore
import EarshotIO
import Foundation
import Testing

@testable import EarshotWhisper

/// Whisper tiny.en (installed by `make models`, never committed) and the faster-whisper reference
/// results of `Benchmarks/whisper/reference.py`, committed as a JSON fixture.
enum WhisperFixtures {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Where the model is: `EARSHOT_WHISPER_MODEL`, or `.earshot/models/whisper-tiny.en/` in the repository.
    static func modelDirectory() throws -> String {
        guard
            let path = WhisperModel.locate(
                explicitPath: nil, environment: ProcessInfo.processInfo.environment,
                places: ModelSearch.repositoryPlaces(under: [repository.path]))
        else {
            throw EarshotError(.modelUnavailable, "Whisper model not found; \(WhisperModel.installHint)")
        }
        return path
    }

    /// What loading the model folder `directory` throws (expected: ``EarshotError/Code/modelUnavailable``),
    /// or "(loaded)" when it loads.
    static func loadError(_ directory: String) -> String {
        do {
            _ = try WhisperModel(directory: directory)
            return "(loaded)"
        } catch let error as EarshotError {
            #expect(error.code == .modelUnavailable)
            return error.message
        } catch {
            return "\(error)"
        }
    }

    /// The model, loaded once for the whole test run and shared by every test, as a service shares it.
    static let shared: Result<WhisperModel, any Error> = Result { try WhisperModel(directory: try modelDirectory()) }

    static func model() throws -> WhisperModel { try shared.get() }

    /// 16 kHz mono samples of a WAV file.
    static func samples(_ path: String) throws -> [Float] {
        let source = try AudioFileSource(path: path)
        precondition(source.format == .wideband, "\(path) is not 16 kHz mono")
        var all: [Float] = []
        while let buffer = try source.read() { all += buffer.samples }
        return all
    }

    struct Reference: Decodable {
        struct Segment: Decodable {
            var start: Double
            var end: Double
            var text: String
            var tokens: [Int]
            var avg_logprob: Double
            var no_speech_prob: Double
            var temperature: Double
            /// [word, start, end, probability]
            var words: [[Value]]
        }
        enum Value: Decodable {
            case text(String)
            case number(Double)
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let number = try? container.decode(Double.self) {
                    self = .number(number)
                } else {
                    self = .text(try container.decode(String.self))
                }
            }
            var text: String { if case .text(let value) = self { value } else { "" } }
            var number: Double { if case .number(let value) = self { value } else { .nan } }
        }
        struct Encoder: Decodable {
            var frames: [Int]
            var values: [[Float]]
            var rms: Double
        }
        struct Decode: Decodable {
            var tokens: [Int]
            var score: Double
            var no_speech_prob: Double
        }
        struct FirstWindow: Decodable {
            var greedy: Decode
            var beam5: Decode
        }
        struct Clip: Decodable {
            var name: String
            var sha256: String
            var samples: Int
            var greedy: [Segment]
            var beam5: [Segment]
            var encoder: Encoder?
            var first_window: FirstWindow
        }
        var clips: [Clip]
    }

    static let reference: Result<Reference, any Error> = Result {
        let url = repository.appendingPathComponent("Tests/EarshotWhisperTests/Fixtures/faster-whisper-reference.json")
        return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }
}
