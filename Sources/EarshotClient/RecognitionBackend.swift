public import EarshotCodecs
public import EarshotCore
import Foundation

/// What a recognition service heard in one utterance's audio; times in seconds from the audio's start.
public struct RecognitionReply: Sendable, Equatable, Codable {
    /// A timed stretch of text, from a service that times segments but not words.
    public struct Segment: Sendable, Equatable, Codable {
        public var start: Double
        public var end: Double
        public var text: String

        public init(start: Double, end: Double, text: String) {
            self.start = start
            self.end = end
            self.text = text
        }

        enum CodingKeys: String, CodingKey {
            case text
            case start = "start_s"
            case end = "end_s"
        }
    }

    /// The best hypothesis; empty when nothing was recognized.
    public var text: String
    public var confidence: Double?
    /// The words with their times, when the service gives them.
    public var words: [TimedWord]
    /// Segment times, when the service gives those but not word times.
    public var segments: [Segment]

    public init(text: String, confidence: Double? = nil, words: [TimedWord] = [], segments: [Segment] = []) {
        self.text = text
        self.confidence = confidence
        self.words = words
        self.segments = segments
    }
}

extension RecognitionReply {
    /// The reply as one line of JSON with sorted keys (`text`, `confidence` when given, `words` with
    /// times in seconds, `segments`): what `earshot listen --json` prints for a backend's answer.
    public func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

/// A recognition service as a transcriber sees it: one utterance's encoded audio in, a
/// ``RecognitionReply`` out, failures as ``SpeechClientError``s (so retries and reports treat every
/// protocol alike).
///
/// Two are built in: ``SpeechAPIBackend`` (the Speech API v3, as `earshot serve` and the SDK) and
/// ``OpenAITranscriptionClient`` (OpenAI's `/v1/audio/transcriptions`). A third protocol needs only a
/// type that encodes nothing itself — it is handed bytes in its ``audioFormat`` — and maps its
/// service's answer and errors to these two types.
public protocol RecognitionBackend: Sendable {
    /// The wire format the transcriber encodes each utterance in for this backend.
    var audioFormat: CodecFormat { get }
    /// Recognizes one utterance: `audio` encoded in ``audioFormat``, labelled `contentType`.
    func recognize(_ audio: [UInt8], contentType: String) async throws(SpeechClientError) -> RecognitionReply
}
