public import EarshotCore
public import EarshotRecognizer
public import EarshotVAD

/// One segment of a recording and what the recognizer made of it.
public struct TranscribedSegment: Sendable, Equatable {
    /// Media time of the segment's first sample, in the whole recording.
    public var start: MediaTime
    /// Media time just after its last sample.
    public var end: MediaTime
    /// Why the chunker ended the segment there.
    public var cut: UtteranceChunk.Cut
    /// The runs of it the VAD judged speech.
    public var speech: [Range<MediaTime>]
    /// The recognizer's result, or nil when the segment held no speech and was not sent.
    public var result: RecognitionResult?

    public init(
        start: MediaTime, end: MediaTime, cut: UtteranceChunk.Cut, speech: [Range<MediaTime>],
        result: RecognitionResult?
    ) {
        self.start = start
        self.end = end
        self.cut = cut
        self.speech = speech
        self.result = result
    }

    /// Seconds of it the VAD judged speech.
    public var speechSeconds: Double { speech.reduce(0) { $0 + $1.upperBound.seconds - $1.lowerBound.seconds } }
    /// The best hypothesis's text ("" when nothing was recognized or sent).
    public var text: String { result?.text ?? "" }
    /// The best hypothesis's words, in media time.
    public var words: [TimedWord] { result?.hypotheses.first?.words ?? [] }
}

/// A whole recording transcribed: its segments in media-time order.
public struct Transcript: Sendable, Equatable {
    public var recording: InputDescription
    /// Seconds of audio read (after resampling), which is the recording's length.
    public var duration: Double
    /// Segments in media-time order, tiling the recording.
    public var segments: [TranscribedSegment]

    public init(recording: InputDescription, duration: Double, segments: [TranscribedSegment]) {
        self.recording = recording
        self.duration = duration
        self.segments = segments
    }

    /// Every recognized word, in media-time order.
    public var words: [TimedWord] { segments.flatMap(\.words) }
    /// Every run of speech the VAD found, in media-time order.
    public var speech: [Range<MediaTime>] { segments.flatMap(\.speech) }
    /// The texts of the segments that have one, joined by spaces.
    public var text: String { segments.map(\.text).filter { !$0.isEmpty }.joined(separator: " ") }
}
