import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

@testable import EarshotWhisper

/// Whisper base as `earshot models fetch whisper-base` installs it: a multilingual folder with
/// `vocabulary.json`, its 99 languages from `config.json`'s `lang_ids` (refused when they disagree with
/// the vocabulary), and the languages each model speaks, refused by name when it does not.
@Suite(.computing) struct WhisperBaseModelTests {
    static func baseFolder() throws -> String {
        let places = ModelSearch.repositoryPlaces(under: [WhisperFixtures.repository.path])
        return try #require(WhisperModel.locate(ModelCatalogue.whisperBase, in: places), "run `make models`")
    }

    @Test func baseLoadsFromVocabularyJSONWithItsNinetyNineLanguages() throws {
        let model = try WhisperMultilingualParityTests.model.get()
        #expect(
            model.dimensions
                == WhisperDimensions(
                    melBins: 80, audioContext: 1500, width: 512, audioHeads: 8, textHeads: 8, audioLayers: 6,
                    textLayers: 6, feedForwardWidth: 2048, vocabularySize: 51865, textContext: 448))
        #expect(model.name == "base" && model.tokenizer.isMultilingual)
        let languages = model.tokenizer.languages
        #expect(languages.count == 99)
        #expect(languages.first.map { $0.code == "en" && $0.token == 50259 } ?? false)
        #expect(languages.last.map { $0.code == "su" && $0.token == 50357 } ?? false)
        #expect(languages.contains { $0.code == "sq" }, "Albanian")
        #expect(model.alignmentHeads.count == 8 && model.alignmentHeads.first == .init(layer: 3, head: 1))
        #expect(model.suppressedAtBegin == [220, 50257])
        #expect(model.tokenizer.transcribe == 50359 && model.tokenizer.timestampBegin == 50364)
        #expect(try model.tokenizer.startSequence(language: "fr") == [50258, 50265, 50359])
        #expect(try WhisperModel.languages(inFolder: try Self.baseFolder()).count == 99)
    }

    /// A folder holding base's files, `model.bin` linked rather than copied, with `edit` applied.
    func copyOfBase(_ edit: (TemporaryDirectory) throws -> Void) throws -> TemporaryDirectory {
        let source = try Self.baseFolder()
        let directory = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("model.bin"), withDestinationPath: source + "/model.bin")
        for name in ["config.json", "vocabulary.json", "tokenizer.json"] {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: directory.file(name))
        }
        try edit(directory)
        return directory
    }

    /// `config.json` with its `lang_ids` replaced by `change`'s result.
    func config(_ directory: TemporaryDirectory, _ change: ([Int]) -> [Int]) throws {
        let url = URL(fileURLWithPath: directory.file("config.json"))
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        object["lang_ids"] = change(try #require(object["lang_ids"] as? [Int]))
        try JSONSerialization.data(withJSONObject: object).write(to: url)
    }

    @Test func theSameFolderWithVocabularyTxtLoadsTheSameTokens() throws {
        let directory = try copyOfBase { directory in
            let tokens = try JSONDecoder().decode(
                [String].self, from: Data(contentsOf: URL(fileURLWithPath: directory.file("vocabulary.json"))))
            try FileManager.default.removeItem(atPath: directory.file("vocabulary.json"))
            try (tokens.joined(separator: "\n") + "\n").write(
                toFile: directory.file("vocabulary.txt"), atomically: true, encoding: .utf8)
        }
        defer { directory.remove() }
        let languages = try WhisperModel.languages(inFolder: directory.path)
        #expect(languages == (try WhisperMultilingualParityTests.model.get().tokenizer.languages.map(\.code)))
    }

    @Test func langIDsThatDisagreeWithTheVocabularyAreRefusedNamingTheFile() throws {
        let fewer = try copyOfBase { try config($0) { Array($0.dropLast()) } }
        defer { fewer.remove() }
        #expect(
            WhisperFixtures.loadError(fewer.path)
                == "\(fewer.file("config.json")): lang_ids lists 98 languages but \(fewer.file("vocabulary.json")) "
                + "has 99 language tokens; expected each once")

        let stray = try copyOfBase { try config($0) { $0.dropLast() + [220] } }
        defer { stray.remove() }
        #expect(
            WhisperFixtures.loadError(stray.path)
                == "\(stray.file("config.json")): lang_ids: 220 is 'Ġ' in \(stray.file("vocabulary.json")); expected "
                + "ids of its 99 language tokens (50259…50357)")
    }

    @Test func aLanguageTheModelDoesNotSpeakIsRefusedNamingTheModelAndItsLanguages() throws {
        let tiny = try WhisperFixtures.model()
        #expect(tiny.tokenizer.languages.map(\.code) == ["en"])
        #expect(throws: Never.self) { try tiny.requireLanguage("en") }
        let error = try #require(throws: EarshotError.self) { try tiny.requireLanguage("fr") }
        #expect(error.code == .invalidParameter)
        #expect(
            error.message
                == "language 'fr': the Whisper model tiny.en (\(tiny.directory)) transcribes English only (en)")
        // Nor does a transcriber take it: no silent English decode.
        #expect(throws: EarshotError.self) {
            try WhisperTranscriber(model: tiny, options: WhisperOptions(language: "fr"))
        }

        let base = try WhisperMultilingualParityTests.model.get()
        #expect(throws: Never.self) { try base.requireLanguage("sq") }
        let unknown = try #require(throws: EarshotError.self) { try base.requireLanguage("xx") }
        #expect(
            unknown.message.hasPrefix(
                "language 'xx': the Whisper model base (\(base.directory)) transcribes 99 languages: en, zh, de,"))
    }
}
