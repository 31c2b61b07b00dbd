/// The names of the Speech API's `X-Arg` header entries that Earshot's client sends and its service
/// reads, declared once for both sides.
public enum SpeechArgumentName {
    /// A custom language model the service serves, by name: `listen --language-model NAME` sends it,
    /// `serve --language-model NAME=DIR` answers to it.
    public static let languageModel = "LanguageModel"
    /// The Text to Speech voice (the seed's `VoiceName`).
    public static let voiceName = "VoiceName"
    /// `Task=translate`: English text whatever the language spoken (a multilingual Whisper model).
    public static let task = "Task"
}
