import EarshotCore

/// How ``DecisionSmoother`` turns a detector's per-frame speech probabilities into speech and silence.
///
/// The steps, in order: hysteresis with ``hangover`` (causal), then gaps shorter than
/// ``minSilenceDuration`` are filled, then runs shorter than ``minSpeechDuration`` are dropped, then
/// what remains is padded by ``speechPadBefore`` and ``speechPadAfter``. Durations are seconds; the
/// smoother rounds each up to whole detector hops.
///
/// The defaults are Silero VAD's (`threshold` 0.5, `neg_threshold` = threshold − 0.15,
/// `min_speech_duration_ms` 250, `min_silence_duration_ms` 100, `speech_pad_ms` 30), so a user moving
/// from Silero gets the segments they expect; hangover (which Silero has not, and WebRTC's VAD has
/// built in) is short. Look-ahead costs latency: every endpoint is decided later by the delay these
/// settings add (see ``DecisionSmoother``), so the defaults keep it under 0.4 s (0.36 s at a 10 ms hop) in the worst case.
///
/// Every value is checked at init; an invalid one throws ``EarshotError/Code/invalidParameter`` with a
/// message naming the field.
public struct SmoothingConfiguration: Sendable, Hashable {
    /// Probability at or above which silence turns into speech. Default 0.5: a calibrated detector's
    /// even odds, and Silero's default.
    public let onsetThreshold: Float
    /// Probability below which speech turns into silence (after ``hangover``); ≤ ``onsetThreshold``.
    /// Default 0.35: the gap between the two keeps a probability hovering near one threshold from
    /// toggling the decision every frame.
    public let offsetThreshold: Float
    /// Speech runs shorter than this (after gap filling) are dropped as clicks and breaths. Default 0.25 s:
    /// shorter than a short word ("no" is ~0.3 s), longer than a door slam. Adds up to this much delay
    /// at each speech onset.
    public let minSpeechDuration: Double
    /// Silences shorter than this between two speech runs are filled: the pause inside a word or
    /// between close words. Default 0.1 s. Adds up to this much delay after each speech run.
    public let minSilenceDuration: Double
    /// Silence before each speech run that is counted as speech, so soft onsets (fricatives, plosive
    /// bursts) reach the recognizer. Default 0.03 s. Delays every decision made in silence by this much.
    public let speechPadBefore: Double
    /// Silence after each speech run that is counted as speech, for trailing consonants. Default 0.03 s.
    /// Adds no delay, but postpones each speech end, and hence each silence endpoint, by this much.
    public let speechPadAfter: Double
    /// How long speech continues after the probability falls below ``offsetThreshold``, decided
    /// without look-ahead. Default 0.05 s: bridges dips of a frame or few at word ends, as WebRTC's VAD
    /// does internally; kept short because it postpones each speech end by as much.
    public let hangover: Double

    /// The defaults documented on the properties, declared once: the initializer's, and what the CLI's
    /// options show.
    public enum Defaults {
        public static let onsetThreshold: Float = 0.5
        /// The onset threshold less this, when only the onset is given (Silero's rule).
        public static let offsetBelowOnset: Float = 0.15
        public static let offsetThreshold: Float = onsetThreshold - offsetBelowOnset
        public static let minSpeechDuration = 0.25
        public static let minSilenceDuration = 0.1
        public static let speechPadBefore = 0.03
        public static let speechPadAfter = 0.03
        public static let hangover = 0.05
    }

    /// A validated configuration; every argument defaults to the value documented on its property.
    public init(
        onsetThreshold: Float = Defaults.onsetThreshold,
        offsetThreshold: Float = Defaults.offsetThreshold,
        minSpeechDuration: Double = Defaults.minSpeechDuration,
        minSilenceDuration: Double = Defaults.minSilenceDuration,
        speechPadBefore: Double = Defaults.speechPadBefore,
        speechPadAfter: Double = Defaults.speechPadAfter,
        hangover: Double = Defaults.hangover
    ) throws {
        try TuningParameter.onsetThreshold.check(Double(onsetThreshold))
        try TuningParameter.offsetThreshold.check(Double(offsetThreshold))
        if offsetThreshold > onsetThreshold {
            throw ParameterCheck.invalid(
                "offsetThreshold", expected: "a probability ≤ onsetThreshold (\(onsetThreshold))",
                got: "\(offsetThreshold)")
        }
        // Durations must be finite (TuningParameter.range): each becomes look-ahead, and sizes the smoother's buffer.
        try TuningParameter.minSpeechDuration.check(minSpeechDuration)
        try TuningParameter.minSilenceDuration.check(minSilenceDuration)
        try TuningParameter.speechPadBefore.check(speechPadBefore)
        try TuningParameter.speechPadAfter.check(speechPadAfter)
        try TuningParameter.hangover.check(hangover)
        self.onsetThreshold = onsetThreshold
        self.offsetThreshold = offsetThreshold
        self.minSpeechDuration = minSpeechDuration
        self.minSilenceDuration = minSilenceDuration
        self.speechPadBefore = speechPadBefore
        self.speechPadAfter = speechPadAfter
        self.hangover = hangover
    }

    /// Plain hysteresis: no minimum durations, padding or hangover, so decisions are never delayed.
    public static func hysteresisOnly(onsetThreshold: Float = 0.5, offsetThreshold: Float = 0.35) throws
        -> SmoothingConfiguration
    {
        try SmoothingConfiguration(
            onsetThreshold: onsetThreshold, offsetThreshold: offsetThreshold, minSpeechDuration: 0,
            minSilenceDuration: 0, speechPadBefore: 0, speechPadAfter: 0, hangover: 0)
    }
}
