import EarshotCore
import EarshotVAD

/// Replays one detector track through the smoother and the endpointer — the same stages that run
/// live — and scores the outcome against one corpus entry's labels and, for an entry with speech,
/// against the ``LabelOracle``'s endpoint under the same endpointer configuration.
public struct FileScore: Sendable {
    public var frames = FrameMetrics()
    public var probabilities = ProbabilityScores()
    public var boundaries = BoundaryErrors()
    public var utterance: UtteranceResult
    /// The smoothed speech segments, in seconds.
    public var segments: [LabeledSegment]
}

public enum UtteranceScorer {
    /// What to compute: endpointing alone is what a sweep needs; frame and boundary scores cost more.
    public enum Scope: Sendable { case endpointing, everything }

    public static func score(
        _ track: DetectorTrack, against entry: CorpusEntry, settings: EvaluationSettings, scope: Scope = .everything
    ) throws -> FileScore {
        let replay = try track.replay(
            smoothing: settings.smoothing, endpointer: settings.endpointer, keepingDecisions: scope == .everything)
        let segments = replay.decisions.speechSegments().map {
            LabeledSegment(start: $0.lowerBound.seconds, end: $0.upperBound.seconds)
        }
        let events = replay.events

        var utterance = utteranceResult(entry, events)
        if utterance.hasSpeech, let oracle = try LabelOracle.endpoint(for: entry, endpointer: settings.endpointer) {
            utterance.oracleEndpoint = oracle.time
            utterance.oracleReason = oracle.reason
        }
        var score = FileScore(utterance: utterance, segments: segments)
        if scope == .everything {
            let cells = FrameGrid.cellCount(duration: entry.duration)
            let labels = FrameGrid.labels(entry.speech, cellCount: cells)
            let predicted = FrameGrid.labels(segments, cellCount: cells)
            score.frames.add(predicted: predicted, labelled: labels)
            score.probabilities.add(probabilities: track.gridProbabilities(duration: entry.duration), labelled: labels)
            score.boundaries.add(predicted: segments, labelled: entry.speech)
        }
        return score
    }

    private static func utteranceResult(_ entry: CorpusEntry, _ events: [StageEvent]) -> UtteranceResult {
        var firstSpeechStart: Double?
        var endpoint: Double?
        var reason: EndpointReason?
        var outcome = InteractionOutcome.audioCaptured
        for event in events {
            switch event.kind {
            case .speechStart where firstSpeechStart == nil: firstSpeechStart = event.time.seconds
            case .endpoint(let why) where endpoint == nil:
                endpoint = event.time.seconds
                reason = why
            case .outcome(let result): outcome = result
            default: break
            }
        }
        return UtteranceResult(
            path: entry.path, labelled: entry.speech, firstSpeechStart: firstSpeechStart, endpoint: endpoint,
            reason: reason, outcome: outcome)
    }
}
