public import EarshotCore
public import EarshotVAD

/// What the smoother and the endpointer made of a detector track: the decisions and the events, in
/// order — the same stages, fed the same frames, as a live session.
public struct TrackReplay: Sendable {
    /// Every smoothed decision over the whole track (empty unless asked for).
    public var decisions: [VADDecision] = []
    /// The endpointer's events: speech start/end, the endpoint and the outcome.
    public var events: [StageEvent] = []

    /// An application's call during the interaction, at a media time.
    public enum Action: Sendable, Equatable {
        /// The SDK's `stopListening` (manual endpoint).
        case stop
        /// The SDK's `cancel`.
        case cancel
        /// The SDK's `extendTimeout(seconds)`.
        case extendTimeout(Double)
    }
}

extension DetectorTrack {
    /// Smoothing that leaves decisions as they are: no thresholds between 0 and 1, no minimum
    /// durations, padding or hangover.
    static let asGiven = try! SmoothingConfiguration(
        onsetThreshold: 0.5, offsetThreshold: 0.5, minSpeechDuration: 0, minSilenceDuration: 0, speechPadBefore: 0,
        speechPadAfter: 0, hangover: 0)

    /// Replays the track through a ``DecisionSmoother`` (with `smoothing`, unless the track holds
    /// another tool's decisions: ``isDecided``) and an ``EndpointerStage``. `actions` happen at their
    /// media time: before the first decision made after it.
    public func replay(
        smoothing: SmoothingConfiguration, endpointer configuration: EndpointerConfiguration,
        keepingDecisions: Bool = false, actions: [(time: Double, action: TrackReplay.Action)] = []
    ) throws -> TrackReplay {
        var smoother = try DecisionSmoother(
            configuration: isDecided ? Self.asGiven : smoothing, sampleRate: sampleRate, hopLength: hopLength)
        var endpointer = EndpointerStage(configuration: configuration, start: .zero(sampleRate: sampleRate))
        var pendingActions = actions.sorted { $0.time < $1.time }[...]
        var replay = TrackReplay()
        var decisions = StageOutput<VADDecision>()
        var passed = StageOutput<VADDecision>()

        func act(until time: Double) throws {
            while let next = pendingActions.first, next.time <= time {
                pendingActions.removeFirst()
                let at = MediaTime(frame: Int64((next.time * Double(sampleRate)).rounded()), sampleRate: sampleRate)
                switch next.action {
                case .stop: endpointer.stop(at: at, into: &passed)
                case .cancel: endpointer.cancel(at: at, into: &passed)
                case .extendTimeout(let seconds): try endpointer.extendTimeout(by: seconds, at: at, into: &passed)
                }
            }
        }
        func consume() throws {
            for decision in decisions.items {
                try act(until: decision.decidedAt.seconds)
                if keepingDecisions { replay.decisions.append(decision) }
                endpointer.process(decision, into: &passed)
            }
            replay.events.append(contentsOf: passed.events)
            passed.removeAll()
            decisions.removeAll()
        }
        for frame in frames {
            try smoother.process(frame, into: &decisions)
            try consume()
        }
        try smoother.finish(into: &decisions)
        try consume()
        try act(until: frames.last?.end.seconds ?? 0)
        endpointer.finish(into: &passed)
        replay.events.append(contentsOf: passed.events)
        return replay
    }
}
