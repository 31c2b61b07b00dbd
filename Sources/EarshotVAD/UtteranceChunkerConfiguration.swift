import EarshotCore

/// How ``UtteranceChunker`` cuts a long recording into recognizer requests.
///
/// A segment never exceeds ``maxSegmentDuration`` (the seed SDK's `maxRecordingTime`, 25 s: a service
/// refuses longer requests). Inside the window a segment may end in — from ``minSegmentDuration`` to
/// ``maxSegmentDuration`` after its start — the chunker cuts in the longest pause the VAD found, at the
/// quietest 10 ms of that pause. Only if the window holds no pause does it look for one earlier in
/// the segment; only if the segment holds none at all (a speaker who never pauses for 25 s) does it
/// cut at the middle of the quietest ``fallbackWindow`` of the window.
///
/// Every value is checked at init; an invalid one throws ``EarshotError/Code/invalidParameter`` naming
/// the field.
public struct UtteranceChunkerConfiguration: Sendable, Hashable {
    /// The longest segment, in seconds. Default 25 s, the seed SDK's `maxRecordingTime`.
    public let maxSegmentDuration: Double
    /// A pause is preferred only if cutting in it leaves a segment at least this long. Default 5 s:
    /// shorter segments give the recognizer's language model less context and cost one request each,
    /// and with pauses every few seconds in ordinary speech, the longest pause of a 5–25 s window is
    /// nearly always a sentence break. Pauses earlier than this are still used before any cut in speech.
    /// 0 lets the longest pause win wherever it is.
    public let minSegmentDuration: Double
    /// When a segment holds no pause, the length of the quietest stretch whose middle is cut. Default
    /// 0.2 s: about a syllable, so the cut falls between syllables rather than inside a vowel.
    public let fallbackWindow: Double
    /// The detector that finds pauses. Default ``DetectorKind/silero`` when ``models`` holds its model,
    /// else ``DetectorKind/spectral``, the most accurate classical detector in noise.
    public let detector: DetectorKind
    /// The models a learned detector needs (loaded once by the caller). Default none.
    public let models: DetectorModels
    /// How the detector's probabilities become speech and pauses. Default: ``SmoothingConfiguration``'s
    /// defaults, whose 0.1 s minimum silence means a pause is at least 0.1 s long.
    public let smoothing: SmoothingConfiguration

    /// A validated configuration; every argument defaults to the value documented on its property.
    public init(
        maxSegmentDuration: Double = 25, minSegmentDuration: Double = 5, fallbackWindow: Double = 0.2,
        detector: DetectorKind? = nil, models: DetectorModels = .none, smoothing: SmoothingConfiguration? = nil
    ) throws {
        // The window must hold at least the fallback stretch, and a 10 ms hop, so a cut always exists.
        if !(maxSegmentDuration.isFinite && maxSegmentDuration >= 0.5) {
            throw ParameterCheck.invalid(
                "maxSegmentDuration", expected: "a finite duration ≥ 0.5 s", got: maxSegmentDuration)
        }
        if !(minSegmentDuration >= 0 && minSegmentDuration < maxSegmentDuration) {
            throw ParameterCheck.invalid(
                "minSegmentDuration",
                expected:
                    "a duration ≥ 0 s and < maxSegmentDuration (\(ParameterCheck.describe(maxSegmentDuration)) s)",
                got: minSegmentDuration)
        }
        if !(fallbackWindow > 0 && fallbackWindow <= maxSegmentDuration) {
            throw ParameterCheck.invalid(
                "fallbackWindow",
                expected:
                    "a duration > 0 s and ≤ maxSegmentDuration (\(ParameterCheck.describe(maxSegmentDuration)) s)",
                got: fallbackWindow)
        }
        self.maxSegmentDuration = maxSegmentDuration
        self.minSegmentDuration = minSegmentDuration
        self.fallbackWindow = fallbackWindow
        self.detector = detector ?? (models.silero == nil ? .spectral : .silero)
        self.models = models
        self.smoothing = try smoothing ?? SmoothingConfiguration()
    }
}
