import EarshotCore
import EarshotRecognizer
import EarshotWire
import Foundation

/// The answer to an OpenAI transcription request in the `response_format` it asked for: `json`
/// (`{"text"}`), `text`, `srt`, `vtt`, or `verbose_json` (language, duration, segments and, with
/// `timestamp_granularities[]=word`, words).
///
/// Segments are the recognized words grouped as subtitle cues (``SubtitleLayout``'s defaults: at a
/// pause over 1 s, or past two lines of 42 characters or 7 s), so `srt`, `vtt` and `verbose_json`
/// agree on where each segment starts and ends. Whisper fields Earshot has no counterpart for
/// (`tokens`, `compression_ratio`, `no_speech_prob`) are left out rather than invented;
/// `avg_logprob` is the mean log posterior of the segment's words, `seek` its start in 10 ms frames.
struct TranscriptionResponse {
    let result: RecognitionResult
    /// Seconds of audio in the request.
    let duration: Double
    let options: TranscriptionOptions

    typealias Segment = OpenAITranscription.Segment
    typealias Word = OpenAITranscription.Word
    typealias Verbose = OpenAITranscription.Verbose
    typealias Plain = OpenAITranscription.Plain

    /// The body and its media type.
    func rendered() throws -> (body: Data, contentType: String) {
        let words = result.hypotheses.first?.words ?? []
        let cues = SubtitleLayout().cues(for: words)
        switch options.responseFormat {
        case .json:
            return (try Self.encoder.encode(Plain(text: result.text)), "application/json")
        case .text:
            return (Data((result.text + "\n").utf8), "text/plain; charset=utf-8")
        case .srt:
            return (Data(SubtitleWriter.srt(cues).utf8), "application/x-subrip")
        case .vtt:
            return (Data(SubtitleWriter.vtt(cues).utf8), "text/vtt; charset=utf-8")
        case .verboseJSON:
            let granularities = options.granularities.isEmpty ? [.segment] : options.granularities
            // The language heard (a multilingual model's detection, or the one asked for), by name.
            var document = Verbose(
                task: options.translate ? "translate" : "transcribe",
                language: result.language.flatMap(LanguageNames.name) ?? "english", duration: Self.rounded(duration),
                text: result.text)
            if granularities.contains(.segment) {
                document.segments = segments(cues, words: words)
            }
            if granularities.contains(.word) {
                document.words = words.map {
                    Word(word: $0.word, start: Self.rounded($0.start), end: Self.rounded($0.end))
                }
            }
            return (try Self.encoder.encode(document), "application/json")
        }
    }

    private func segments(_ cues: [SubtitleCue], words: [TimedWord]) -> [Segment] {
        cues.enumerated().map { index, cue in
            let inside = words.filter { $0.start >= cue.start && $0.end <= cue.end }
            let logs = inside.map { log(max($0.confidence ?? 0, 1e-10)) }
            return Segment(
                id: index, seek: Int((cue.start * 100).rounded()), start: Self.rounded(cue.start),
                end: Self.rounded(cue.end), text: " " + inside.map(\.word).joined(separator: " "),
                temperature: options.temperature,
                avgLogprob: logs.isEmpty ? 0 : Self.rounded(logs.reduce(0, +) / Double(logs.count)))
        }
    }

    private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    private static let encoder = JSONEncoder.wire
}
