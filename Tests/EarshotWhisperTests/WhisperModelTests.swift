import EarshotCore
import EarshotModels
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

@testable import EarshotWhisper

/// Loading Whisper tiny.en as `make models` installs it, and refusing broken copies of it with one
/// error naming the file; choosing the recognizer (``RecognizerSelection``).
@Suite(.computing) struct WhisperModelTests {
    @Test func tinyEnLoadsWithTheDimensionsOfWhisperTiny() throws {
        let model = try WhisperFixtures.model()
        #expect(
            model.dimensions
                == WhisperDimensions(
                    melBins: 80, audioContext: 1500, width: 384, audioHeads: 6, textHeads: 6, audioLayers: 4,
                    textLayers: 4, feedForwardWidth: 1536, vocabularySize: 51864, textContext: 448))
        #expect(model.name == "tiny.en")
        #expect(!model.tokenizer.isMultilingual)
        #expect(model.alignmentHeads.count == 8 && model.alignmentHeads.first == .init(layer: 1, head: 0))
        #expect(model.suppressedAtBegin == [220, 50256])
    }

    @Test func theDefaultSuppressedTokensAreFasterWhispersAndTheConfigs() throws {
        let model = try WhisperFixtures.model()
        // faster-whisper's get_suppressed_tokens(tokenizer, [-1]) for tiny.en: 84 non-speech tokens and
        // six special ones, equal to the converter's suppress_ids.
        #expect(model.tokenizer.nonSpeechTokens.count == 84)
        #expect(model.tokenizer.defaultSuppressedTokens == model.suppressedTokens)
        #expect(model.tokenizer.encode(" -") == [532] && model.tokenizer.encode(" '") == [705])
    }

    /// A copy of the model folder whose `model.bin` is `transform`ed.
    func brokenCopy(_ transform: (Data) -> Data) throws -> TemporaryDirectory {
        let source = try WhisperFixtures.modelDirectory()
        let directory = try TemporaryDirectory()
        for name in ["config.json", "vocabulary.txt", "tokenizer.json"] {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: directory.file(name))
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source + "/model.bin"))
        try transform(bytes).write(to: URL(fileURLWithPath: directory.file("model.bin")))
        return directory
    }

    @Test func aTruncatedModelIsRefusedNamingTheFile() throws {
        let directory = try brokenCopy { $0.prefix(10_000_000) }
        defer { directory.remove() }
        let message = WhisperFixtures.loadError(directory.path)
        #expect(message.hasPrefix(directory.file("model.bin") + ": expected a CTranslate2 model file;"), "\(message)")
        #expect(message.contains("(truncated or corrupted?)"), "\(message)")
    }

    /// The model is read from the file piece by piece into its tensors (never held whole): the values
    /// are those of the whole file read into memory, bit for bit.
    @Test func readingTheFilePieceByPieceGivesTheTensorsOfTheWholeFile() throws {
        let directory = try WhisperFixtures.modelDirectory()
        let model = try WhisperModel(directory: directory)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/model.bin"))
        let whole = try bytes.withUnsafeBytes { raw in
            try WhisperModel.loadTensors(raw, path: "model.bin", vocabularySize: model.tokenizer.count).tensors
        }
        let piecewise = model.tensors
        #expect(whole.floatCount == piecewise.floatCount && whole.halfCount == piecewise.halfCount)
        #expect(whole.halfCount > 0, "tiny.en's matrices are float16 and kept as halves")
        #expect(memcmp(whole.floats, piecewise.floats, 4 * whole.floatCount) == 0)
        #expect(memcmp(whole.halves, piecewise.halves, 2 * whole.halfCount) == 0)
    }

    /// The flag's precision, else the variable's, else as stored; a variable naming neither is refused.
    @Test func theWeightPrecisionIsTheFlagsThenTheVariablesThenStored() throws {
        typealias Precision = WhisperModel.WeightPrecision
        let variable = Precision.environmentVariable
        #expect(try Precision.resolve(nil, environment: [:]) == .stored)
        #expect(try Precision.resolve(nil, environment: [variable: "float32"]) == .float32)
        #expect(try Precision.resolve(.stored, environment: [variable: "float32"]) == .stored)
        let refusal = #expect(throws: EarshotError.self) {
            try Precision.resolve(nil, environment: [variable: "float16"])
        }
        #expect(refusal?.message == "EARSHOT_WHISPER_WEIGHTS=float16: expected stored, float32 or int8")
        #expect(refusal?.code == .invalidParameter)
    }

    @Test func aModelBinThatIsNotAFileIsRefused() throws {
        let directory = try brokenCopy { $0 }
        defer { directory.remove() }
        try FileManager.default.removeItem(atPath: directory.file("model.bin"))
        try FileManager.default.createDirectory(atPath: directory.file("model.bin"), withIntermediateDirectories: false)
        #expect(WhisperFixtures.loadError(directory.path) == directory.file("model.bin") + ": expected a regular file")
    }

    @Test func aForeignFileIsRefused() throws {
        let directory = try brokenCopy { _ in Data("ONNX or anything else, not a CTranslate2 model".utf8) }
        defer { directory.remove() }
        #expect(
            WhisperFixtures.loadError(directory.path).contains(
                "model.bin: expected a CTranslate2 model file; format version"))
    }

    @Test func aMissingFolderIsRefusedNamingTheFile() {
        #expect(
            WhisperFixtures.loadError("/nonexistent/whisper")
                == "/nonexistent/whisper/model.bin: cannot read the file (missing or unreadable)")
    }

    @Test func theModelIsFoundByFlagThenEnvironmentThenUnderTheRepository() throws {
        let root = WhisperFixtures.repository.path
        let repository = ModelSearch.repositoryPlaces(under: [root])
        #expect(
            WhisperModel.locate(explicitPath: "/a", environment: ["EARSHOT_WHISPER_MODEL": "/b"], places: []) == "/a")
        #expect(
            WhisperModel.locate(explicitPath: nil, environment: ["EARSHOT_WHISPER_MODEL": "/b"], places: repository)
                == "/b")
        #expect(
            WhisperModel.locate(
                explicitPath: nil, environment: [:],
                places: ModelSearch.repositoryPlaces(under: [root + "/Sources/EarshotWhisper"]))
                == root + "/.earshot/models/whisper-tiny.en")
        #expect(
            WhisperModel.locate(
                explicitPath: nil, environment: [:], places: ModelSearch.repositoryPlaces(under: ["/nonexistent"]))
                == nil)
    }

    @Test func withoutAWhisperModelPocketSphinxTakesOverSayingSoInOneLine() throws {
        var notes: [String] = []
        let fallback = try RecognizerSelection.resolve(nil, environment: [:], places: []) {
            notes.append($0)
        }
        #expect(fallback.kind == .pocketsphinx && fallback.id == "pocketsphinx-en-us")
        #expect(notes.count == 1 && notes[0].hasPrefix("no Whisper model found, recognizing with PocketSphinx"))

        // A broken default model, found by the search, falls back saying why.
        let folders = try TemporaryDirectory()
        defer { folders.remove() }
        let directory = try brokenCopy { $0.prefix(1000) }
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: folders.file("models"), withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: directory.path, toPath: folders.file("models/whisper-tiny.en"))
        notes = []
        let broken = try RecognizerSelection.resolve(
            nil, environment: [:], places: [.init(folders.file("models"), .userData)]
        ) {
            notes.append($0)
        }
        #expect(broken.kind == .pocketsphinx)
        #expect(notes.count == 1 && notes[0].contains("model.bin: expected a CTranslate2 model file"), "\(notes)")
        #expect(notes.first?.hasSuffix("; recognizing with PocketSphinx instead") == true)

        // A model the user named — a typo, a folder without a model, a broken one — is an error naming
        // it (issue 51, item 2): a script must not get PocketSphinx's text with exit status 0.
        for (flag, variable) in [(directory.path, nil), (nil, directory.path), ("./typo", nil), (nil, folders.path)] {
            notes = []
            do {
                _ = try RecognizerSelection.resolve(
                    nil, whisperModel: flag, environment: variable.map { ["EARSHOT_WHISPER_MODEL": $0] } ?? [:],
                    places: []
                ) { notes.append($0) }
                Issue.record("\(flag ?? variable ?? ""): a named model that does not load fell back")
            } catch let error as EarshotError {
                #expect(error.code == .modelUnavailable)
                let named = flag.map { "--whisper-model \($0)" } ?? "EARSHOT_WHISPER_MODEL=\(variable!)"
                #expect(error.message.hasPrefix(named + ": not a Whisper model: "), "\(error.message)")
                #expect(notes.isEmpty, "\(notes)")
            }
        }

        #expect(throws: EarshotError.self, "asked for explicitly, a broken Whisper is an error") {
            try RecognizerSelection.resolve(.whisper, whisperModel: directory.path, environment: [:]) { _ in }
        }
        let found = try RecognizerSelection.resolve(
            nil, environment: [:], places: ModelSearch.repositoryPlaces(under: [WhisperFixtures.repository.path])
        ) {
            notes.append($0)
        }
        #expect(found.kind == .whisper && found.id == "whisper-tiny.en" && !found.supportsGrammars)
    }
}
