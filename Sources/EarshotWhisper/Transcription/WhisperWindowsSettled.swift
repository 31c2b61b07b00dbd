/// The first windows of an audio stream, transcribed while the stream goes on: where the next window
/// begins, and what the windows before it leave to the next one (its prompt, the end of the last word,
/// the language). ``WhisperTranscriber/transcribe(_:options:isCancelled:after:settlingOnly:)`` starts
/// from it, so a live utterance longer than one window has its finished windows decoded while the
/// speaker goes on, and only the last is left when they stop: the windows, prompts and times of one
/// decode of the whole audio.
public struct WhisperWindowsSettled: Sendable, Equatable {
    /// The segments of the settled windows, times from the audio's first sample.
    public var segments: [WhisperSegment] = []
    /// The mel frame (10 ms) the next window begins at.
    var seek = 0
    /// The text tokens the next window is prompted with: those since the last prompt reset.
    var prompt: [Int] = []
    /// The end of the last word with a time, in seconds (word timestamps place the next window's by it).
    var lastSpeech = 0.0
    /// The language the first window was decoded in.
    var language: WhisperLanguage?

    public init() {}

    /// The samples (16 kHz) the settled windows cover.
    public var samples: Int { seek * 160 }
}
