public import EarshotCore

/// The ``Endpointer`` as a stage, to chain after ``DecisionSmoother``: passes on each decision the
/// endpointer takes in, and posts its events.
///
/// Contract: input and output are ``VADDecision``s; output stops when the interaction ends (the
/// decision that ends it is passed on, later ones are not). ``finish(into:)`` is the end of input, at
/// the newest `decidedAt` seen (the start, if none). Adds no delay. The application's calls (stop,
/// cancel, extend) go through the methods here, so their events reach the same output.
public struct EndpointerStage: AudioStage, Sendable {
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

    /// See ``Endpointer/stop(at:into:)``.
    public mutating func stop(at time: MediaTime, into output: inout StageOutput<VADDecision>) {
        endpointer.stop(at: time, into: &events)
        post(into: &output)
    }

    /// See ``Endpointer/cancel(at:into:)``.
    public mutating func cancel(at time: MediaTime, into output: inout StageOutput<VADDecision>) {
        endpointer.cancel(at: time, into: &events)
        post(into: &output)
    }

    /// See ``Endpointer/extendTimeout(by:at:into:)``.
    public mutating func extendTimeout(
        by seconds: Double, at time: MediaTime, into output: inout StageOutput<VADDecision>
    ) throws {
        defer { post(into: &output) }
        try endpointer.extendTimeout(by: seconds, at: time, into: &events)
    }

    private mutating func post(into output: inout StageOutput<VADDecision>) {
        output.post(contentsOf: events)
        events.removeAll(keepingCapacity: true)
    }
}
