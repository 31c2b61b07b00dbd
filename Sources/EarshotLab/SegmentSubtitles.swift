public import EarshotRecognizer
import EarshotCore

/// Speech segments as subtitle cues, one cue a segment reading `label`, so a subtitle editor or a video
/// player shows where a detector heard speech (`earshot vad -o speech.srt`). Times to the millisecond.
public enum SegmentSubtitles {
    public static func cues(for segments: [LabeledSegment], label: String = "speech") -> [SubtitleCue] {
        segments.map {
            SubtitleCue(
                start: MediaTime(frame: Int64(($0.start * 1000).rounded()), sampleRate: 1000),
                end: MediaTime(frame: Int64(($0.end * 1000).rounded()), sampleRate: 1000), lines: [label])
        }
    }

    public static func srt(_ segments: [LabeledSegment]) -> String { SubtitleWriter.srt(cues(for: segments)) }

    public static func vtt(_ segments: [LabeledSegment]) -> String { SubtitleWriter.vtt(cues(for: segments)) }
}
