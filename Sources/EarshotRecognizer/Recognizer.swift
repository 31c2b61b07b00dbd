public import EarshotCore

/// A speech recognizer fed audio incrementally, one utterance at a time.
///
/// Audio arrives as it is captured or uploaded (so a service can decode while the body still streams
/// in); `partialResult()` may be asked at any point; `endUtterance()` returns the final result. The
/// recognizer accepts only `format` (16 kHz mono for the embedded engine): resample before it.
/// Times in results are media times taken from the buffers fed, so a word's timestamp places it in
/// the original stream, not merely within the utterance.
///
/// A recognizer holds a decoder that is not thread-safe: use one per task.
public protocol Recognizer {
    /// The only format accepted by `accept(_:)`.
    var format: AudioFormat { get }

    /// Begins an utterance. Must precede `accept(_:)`; throws if one is already open.
    mutating func startUtterance() throws

    /// Decodes `buffer`, which must be in `format` and start where the previous buffer ended in media
    /// time; a gap or an overlap is rejected (it would misplace every later word).
    mutating func accept(_ buffer: AudioBuffer) throws

    /// Decodes the frames `frames` of `buffer` (their media time is `buffer.startFrame + frames.lowerBound`),
    /// as ``accept(_:)`` would a buffer holding just those: a long segment goes in in pieces, with a
    /// cancellation check between them, without a copy of each piece. The default copies the piece.
    mutating func accept(_ buffer: AudioBuffer, frames: Range<Int>) throws

    /// The best hypothesis so far, without ending the utterance; `nil` before any word is found.
    mutating func partialResult() throws -> RecognitionResult?

    /// Ends the utterance and returns its final result (an empty n-best list when nothing was said).
    mutating func endUtterance() throws -> RecognitionResult

    /// Ends the open utterance, if any, without a result — after an error, or when whoever wanted the
    /// result has gone — leaving the recognizer ready for the next. A recognizer should do no more of
    /// the final search than it must: a cancelled request is waiting for this before its recognizer
    /// can serve another. The default ends the utterance and drops the result.
    mutating func abandonUtterance()

    /// Options for the next utterance only (a request's language, prompt, temperature); a recognizer
    /// ignores what it cannot use (the default), and throws `.invalidParameter` for a value it cannot
    /// honour (a language it does not speak). Before ``startUtterance()`` or before the utterance ends.
    mutating func setRequestOptions(_ options: RecognitionRequestOptions) throws(RecognitionOptionRefusal)

    /// The speaker has paused: the speech ended at `speechEnd` (media time, on the detector's smoothed
    /// decisions), and the utterance may be over. A recognizer that decodes whole utterances (Whisper)
    /// may begin the final decode in the background, and give it at ``endUtterance()`` if nothing but
    /// silence follows — the endpointer's wait after the last word is dead time the decode can use.
    /// Called by whoever watches the stream's speech (the service's detector, a live client's
    /// endpointer), as soon as it sees the pause: the recognizer decides how much of the silence after
    /// `speechEnd` to wait for, so its words do not depend on how late the pause was seen. The default
    /// does nothing.
    mutating func speechPaused(at speechEnd: MediaTime)

    /// Whether ``speechPaused(at:)`` does anything: whether watching a stream for pauses is worth a
    /// detector's CPU. The default is false.
    var beginsFinalDecodeOnPause: Bool { get }

    /// Whether the open utterance's audio arrives at the speaker's pace (assumed until said otherwise):
    /// a recognizer may then decode partial results beside the stream, not on its reading, so that a
    /// pause is seen when it comes. Audio sent faster (a file uploaded at once) gets partial decodes in
    /// turn with its audio, or none would end before it does. The default does nothing.
    mutating func noteStreamPace(isLive: Bool)

    /// How the final decodes begun at pauses went, over the recognizer's life. The default is zero.
    var earlyDecodes: EarlyDecodeTally { get }

    /// Speech resumed after ``speechPaused(at:)``: a decode begun then is stopped and dropped, and the
    /// utterance goes on. The default does nothing.
    mutating func speechResumed()

    /// Forgets what the recognizer has learned of earlier audio (the channel: a running cepstral
    /// mean, say), so the next utterance decodes as on a freshly loaded recognizer: a service does
    /// this between requests, so one client's channel does not colour another's result. Between
    /// utterances only. A recognizer that adapts to nothing has nothing to forget (the default).
    mutating func resetAdaptation() throws
}

extension Recognizer {
    public mutating func resetAdaptation() throws {}

    public mutating func speechPaused(at speechEnd: MediaTime) {}

