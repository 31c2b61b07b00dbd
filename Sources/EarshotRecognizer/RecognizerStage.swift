public import EarshotCore

/// Runs a whole stream through a recognizer as one utterance: the final stage of a transcription chain.
///
/// Input: buffers in the recognizer's `format` (16 kHz mono for PocketSphinx; put a resampler in
/// front otherwise), contiguous in media time. Output: nothing while audio arrives, then one final
/// ``RecognitionResult`` at `finish`. It adds no latency of its own beyond holding the result to the
/// end; callers who want partial results ask `recognizer.partialResult()` between buffers.
public struct RecognizerStage<R: Recognizer>: AudioStage {
    public typealias Input = AudioBuffer
    public typealias Output = RecognitionResult

    /// The recognizer, exposed so callers can ask for partial results between buffers.
    public var recognizer: R
    private var isOpen = false

    public init(recognizer: R) {
        self.recognizer = recognizer
    }

    /// Begins the utterance now rather than at the first buffer, for callers that may ask
    /// `recognizer.partialResult()` before any audio has come.
    public mutating func open() throws {
        guard !isOpen else { return }
        try recognizer.startUtterance()
        isOpen = true
    }

    public mutating func process(_ input: AudioBuffer, into output: inout StageOutput<RecognitionResult>) throws {
        // Opened lazily so that building a chain does not touch the decoder.
        try open()
        try recognizer.accept(input)
    }

    public mutating func finish(into output: inout StageOutput<RecognitionResult>) throws {
        // An empty stream still yields a result (with no hypotheses), so every run produces exactly one.
        if !isOpen {
            try recognizer.startUtterance()
        }
        isOpen = false
        output.emit(try recognizer.endUtterance())
    }
}
