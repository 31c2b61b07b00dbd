public import EarshotCore

/// The ``Endpointer`` as a stage, to chain after ``DecisionSmoother``: passes on each decision the
/// endpointer takes in, and posts its events.
///
/// Contract: input and output are ``VADDecision``s; output stops when the interaction ends (the
/// decision that ends it is passed on, later ones are not). ``finish(into:)`` is the end of input, at
/// the newest `decidedAt` seen (the start, if none). Adds no delay. The application's calls (stop,
/// cancel, extend) are its ``EndpointerControl``s, so their events reach the same output, and a chain
/// ending in this stage takes them too (``ControllableStage``).
public struct EndpointerStage: ControllableStage, Sendable {
    public typealias Input = VADDecision
    public typealias Output = VADDecision

    /// The state machine, for its observations and its ``Endpointer/rules`` and
    /// ``Endpointer/shouldEndRecording``.
    public var endpointer: Endpointer
    private var events: [StageEvent] = []
    private var newest: MediaTime

    public init(endpointer: Endpointer) {
        self.endpointer = endpointer
        newest = endpointer.start
        events.reserveCapacity(8)
    }

    public init(configuration: EndpointerConfiguration, start: MediaTime) {
        self.init(endpointer: Endpointer(configuration: configuration, start: start))
    }

    public mutating func process(_ decision: VADDecision, into output: inout StageOutput<VADDecision>) {
        newest = Swift.max(newest, decision.decidedAt)
        if endpointer.process(decision, into: &events) { output.emit(decision) }
        post(into: &output)
    }

    public mutating func finish(into output: inout StageOutput<VADDecision>) {
        endpointer.finish(at: newest, into: &events)
        post(into: &output)
    }

    /// Applies an application's call; see ``Endpointer/stop(at:into:)``, ``Endpointer/cancel(at:into:)``
    /// and ``Endpointer/extendTimeout(by:at:into:)``.
    public mutating func control(_ control: EndpointerControl, into output: inout StageOutput<VADDecision>) throws {
        defer { post(into: &output) }
        switch control {
        case .stop(let time): endpointer.stop(at: time, into: &events)
        case .cancel(let time): endpointer.cancel(at: time, into: &events)
        case .extendTimeout(let seconds, let time): try endpointer.extendTimeout(by: seconds, at: time, into: &events)
        }
    }

    private mutating func post(into output: inout StageOutput<VADDecision>) {
        output.post(contentsOf: events)
        events.removeAll(keepingCapacity: true)
    }
}

/// An application's call to the endpointer during an interaction, at a media time: the SDK's
/// `stopListening` (manual endpoint), `cancel` and `extendTimeout(seconds)`.
public enum EndpointerControl: Sendable, Equatable {
    case stop(at: MediaTime)
    case cancel(at: MediaTime)
    case extendTimeout(by: Double, at: MediaTime)
}
