/// What a request may ask of a recognizer beyond its audio, by the names OpenAI's transcription API
/// gives them: the language spoken, a prompt (the text before the audio, or words and spellings to
/// expect), and a sampling temperature. A recognizer takes what it can use (Whisper all three) and
/// ignores the rest; each applies to the next utterance only.
public struct RecognitionRequestOptions: Sendable, Equatable {
    /// An ISO-639-1 code (`en`), or nil to let the recognizer decide.
    public var language: String?
    /// Text that primes the recognizer.
    public var prompt: String?
    /// 0 for the most likely reading, up to 1 for more varied ones; nil for the recognizer's default.
    public var temperature: Double?

    public init(language: String? = nil, prompt: String? = nil, temperature: Double? = nil) {
        self.language = language
        self.prompt = prompt
        self.temperature = temperature
    }

    /// No options: the recognizer's defaults.
    public static let none = RecognitionRequestOptions()
}
