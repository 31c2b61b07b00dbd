public import EarshotModels
public import EarshotRecognizer

/// The service's recognizers: one bounded ``RecognizerPool`` per model it serves, made through the
/// model's factory. The first model is the default (the Speech API's speechToText, and OpenAI's
/// `whisper-1`); Speech to Text Custom goes to the first model whose recognizers take grammars.
public struct RecognizerPools: Sendable {
    public struct Entry: Sendable {
        public let model: EmbeddedRecognizerModel
        public let pool: RecognizerPool
    }

    /// The model name OpenAI's clients send, taken for the default model.
    public static let openAIModelName = "whisper-1"

    public let entries: [Entry]
    /// The bound on recognitions at once over every pool (`--recognizers`).
    public let slots: RecognitionSlots

    /// One pool for each of `models` (at least one), `capacity` recognitions at once over all of them;
    /// `loadDefault`, when given, makes the default model's recognizers instead of its factory (tests
    /// put a recorder there).
    public init(models: [EmbeddedRecognizerModel], capacity: Int, loadDefault: RecognizerPool.Load? = nil) {
        precondition(!models.isEmpty, "a service needs at least one recognizer model")
        let slots = RecognitionSlots(limit: capacity)
        self.slots = slots
        var entries: [Entry] = []
        for (index, model) in models.enumerated() {
            let load: RecognizerPool.Load
            if index == 0, let loadDefault {
                load = loadDefault
            } else {
                load = { try model.makeRecognizer() }
            }
            entries.append(Entry(model: model, pool: RecognizerPool(capacity: capacity, slots: slots, load: load)))
        }
        self.entries = entries
    }

    /// The default model's.
    public var primary: Entry { entries[0] }

    /// The first model whose recognizers take grammars and lexicons, if any.
    public var grammar: Entry? { entries.first { $0.model.supportsGrammars } }

    /// The model a client names: an id, or OpenAI's model name for the default (`whisper-1+NAME` for
    /// the default with the custom language model NAME).
    public func entry(named id: String) -> Entry? {
        if id == Self.openAIModelName { return primary }
        if id.hasPrefix(Self.openAIModelName + "+") {
            let wanted = primary.model.id + id.dropFirst(Self.openAIModelName.count)
            return entries.first { $0.model.id == wanted }
        }
        return entries.first { $0.model.id == id }
    }

    /// `base` with the custom language model `name` (the Speech API's `X-Arg: LanguageModel=NAME`).
    public func entry(_ base: Entry, languageModel name: String) -> Entry? {
        entries.first { $0.model.id == base.model.id + "+" + name }
    }

    /// The names of the custom language models served (`serve --language-model NAME=DIR`).
    public var languageModelNames: [String] {
        var seen: [String] = []
        for name in entries.compactMap(\.model.customLanguageModelName) where !seen.contains(name) { seen.append(name) }
        return seen
    }

    /// The ids clients may name, the default's first.
    public var modelIDs: [String] { entries.map(\.model.id) }

    /// Recognitions under way now, and the most that may be, over every pool.
    public var busyCount: Int { slots.inUse }
    public var capacity: Int { slots.limit }

    /// The languages some model transcribes.
    public var languages: [String] {
        var seen: [String] = []
        for code in entries.flatMap(\.model.languages) where !seen.contains(code) { seen.append(code) }
        return seen
    }
}
