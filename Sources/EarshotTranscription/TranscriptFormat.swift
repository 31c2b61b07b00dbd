import EarshotCore
public import EarshotRecognizer
import Foundation

/// The ways a transcript is written: one segment model, four writers.
public enum TranscriptFormat: String, Sendable, CaseIterable {
    /// Plain text, one line per segment that has words.
    case text
    /// A JSON document (``TranscriptDocument``): segments and words with times and confidences.
    case json
    /// SubRip subtitles.
    case srt
    /// WebVTT subtitles.
    case vtt

    /// The usual file name extension: `txt`, `json`, `srt`, `vtt`.
    public var fileExtension: String { self == .text ? "txt" : rawValue }

    /// Whether one output can hold several recordings in this format (subtitles cannot).
    public var holdsSeveralRecordings: Bool { self == .text || self == .json }

    /// `transcript` in this format. `parameters` go into JSON; `layout` shapes subtitles. With
    /// `compact`, JSON is one line (for a stream of documents, one per recording).
    public func render(
        _ transcript: Transcript, parameters: TranscriptParameters, layout: SubtitleLayout = SubtitleLayout(),
        compact: Bool = false
    ) throws -> String {
        switch self {
        case .text:
            return transcript.segments.map(\.text).filter { !$0.isEmpty }.map { $0 + "\n" }.joined()
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting =
                compact
                ? [.sortedKeys, .withoutEscapingSlashes] : [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let document = TranscriptDocument(transcript, parameters: parameters)
            return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
        case .srt:
            return SubtitleWriter.srt(layout.cues(for: transcript.words, speech: transcript.speech))
        case .vtt:
            return SubtitleWriter.vtt(layout.cues(for: transcript.words, speech: transcript.speech))
        }
    }
}
