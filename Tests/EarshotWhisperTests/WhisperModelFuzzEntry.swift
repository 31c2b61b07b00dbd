import EarshotCore
import EarshotTesting

@testable import EarshotWhisper

/// What the `whispermodel` fuzz target (`Fuzz/Targets/`) runs on each input, shared with
/// `WhisperModelFuzzRegressionTests`, which replays the seeds and every saved crash through the same
/// code: the bytes as a `model.bin`, read by ``CTranslate2ModelFile`` (every variable's values widened,
/// so a length that reaches past the file shows under ASan) and loaded as a Whisper model of the toy
/// vocabulary size. A refusal must be the reader's `Malformed` or an `EarshotError` with code
/// `.modelUnavailable`; anything else is a ``FuzzFinding``.
enum WhisperModelFuzzEntry {
    static func run(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            if let file = try? CTranslate2ModelFile(bytes: raw) {
                for variable in file.variables {
                    guard variable.offset >= 0, variable.offset + variable.byteCount <= raw.count else {
                        throw FuzzFinding("\(variable.name) lies past the file's \(raw.count) bytes")
                    }
                    _ = try file.floats(variable)
                }
            }
            do {
                _ = try WhisperModel.loadTensors(raw, path: "fuzz/model.bin", vocabularySize: 24)
            } catch let error as EarshotError {
                guard error.code == .modelUnavailable, error.message.hasPrefix("fuzz/model.bin: ") else {
                    throw FuzzFinding("unexpected error: \(error)")
                }
            }
        }
    }
}
