import EarshotCore
import Foundation

/// Speech segments as a NeMo manifest (JSON Lines): one object per segment with `audio_filepath`,
/// `offset` and `duration` in seconds, as NeMo's ASR datasets and `transcribe_speech.py` read a segment
/// of a longer recording.
///
/// NeMo's manifest reader requires an audio key (`audio_filepath`) and `duration` on every line, takes
/// `offset` when present, and joins a relative path that has a folder to the manifest's own folder, so
/// the writer is given absolute paths. `text` is left out: it is the reference transcript, which a VAD
/// does not know (NeMo reads a missing one as "").
public enum NeMoManifest {
    /// One line per segment, in the order given; numbers to the millisecond.
    public static func text(for segments: [LabeledSegment], audioPath: String) throws -> String {
        let encoder = OrderedJSONEncoder()
        return try segments.map { segment in
            // Both from the millisecond-rounded bounds, so offset + duration is the rounded end.
            let start = Int((segment.start * 1000).rounded()), end = Int((segment.end * 1000).rounded())
            let line = Line(
                audioFilepath: audioPath, offset: Double(start) / 1000, duration: Double(end - start) / 1000)
            return try encoder.string(line) + "\n"
        }.joined()
    }

    private struct Line: Encodable {
        let audioFilepath: String
        let offset: Double
        let duration: Double

        enum CodingKeys: String, CodingKey { case audioFilepath = "audio_filepath", offset, duration }

        func encode(to encoder: any Encoder) throws {
            var line = encoder.container(keyedBy: CodingKeys.self)
            try line.encode(audioFilepath, forKey: .audioFilepath)
            try line.encode(offset, forKey: .offset)
            try line.encode(duration, forKey: .duration)
        }
    }
}
