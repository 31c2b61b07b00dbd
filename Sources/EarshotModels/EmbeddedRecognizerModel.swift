import EarshotCore
public import EarshotRecognizer
public import EarshotWhisper
import Foundation

/// A recognizer model loaded once, from which a process makes as many recognizers as it needs (one
/// per worker, one per pooled service slot), all sharing the model's weights.
public struct EmbeddedRecognizerModel: Sendable {
    public enum Engine: Sendable {
        case whisper(WhisperModel, WhisperOptions)
        case pocketSphinx(PocketSphinxConfiguration)
    }

    public let engine: Engine
    /// The name of the custom language model this model uses, if any (see
    /// ``withCustomLanguageModel(_:named:weight:)``).
    public let customLanguageModelName: String?

    public init(_ engine: Engine) {
        self.engine = engine
        customLanguageModelName = nil
    }

    private init(_ engine: Engine, customLanguageModelName: String) {
        self.engine = engine
        self.customLanguageModelName = customLanguageModelName
    }

    /// This model with a custom language model (`earshot lm build`), named `name` (its id gains
    /// `+name`): PocketSphinx interpolates the model's trigrams with its own at `weight` (nil: the
    /// default) and adds its pronunciations; Whisper is prompted with its words, unless a prompt was
    /// set, does not decode the silence after the speech again (``WhisperOptions/skippedTail``), and is
    /// biased toward them by `vocabularyBonus` per token (nil: the default), in the order its
    /// phrases and templates give them (``WordOrder``).
    public func withCustomLanguageModel(
        _ model: CustomLanguageModel, named name: String, weight: Double? = nil, vocabularyBonus: Double? = nil
    ) throws -> EmbeddedRecognizerModel {
        switch engine {
        case .whisper(let whisper, var options):
            if options.initialPrompt == nil { options.initialPrompt = try model.biasingPrompt() }
            // A prompted Whisper says its prompt again in the silence after the speech.
            if options.skippedTail == nil { options.skippedTail = WhisperOptions.defaultSkippedTail }
            options.vocabulary = try model.vocabulary()
            options.vocabularyOrder = try model.data().wordOrder()
            if let vocabularyBonus { options.vocabularyBonus = vocabularyBonus }
            try options.validate()
            return EmbeddedRecognizerModel(.whisper(whisper, options), customLanguageModelName: name)
        case .pocketSphinx(var configuration):
            configuration.customLanguageModel = model
            if let weight { configuration.customLanguageModelWeight = weight }
            try configuration.validate()
            return EmbeddedRecognizerModel(.pocketSphinx(configuration), customLanguageModelName: name)
        }
    }

    public var kind: RecognizerKind {
        switch engine {
        case .whisper: .whisper
        case .pocketSphinx: .pocketsphinx
        }
    }

    /// The id clients name it by (OpenAI's `model`): `whisper-tiny.en`, `pocketsphinx-en-us` (after the
    /// acoustic model's folder), with `+name` for a custom language model (`whisper-tiny.en+chess`).
    public var id: String {
        let base =
            switch engine {
            case .whisper(let model, _): "whisper-" + model.name
            case .pocketSphinx(let configuration):
                "pocketsphinx-" + (configuration.acousticModel as NSString).lastPathComponent
            }
        return base + (customLanguageModelName.map { "+" + $0 } ?? "")
    }

    /// Whether its recognizers take SRGS grammars and PLS lexicons (Speech to Text Custom).
    public var supportsGrammars: Bool { kind == .pocketsphinx }

    /// ISO-639-1 codes of the languages it transcribes.
    public var languages: [String] {
        switch engine {
        case .whisper(let model, _):
            model.tokenizer.languages.map(\.code)
        case .pocketSphinx: ["en"]
        }
    }

    /// Refuses `code` unless this model transcribes it, naming the model and its languages
    /// (PocketSphinx's models here are English: `en` alone).
    public func requireLanguage(_ code: String) throws {
        switch engine {
        case .whisper(let model, _): try model.requireLanguage(code)
        case .pocketSphinx(let configuration):
            guard code != "en" else { return }
            throw EarshotError(
                .invalidParameter,
                "language '\(code)': PocketSphinx (\(configuration.acousticModel)) transcribes English only (en)")
        }
    }

    /// Refuses translation unless this model translates (a multilingual Whisper), naming the model.
    public func requireTask(_ task: WhisperTask) throws {
        switch engine {
        case .whisper(let model, _): try model.requireTask(task)
        case .pocketSphinx(let configuration):
            guard task == .translate else { return }
            throw EarshotError(
                .invalidParameter,
                "task translate: PocketSphinx (\(configuration.acousticModel)) transcribes English only; translating "
                    + "needs a multilingual Whisper model (`earshot models fetch whisper-base`)")
        }
    }

    /// Where its files are: the Whisper folder, or PocketSphinx's acoustic model.
    public var location: String {
        switch engine {
        case .whisper(let model, _): model.directory
        case .pocketSphinx(let configuration): configuration.acousticModel
        }
    }

    /// A new recognizer (PocketSphinx loads its model, about half a second; Whisper only allocates its
    /// buffers). Throws `.modelUnavailable` naming what is missing.
    public func makeRecognizer() throws -> any Recognizer {
        switch engine {
        case .whisper(let model, let options): try WhisperRecognizer(model: model, options: options)
        case .pocketSphinx(let configuration): try PocketSphinxRecognizer(configuration: configuration)
        }
    }

    /// A new recognizer that takes grammars, or nil when this engine takes none.
    public func makeGrammarRecognizer() throws -> (any GrammarRecognizer)? {
        guard case .pocketSphinx(let configuration) = engine else { return nil }
        return try PocketSphinxRecognizer(configuration: configuration)
    }
}
