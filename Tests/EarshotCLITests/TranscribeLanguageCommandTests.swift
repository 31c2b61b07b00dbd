import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// `earshot transcribe --language auto|CODE` (issue 49): a multilingual Whisper named by name detects
/// the language and says so in the JSON document; a language the model does not speak — any but `en`
/// for tiny.en — stops the command with status 1 naming the model and its languages, never an English
/// decode of French.
@Suite(.serialized, .waiting) struct TranscribeLanguageCommandTests {
    private static let clips = (try? LibriVoxClips.load().map(\.path)) ?? []

    private func earshot(_ arguments: String...) throws -> ExternalTool.Result {
        try ExternalTool.run([ExternalTool.earshotPath] + arguments)
    }

    /// A French sentence spoken by eSpeak NG (22 050 Hz; transcribe resamples it).
    private func frenchClip(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("fr.wav")
        let spoken = try ExternalTool.run([
            "espeak-ng", "-v", "fr", "-w", path, "Bonjour, je m'appelle Marie et j'habite à Paris depuis dix ans.",
        ])
        #expect(spoken.status == 0, "\(spoken.standardError)")
        return path
    }

    private func document(_ result: ExternalTool.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
    }

    @Test func anEnglishOnlyModelRefusesAnyLanguageButEnglishByName() throws {
        let french = try earshot("transcribe", "--language", "fr", Self.clips[0])
        #expect(french.status == 1, "\(french.output)\(french.standardError)")
        #expect(french.output.isEmpty, "no English decode: \(french.output)")
        #expect(french.standardError.contains("language 'fr': the Whisper model tiny.en ("), "\(french.standardError)")
        #expect(french.standardError.contains("transcribes English only (en)"))

        let pocketSphinx = try earshot("transcribe", "--recognizer", "pocketsphinx", "--language", "de", Self.clips[0])
        #expect(pocketSphinx.status == 1 && pocketSphinx.output.isEmpty, "\(pocketSphinx.output)")
        #expect(
            pocketSphinx.standardError.contains("language 'de': PocketSphinx (")
                && pocketSphinx.standardError.contains("transcribes English only (en)"), "\(pocketSphinx.standardError)"
        )

        let english = try earshot("transcribe", "--language", "en", "--format", "json", Self.clips[0])
        #expect(english.status == 0, "\(english.standardError)")
        let json = try document(english)
        #expect(json["language"] as? String == "en" && json["language_probability"] as? Double == 1)
    }

    @Test func baseDetectsFrenchAndRefusesACodeItDoesNotSpeak() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clip = try frenchClip(in: directory)
        let detected = try earshot("transcribe", "--whisper-model", "whisper-base", "--format", "json", clip)
        #expect(detected.status == 0, "\(detected.standardError)")
        let json = try document(detected)
        #expect(json["language"] as? String == "fr", "\(json)")
        let probability = try #require(json["language_probability"] as? Double)
        #expect(probability > 0.5 && probability < 1, "\(probability)")
        let parameters = try #require(json["parameters"] as? [String: Any])
        #expect(parameters["model"] as? String == "whisper-base")
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(segments.contains { $0["language"] as? String == "fr" })
        #expect(((json["text"] as? String) ?? "").contains("Marie"), "\(json["text"] ?? "")")

        let auto = try earshot("transcribe", "--whisper-model", "whisper-base", "--language", "auto", clip)
        #expect(auto.status == 0 && auto.output.contains("Marie"), "\(auto.output)\(auto.standardError)")

        let unknown = try earshot("transcribe", "--whisper-model", "whisper-base", "--language", "xx", clip)
        #expect(unknown.status == 1 && unknown.output.isEmpty)
        #expect(
            unknown.standardError.contains("language 'xx': the Whisper model base (")
                && unknown.standardError.contains("transcribes 99 languages: en, zh, de,"),
            "\(unknown.standardError)")
    }
}
