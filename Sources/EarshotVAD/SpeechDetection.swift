public import EarshotCore
import EarshotDSP

/// A detector run over a whole stream at 16 kHz mono: every frame (the probabilities) and, when asked,
/// the smoothed decisions — what `earshot vad` reports and what the lab's detector tracks hold, by one
/// code path (the stages a live session runs, fed the whole stream).
public struct SpeechDetection: Sendable {
    /// The rate detectors run at offline: the working rate of the recognizers.
    public static let workingRate = 16_000

    /// The detector's hop, in samples at ``workingRate``.
    public var hopLength: Int
    /// One frame per hop, in order, covering the whole stream.
    public var frames: [VADFrame]
    /// The smoother's decisions, one per frame (empty when no smoothing was asked for).
    public var decisions: [VADDecision]

    /// The stream's duration in seconds: the frames cover it (resampled length = round(n × ratio)).
    public var duration: Double { frames.last?.end.seconds ?? 0 }

    /// The speech the decisions found, in seconds, clipped to the stream.
    public var speech: [Range<Double>] {
        let end = duration
        return decisions.speechSegments().map { $0.lowerBound.seconds..<min($0.upperBound.seconds, end) }
    }

    /// Runs `detector` over all that `source` gives, resampled to 16 kHz mono when it is not already,
    /// and smooths the frames with `smoothing` when given.
    public static func run(
        source: inout any AudioSource, detector: DetectorKind, models: DetectorModels = .none,
        smoothing: SmoothingConfiguration? = nil
    ) throws -> SpeechDetection {
        let vad = try VADStage(detector: detector.makeDetector(sampleRate: workingRate, models: models))
        var stage: any AudioStage<AudioBuffer, VADFrame> =
            source.format == .wideband
            ? vad
            : try Resampler(inputFormat: source.format, configuration: .init(sampleRate: workingRate, quality: 4))
                .then(vad)
        var frames: [VADFrame] = []
        try Pipeline.run(&source, through: &stage) { frames.append(contentsOf: $0.items) }
        var decisions: [VADDecision] = []
        if let smoothing {
            var smoother = try DecisionSmoother(
                configuration: smoothing, sampleRate: workingRate, hopLength: vad.detector.hopLength)
            try Pipeline.run(frames, through: &smoother) { decisions.append(contentsOf: $0.items) }
        }
        return SpeechDetection(hopLength: vad.detector.hopLength, frames: frames, decisions: decisions)
    }
}
