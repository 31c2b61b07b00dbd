import EarshotCore
public import EarshotRecognizer

/// Speech segments as subtitle cues, one cue a segment reading `label`, so a subtitle editor or a video
/// player shows where a detector heard speech (`earshot vad -o speech.srt`). Times to the millisecond.
public enum SegmentSubtitles {
    public static func cues(for segments: [LabeledSegment], label: String = "speech") -> [SubtitleCue] {
        segments.map {
            SubtitleCue(start: $0.start, end: $0.end, lines: [label])
        }
    }

    public static func srt(_ segments: [LabeledSegment]) -> String { SubtitleWriter.srt(cues(for: segments)) }

    public static func vtt(_ segments: [LabeledSegment]) -> String { SubtitleWriter.vtt(cues(for: segments)) }
}
