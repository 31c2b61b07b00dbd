import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// The detector every command picks: silero when its model is installed (`make test` installs it),
/// spectral when it is turned off (`none`, with no note: the user asked for it), and a clear exit 3
/// when silero is asked for and cannot be loaded.
@Suite(.computing) struct DetectorChoiceTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let utterance = repository.appendingPathComponent("corpora/synthetic/sample/audio/syn-015.wav").path

    static func earshot(_ arguments: [String], environment: [String: String] = [:]) throws -> ExternalTool.Result {
        try ExternalTool.run([ExternalTool.earshotPath] + arguments, environment: environment)
    }

    static func detector(in result: ExternalTool.Result) throws -> String? {
        let document = try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any]
        return (document?["parameters"] as? [String: Any])?["detector"] as? String
    }

    @Test func sileroIsTheDefaultWhenInstalled() throws {
        for command in [["vad", "--format", "json"], ["endpoint", "--format", "json"]] {
            let result = try Self.earshot(command + [Self.utterance])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try Self.detector(in: result) == "silero", "\(command)")
            #expect(result.standardError.isEmpty, "\(result.standardError)")
        }
    }

    @Test func turnedOffSpectralRunsWithoutANote() throws {
        for (arguments, environment) in [
            (["--vad-model", "none"], [String: String]()), ([], ["EARSHOT_VAD_MODEL": "none"]),
        ] {
            let result = try Self.earshot(["vad", "--format", "json"] + arguments + [Self.utterance], environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try Self.detector(in: result) == "spectral")
            #expect(result.standardError.isEmpty, "no 'model not found' note for a detector turned off on purpose")
        }
    }

    @Test func sileroAskedForWithoutAModelExitsThreeSayingHowToInstall() throws {
        let missing = try Self.earshot(
            ["vad", "--detector", "silero", Self.utterance], environment: ["EARSHOT_VAD_MODEL": "none"])
        #expect(missing.status == 3)
        #expect(missing.standardError.contains("turned off") && missing.standardError.contains("--vad-model none"))
        #expect(missing.standardError.split(separator: "\n").count == 1, "\(missing.standardError)")

        let wrongFile = try Self.earshot(["vad", "--detector", "silero", "--vad-model", Self.utterance, Self.utterance])
        #expect(wrongFile.status == 3)
        #expect(wrongFile.standardError.contains(Self.utterance) && wrongFile.standardError.contains("ONNX"))
    }
}
