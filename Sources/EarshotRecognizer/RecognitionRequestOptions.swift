/// What a request may ask of a recognizer beyond its audio, by the names OpenAI's transcription API
/// gives them: the language spoken, a prompt (the text before the audio, or words and spellings to
/// expect), and a sampling temperature; and whether to translate into English (OpenAI's translations
/// endpoint). A recognizer takes what it can use (Whisper all of them) and ignores the rest, except a
/// translation, which a recognizer that cannot translate refuses; each applies to the next utterance
/// only.
public struct RecognitionRequestOptions: Sendable, Equatable {
    /// An ISO-639-1 code (`en`), or nil to let the recognizer decide.
    public var language: String?
    /// Text that primes the recognizer.
    public var prompt: String?
    /// 0 for the most likely reading, up to 1 for more varied ones; nil for the recognizer's default.
    public var temperature: Double?
    /// English text whatever the language spoken.
    public var translate: Bool

    public init(language: String? = nil, prompt: String? = nil, temperature: Double? = nil, translate: Bool = false) {
        self.language = language
        self.prompt = prompt
        self.temperature = temperature
        self.translate = translate
    }

    /// No options: the recognizer's defaults.
    public static let none = RecognitionRequestOptions()
}

/// A recognizer's refusal of one of a request's options: which option, and why. Each protocol names the
/// field the option came in (the Speech API's `Content-Language`, OpenAI's `language`), so the option is
/// part of the error rather than read back from its message.
public struct RecognitionOptionRefusal: Error, Sendable, CustomStringConvertible {
    public enum Option: Sendable, Equatable {
        case language, prompt, temperature, translate
    }

    public var option: Option
    /// Why, naming the value and the recognizer (`language 'fr': … transcribes English only (en)`).
    public var message: String

    public init(_ option: Option, _ message: String) {
        self.option = option
        self.message = message
    }

    public var description: String { message }
}
