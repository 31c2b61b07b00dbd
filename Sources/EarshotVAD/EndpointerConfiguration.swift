import EarshotCore

/// When the ``Endpointer`` stops listening: the seed SDK's request properties (section 4.4.6 and
/// table 5-2), and optionally a rule set in the style of Kaldi's online endpointer.
///
/// Durations are seconds of media time. ``infiniteInterval`` (the SDK's
/// `ATTSpeechServiceInfiniteInterval`) disables `maxInitialSilence`, `endingSilence` and
/// `maxRecordingTime`; `minRecordingTime` is disabled by 0 instead. Values are checked at init: a
/// negative or NaN duration throws ``EarshotError/Code/invalidParameter`` naming the field.
///
/// Silence endpointing uses ``endpointRules``: when ``rules`` is empty, the one rule `endingSilence`
/// stands for (`EndpointRule(requiresSpeech: true, minTrailingSilence: endingSilence,
/// minUtteranceLength: 0)`); when rules are given they replace it, and `endingSilence` is not used.
/// Every rule measures trailing silence from where ``endingSilenceThreshold`` says speech ended.
public struct EndpointerConfiguration: Sendable, Hashable {
    /// The SDK's `ATTSpeechServiceInfiniteInterval`: as a duration, it disables the limit.
    public static let infiniteInterval: Double = .infinity

    /// The seed SDK's values, declared once: the initializer's defaults, and what the CLI's options
    /// show and use.
    public enum Defaults {
        public static let maxInitialSilence = 1.5
        public static let endingSilence = 0.85
        public static let minRecordingTime = 1.0
        public static let maxRecordingTime: Double = 25
        public static let cancelWhenSilent = true
        public static let endingSilenceThreshold: Float = 0
    }

    /// Without speech by this time after the start, the interaction ends (`initialSilenceTimeout`).
    /// Default 1.5 s.
    public let maxInitialSilence: Double
    /// Silence after speech that ends the utterance (`endingSilence`). Default 0.85 s.
    public let endingSilence: Double
    /// A manual stop earlier than this fails with `audioTooShort`, and no silence endpoint is taken
    /// before it, so at least this much audio is captured. 0 disables it; it cannot be infinite.
    /// Default 1.0 s.
    public let minRecordingTime: Double
    /// Capture stops here even while the user talks (`maxRecordingTime`). Default 25 s.
    public let maxRecordingTime: Double
    /// When no speech was heard, the interaction fails with `noAudio` instead of sending silence.
    /// Default true.
    public let cancelWhenSilent: Bool
    /// Rules that replace the `endingSilence` rule when not empty. Default none.
    public let rules: [EndpointRule]
    /// Measures ending silence on the detector's evidence rather than on the smoothed decisions, when
    /// above 0: trailing silence (for `endingSilence` and every rule) runs from the end of the last
    /// speech decision whose probability is at least this (or from the start of the speech run, if
    /// none of it was yet) up to, at each silence decision, the newest audio the smoother has seen
    /// (at a speech decision, to its end). Default 0: the SDK's
    /// behaviour, silence from the end of the last speech decision to the end of the newest decision.
    ///
    /// Smoothing paints as speech frames in which the detector no longer hears it — the hangover after
    /// the probability falls, the padding after each run, dips bridged inside a word — and holds
    /// silence back as possible padding before speech that may follow. Both postpone every silence
    /// endpoint (by ~0.13 s with Silero's 32 ms hop and the default smoothing), so an `endingSilence`
    /// of 0.85 s waits ~1 s. With a threshold, silence starts where the probability fell below it, and
    /// counts up to the audio the smoother has seen (what it holds back is silence as far as it knows,
    /// see ``VADDecision/decidedAt``); speech resuming still restarts the wait, and the segments and
    /// the speech events are the smoothed ones as before. The detectors' onset threshold, 0.5, is a
    /// good value: with it, endpoints on the real corpus land within ±100 ms of where a perfect VAD
    /// would put them for 16 of 19 utterances with Silero instead of 3 (README, "Endpointing on time").
    /// A threshold above the onset threshold means speech the detector was unsure of holds the wait off
    /// only from its start. Decisions with no probability of their own (from labels, or a detector
    /// that only says yes or no) carry 1 for speech, so for them only the look-ahead changes.
    public let endingSilenceThreshold: Float

