public import EarshotCore

/// A frame-level speech detector: takes fixed-length frames of mono audio at one sample rate and
/// returns, for each, the probability that it holds speech.
///
/// Frames are laid on the stream at a fixed hop. Frame *i* **decides** the `hopLength` samples
/// `[i·hop, (i+1)·hop)`; to do so the detector looks at the `frameLength` samples that end
/// `lookAhead` samples after that slice, i.e. `[(i+1)·hop + lookAhead − frameLength, (i+1)·hop + lookAhead)`
/// (zeros before the start of the stream). A causal detector has `lookAhead == 0`; a detector with
/// look-ahead delays every decision by that many samples, which the endpointer accounts for.
/// ``VADStage`` does the framing, so detectors only see whole frames.
///
/// Detectors are configured for one sample rate at creation and fail then, naming the field, if they
/// cannot run at it. A learned detector can be added behind this same protocol.
public protocol VoiceActivityDetector {
    /// A short stable name (`energy`, `spectral`, `speex`), used by the CLI's `--detector`.
    var name: String { get }
    /// The sample rate the detector was configured for.
    var sampleRate: Int { get }
    /// Samples in one analysis frame (≥ `hopLength`).
    var frameLength: Int { get }
    /// Samples between the starts of successive frames: the slice each probability decides.
    var hopLength: Int { get }
    /// Samples of audio after the decided slice that the detector needs (0 for causal detectors).
    var lookAhead: Int { get }

    /// The probability in [0, 1] that the decided slice of `frame` is speech. `frame.count == frameLength`.
    mutating func probability(of frame: UnsafeBufferPointer<Float>) -> Float

    /// Forgets all adaptation (noise estimates, history), as if newly created.
    mutating func reset()
}

/// One detector decision on the stream: the slice of audio it covers and its speech probability.
public struct VADFrame: Sendable, Equatable {
    /// The first sample this frame decides.
    public var start: MediaTime
    /// How many samples it decides (the detector's hop).
    public var frameCount: Int
    /// The speech probability in [0, 1].
    public var probability: Float

    public init(start: MediaTime, frameCount: Int, probability: Float) {
        self.start = start
        self.frameCount = frameCount
        self.probability = probability
    }

    /// The first sample after the slice this frame decides.
    public var end: MediaTime { start.advanced(by: Int64(frameCount)) }
}

/// A smoothed speech/non-speech decision on one slice of the stream, and when it could be made.
///
/// Smoothing (minimum durations, padding) needs to see past a slice before deciding it, so a decision
/// carries `decidedAt`: the end of the newest audio the smoother had seen when it made the decision.
/// Live, that is the earliest moment the decision exists; the endpointer stamps its events with it,
/// so the latency it reports includes the smoothing delay.
public struct VADDecision: Sendable, Equatable {
    /// The first sample this decision covers.
    public var start: MediaTime
    /// How many samples it covers.
    public var frameCount: Int
    /// Whether the slice is speech after smoothing (padding included).
    public var isSpeech: Bool
    /// The detector's raw probability for the slice.
    public var probability: Float
    /// The end of the newest audio seen when the decision was made (≥ `end`).
    ///
    /// From a ``DecisionSmoother``, everything up to `decidedAt` has been decided by then except at
    /// most `speechPadBefore` of silence held back in case speech follows: so after a silence decision,
    /// no speech has been heard up to `decidedAt`. The ``Endpointer`` relies on this when it measures
    /// silence on the detector's evidence (``EndpointerConfiguration/endingSilenceThreshold``).
    public var decidedAt: MediaTime

    public init(start: MediaTime, frameCount: Int, isSpeech: Bool, probability: Float, decidedAt: MediaTime) {
        self.start = start
        self.frameCount = frameCount
        self.isSpeech = isSpeech
        self.probability = probability
        self.decidedAt = decidedAt
    }

    /// The first sample after the slice this decision covers.
    public var end: MediaTime { start.advanced(by: Int64(frameCount)) }
}
