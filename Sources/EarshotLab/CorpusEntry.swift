public import EarshotCore

/// One labelled recording of a corpus: one line of its `manifest.jsonl`.
///
/// A line reads, with keys in this order (the writer sorts nothing else, so rebuilt manifests are
/// byte-identical):
///
/// ```json
/// {"schema_version":1,"path":"voices/m3-001.wav","duration_s":7.25,
///  "speech":[{"start_s":0.5,"end_s":2.125},{"start_s":2.875,"end_s":5.0}],
///  "transcript":"go forward ten meters","words":[{"word":"go","start_s":0.5,"end_s":0.71}],
///  "tags":{"licence":"GPL-3.0-or-later","noise":"pink","snr_db":"10","source":"espeak-ng","voice":"en-us+m3"}}
/// ```
///
/// Times are seconds from the start of the file. Each file is one utterance for the endpointing
/// metrics: its labelled end of speech is the end of its last segment.
public struct CorpusEntry: Sendable, Equatable, Codable {
    /// The audio file, relative to the corpus folder.
    public var path: String
    /// The duration of the audio, in seconds.
    public var duration: Double
    /// Labelled speech, sorted, non-overlapping, within [0, duration].
    public var speech: [LabeledSegment]
    /// What is said, if known.
    public var transcript: String?
    /// Word-level labels, if known (forced alignment or synthesis).
    public var words: [TimedWord]?
    /// Free-form tags: `source`, `licence`, `voice`, `noise`, `snr_db`, …
    public var tags: [String: String]

    public init(
        path: String, duration: Double, speech: [LabeledSegment], transcript: String? = nil,
        words: [TimedWord]? = nil, tags: [String: String] = [:]
    ) {
        self.path = path
        self.duration = duration
        self.speech = speech
        self.transcript = transcript
        self.words = words
        self.tags = tags
    }

    /// The labelled end of speech (end of the last segment), or nil for a file with no speech.
    public var speechEnd: Double? { speech.last?.end }

    enum CodingKeys: String, CodingKey {
        case path
        case duration = "duration_s"
        case speech, transcript, words, tags
    }
}

/// A stretch of labelled speech, in seconds.
public struct LabeledSegment: Sendable, Equatable, Hashable, Codable {
    public var start: Double
    public var end: Double

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    public var duration: Double { end - start }

    enum CodingKeys: String, CodingKey {
        case start = "start_s"
        case end = "end_s"
    }
}