    /// A validated configuration; every argument defaults to the seed SDK's value.
    public init(
        maxInitialSilence: Double = Defaults.maxInitialSilence,
        endingSilence: Double = Defaults.endingSilence,
        minRecordingTime: Double = Defaults.minRecordingTime,
        maxRecordingTime: Double = Defaults.maxRecordingTime,
        cancelWhenSilent: Bool = Defaults.cancelWhenSilent,
        rules: [EndpointRule] = [],
        endingSilenceThreshold: Float = Defaults.endingSilenceThreshold
    ) throws {
        try TuningParameter.maxInitialSilence.check(maxInitialSilence)
        try TuningParameter.endingSilence.check(endingSilence)
        try TuningParameter.minRecordingTime.check(minRecordingTime)
        try TuningParameter.maxRecordingTime.check(maxRecordingTime)
        try TuningParameter.endingSilenceThreshold.check(Double(endingSilenceThreshold))
        self.maxInitialSilence = maxInitialSilence
        self.endingSilence = endingSilence
        self.minRecordingTime = minRecordingTime
        self.maxRecordingTime = maxRecordingTime
        self.cancelWhenSilent = cancelWhenSilent
        self.rules = rules
        self.endingSilenceThreshold = endingSilenceThreshold
    }

    /// The rules the endpointer starts with: ``rules``, or when that is empty the `endingSilence` rule.
    public var endpointRules: [EndpointRule] {
        if !rules.isEmpty { return rules }
        // endingSilence was checked at init, so the rule is valid.
        return [EndpointRule(unchecked: true, minTrailingSilence: endingSilence, minUtteranceLength: 0)]
    }
}

/// One condition for ending on silence, after Kaldi's online endpointer rules.
///
/// A rule holds at a decision when speech has been seen (or the rule does not require it), the
/// trailing silence is at least ``minTrailingSilence``, and the utterance is at least
/// ``minUtteranceLength`` long. The endpoint fires when any rule holds. Trailing silence runs from the
/// end of the last speech (from the start while there has been none) to the end of the decision —
/// the last speech at or above ``EndpointerConfiguration/endingSilenceThreshold``, when one is set; the
/// utterance runs from the start of the first speech to the end of the decision, and is 0 before any
/// speech. So "end long utterances after shorter pauses" is two rules:
/// `(true, 1.0, 0)` and `(true, 0.5, 5.0)`.
///
/// Kaldi's rules also weigh the decoder's confidence, which a VAD does not have; a rule with
/// `minTrailingSilence` 0 fires even during speech, as Kaldi's length rule does.
public struct EndpointRule: Sendable, Hashable {
    /// Whether speech must have been heard for the rule to hold.
    public let requiresSpeech: Bool
    /// Seconds of trailing silence needed, ≥ 0 or infinite (the rule never holds).
    public let minTrailingSilence: Double
    /// Seconds of utterance needed, ≥ 0 or infinite (the rule never holds).
    public let minUtteranceLength: Double

    /// A validated rule: a negative or NaN duration throws ``EarshotError/Code/invalidParameter``
    /// naming the field.
    public init(requiresSpeech: Bool, minTrailingSilence: Double, minUtteranceLength: Double) throws {
        try ParameterCheck.duration(minTrailingSilence, "minTrailingSilence", allowsInfinity: true)
        try ParameterCheck.duration(minUtteranceLength, "minUtteranceLength", allowsInfinity: true)
        self.init(
            unchecked: requiresSpeech, minTrailingSilence: minTrailingSilence, minUtteranceLength: minUtteranceLength)
    }

    init(unchecked requiresSpeech: Bool, minTrailingSilence: Double, minUtteranceLength: Double) {
        self.requiresSpeech = requiresSpeech
        self.minTrailingSilence = minTrailingSilence
        self.minUtteranceLength = minUtteranceLength
    }
}