    public var beginsFinalDecodeOnPause: Bool { false }

    public var earlyDecodes: EarlyDecodeTally { EarlyDecodeTally() }

    public mutating func speechResumed() {}

    public mutating func noteStreamPace(isLive: Bool) {}

    /// Takes nothing; refuses a language but English and a translation: this recognizer hears English
    /// and writes what it hears (never a silent English decode of another language).
    public mutating func setRequestOptions(_ options: RecognitionRequestOptions) throws(RecognitionOptionRefusal) {
        if let language = options.language, language != "en" {
            throw RecognitionOptionRefusal(
                .language, "language '\(language)': this recognizer transcribes English only (en)")
        }
        if options.translate {
            throw RecognitionOptionRefusal(
                .translate, "translate: this recognizer transcribes English; it does not translate")
        }
    }

    public mutating func abandonUtterance() {
        _ = try? endUtterance()
    }

    public mutating func accept(_ buffer: AudioBuffer, frames: Range<Int>) throws {
        let channels = buffer.format.channelCount
        try accept(
            AudioBuffer(
                format: buffer.format,
                samples: Array(buffer.samples[frames.lowerBound * channels..<frames.upperBound * channels]),
                startFrame: buffer.startFrame + Int64(frames.lowerBound)))
    }
}

/// Final decodes a recognizer began at the speaker's pauses (``Recognizer/speechPaused(at:)``): how many
/// were begun, how many became the result, and how many returning speech stopped before they finished;
/// and how many final decodes had to be done again at full cost.
public struct EarlyDecodeTally: Sendable, Equatable {
    public var begun = 0
    public var used = 0
    public var stopped = 0
    /// Final decodes (begun at a pause or at the end) that ran on a shortened window and were done again
    /// on the whole one: for Whisper, a fitted encoder window that looped, was improbable, heard no speech
    /// or said nothing (the live answers that come late).
    public var redoneInFull = 0

    public init(begun: Int = 0, used: Int = 0, stopped: Int = 0, redoneInFull: Int = 0) {
        self.begun = begun
        self.used = used
        self.stopped = stopped
        self.redoneInFull = redoneInFull
    }

    /// What happened between two readings.
    public static func - (later: EarlyDecodeTally, earlier: EarlyDecodeTally) -> EarlyDecodeTally {
        EarlyDecodeTally(
            begun: later.begun - earlier.begun, used: later.used - earlier.used,
            stopped: later.stopped - earlier.stopped, redoneInFull: later.redoneInFull - earlier.redoneInFull)
    }
}

/// The outcome of recognizing one utterance: hypotheses, best first.
public struct RecognitionResult: Sendable, Equatable {
    /// Hypotheses, best first; empty when no speech was recognized.
    public var hypotheses: [Hypothesis]
    /// Media time of the first sample of the utterance.
    public var start: MediaTime
    /// Media time just after the last sample of the utterance.
    public var end: MediaTime
    /// Whether this is a partial result taken while audio was still arriving.
    public var isPartial: Bool
    /// The language the recognizer heard (ISO 639-1) and its probability (1 when it was given, not
    /// detected); nil from a recognizer that does not say.
    public var language: String?
    public var languageProbability: Double?

    public init(
        hypotheses: [Hypothesis], start: MediaTime, end: MediaTime, isPartial: Bool, language: String? = nil,
        languageProbability: Double? = nil
    ) {
        self.hypotheses = hypotheses
        self.start = start
        self.end = end
        self.isPartial = isPartial
        self.language = language
        self.languageProbability = languageProbability
    }

    /// The best hypothesis's text, or "" when nothing was recognized.
    public var text: String { hypotheses.first?.text ?? "" }
}

/// One way of reading the utterance.
public struct Hypothesis: Sendable, Equatable {
    /// The words, space-separated, without fillers or silence markers.
    public var text: String
    /// How sure the recognizer is of this reading, in [0, 1]: for the embedded engine, the mean of the
    /// words' posterior probabilities. `nil` in a partial result, where no posteriors exist yet.
    ///
    /// (The posterior of the whole word sequence is not used: it shrinks with every word, to ~0.0004
    /// for a 3 s sentence, and would say more about length than about accuracy.)
    public var confidence: Double?
    /// The words with their times in seconds of media time (the stream's clock, as ``RecognitionResult``'s
    /// `start` and `end`), each with its posterior; may be empty in a partial result.
    public var words: [TimedWord]

    public init(text: String, confidence: Double?, words: [TimedWord]) {
        self.text = text
        self.confidence = confidence
        self.words = words
    }
}
