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
    /// another tool's decisions: ``isDecided``) and an ``EndpointerStage``, one chain. `actions` happen
    /// at their media time: before the first decision made after it (``ControlSchedule``), those left
    /// at the end of the track.
    public func replay(
        smoothing: SmoothingConfiguration, endpointer configuration: EndpointerConfiguration,
        keepingDecisions: Bool = false, actions: [(time: Double, action: TrackReplay.Action)] = []
    ) throws -> TrackReplay {
        let rate = sampleRate
        let controls = actions.map { time, action in
            let at = MediaTime(frame: Int64((time * Double(rate)).rounded()), sampleRate: rate)
            return (time: time, control: action.control(at: at))
        }
        let endpointing = ControlSchedule(controls, endingAt: frames.last?.end.seconds ?? 0) { $0.decidedAt.seconds }
            .then(EndpointerStage(configuration: configuration, start: .zero(sampleRate: sampleRate)).takingControls())
        // The endpointer passes decisions only until the interaction ends; the tap beside it keeps them all.
        var chain = try DecisionSmoother(
            configuration: isDecided ? Self.asGiven : smoothing, sampleRate: sampleRate, hopLength: hopLength
        )
        .then(PassThrough<VADDecision>().fork(endpointing))
        var replay = TrackReplay()
        try Pipeline.run(frames, through: &chain) { output in
            if keepingDecisions { replay.decisions.append(contentsOf: output.items.compactMap(\.first)) }
            replay.events.append(contentsOf: output.events)
        }
        return replay
    }
}

extension TrackReplay.Action {
    /// The endpointer's call for this action, made at `time`.
    func control(at time: MediaTime) -> EndpointerControl {
        switch self {
        case .stop: .stop(at: time)
        case .cancel: .cancel(at: time)
        case .extendTimeout(let seconds): .extendTimeout(by: seconds, at: time)
        }
    }
}
