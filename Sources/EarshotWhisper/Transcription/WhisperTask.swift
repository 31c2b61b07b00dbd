/// What Whisper writes: the speech in its own language, or in English whatever the language spoken
/// (openai/whisper's and faster-whisper's `task`). Only a multilingual model translates.
public enum WhisperTask: String, Sendable, CaseIterable {
    case transcribe
    case translate
}
