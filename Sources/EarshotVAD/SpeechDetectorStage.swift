public import EarshotCore

/// The voice activity front end every path runs — a detector (``VADStage``) and its
/// ``DecisionSmoother`` — made in one place: the live client's capture, the utterance chunker,
/// ``SpeechDetection`` (`earshot vad`, the lab's detector tracks).
public typealias SpeechDetectorStage = StageChain<VADStage, DecisionSmoother>

extension StageChain where First == VADStage, Second == DecisionSmoother {
    /// `detector` run at `sampleRate` (a rate it supports), its probabilities smoothed by `smoothing`.
    public init(detector: DetectorKind, models: DetectorModels, smoothing: SmoothingConfiguration, sampleRate: Int)
        throws
    {
        let vad = try VADStage(detector: try detector.makeDetector(sampleRate: sampleRate, models: models))
        let smoother = try DecisionSmoother(
            configuration: smoothing, sampleRate: sampleRate, hopLength: vad.detector.hopLength)
        self.init(vad, smoother)
    }

    /// The detector stage.
    public var detection: VADStage { first }
    /// The smoother, which holds the decisions' state.
    public var smoother: DecisionSmoother { second }
}
