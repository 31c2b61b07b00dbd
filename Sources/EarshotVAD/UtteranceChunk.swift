public import EarshotCore

/// One segment of a long recording, as ``UtteranceChunker`` cut it: its audio, placed at its media time,
/// and why it ends where it does.
public struct UtteranceChunk: Sendable {
    /// Why a segment ends where it does.
    public enum Cut: String, Sendable, Hashable, Codable {
        /// At the quietest 10 ms of a pause the VAD found.
        case pause
        /// In speech, at the middle of the quietest stretch: the segment had no pause at all.
        case noPause = "no-pause"
        /// The recording ended.
        case endOfInput = "end-of-input"
    }

    /// The segment's samples; `audio.startFrame` is its media time in the whole recording.
    public var audio: AudioBuffer
    /// Why the segment ends here.
    public var cut: Cut
    /// The runs of the segment the smoothed VAD judged speech, in media time, clipped to the segment.
    public var speech: [Range<MediaTime>]

    public init(audio: AudioBuffer, cut: Cut, speech: [Range<MediaTime>]) {
        self.audio = audio
        self.cut = cut
        self.speech = speech
    }

    /// Seconds of the segment the VAD judged speech.
    public var speechSeconds: Double { speech.reduce(0) { $0 + $1.upperBound.seconds - $1.lowerBound.seconds } }

    /// Media time of the first sample.
    public var start: MediaTime { audio.startTime }
    /// Media time just after the last sample.
    public var end: MediaTime { audio.endTime }
    /// Whether the VAD heard any speech in it: a segment without is not worth a recognizer's time.
    public var containsSpeech: Bool { !speech.isEmpty }
}
