import EarshotCodecs
import EarshotCore
public import EarshotWire
import Foundation

extension OpenAITranscriptionClient: RecognitionBackend {
    /// Posts the utterance as one file and reads `verbose_json`: word times where the server gives
    /// them, else its segments' times. OpenAI's API has no word confidence.
    public func recognize(_ audio: [UInt8], contentType: String) async throws(SpeechClientError) -> RecognitionReply {
        let reply = try await transcribe(
            audio, fileName: "segment." + audioFormat.fileExtension, contentType: contentType)
        return Self.reply(reply)
    }

    /// A `verbose_json` answer as a reply: its text (whitespace normalized), words and segments.
    public static func reply(_ verbose: OpenAITranscription.Verbose) -> RecognitionReply {
        RecognitionReply(
            text: verbose.text.split(whereSeparator: \.isWhitespace).joined(separator: " "),
            words: (verbose.words ?? []).map {
                .init(word: $0.word.trimmingCharacters(in: .whitespaces), start: $0.start, end: $0.end)
            },
            segments: (verbose.segments ?? []).map { .init(start: $0.start, end: $0.end, text: $0.text) })
    }
}
