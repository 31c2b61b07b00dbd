/// A word and where it was spoken, in seconds from the start of its audio, with the confidence its
/// source gives, if any (a recognizer's posterior, Whisper's probability): the one timed word of every
/// stage that times words — a corpus's labels, a forced alignment, Whisper's words, a service's reply.
///
/// Encoded as the corpus manifest writes words: `{"word": …, "start_s": …, "end_s": …}`, with
/// `confidence` when there is one. (Documents with another layout, such as OpenAI's JSON or
/// `transcribe --format json`, have their own Codable types built from it.)
public struct TimedWord: Sendable, Equatable, Codable {
    public var word: String
    public var start: Double
    public var end: Double
    /// In [0, 1], when the source gives one.
    public var confidence: Double?

    public init(word: String, start: Double, end: Double, confidence: Double? = nil) {
        self.word = word
        self.start = start
        self.end = end
        self.confidence = confidence
    }

    enum CodingKeys: String, CodingKey {
        case word, confidence
        case start = "start_s"
        case end = "end_s"
    }
}
