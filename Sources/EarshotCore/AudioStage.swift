/// One step of the pipeline: configured once at creation, then fed inputs in order, then finished.
///
/// This is speexdsp's processing idiom in Swift. A stage is created with its configuration and the
/// format it will receive (validated then, with an error naming the field), `process(_:into:)` takes
/// one input and appends whatever it produces (zero or more outputs, and events stamped with media
/// time) to `output`, and `finish(into:)` flushes anything held back — a filter's tail, a partial
/// level window, a recognizer's final hypothesis. After `finish` a stage is not fed again.
///
/// Stages never read the wall clock and never block; time is the media time carried by the input,
/// so the same chain gives the same events live and offline. Stages are composed with
/// ``then(_:)``; a chain is itself a stage.
///
/// Ownership: a stage in pure Swift is a `Sendable` struct. A stage that owns C state (a speexdsp
/// resampler, a libspeex or libopus encoder, a PocketSphinx decoder) is a final class that frees it
/// in `deinit` and is not `Sendable`: that state is not thread-safe, so each task makes its own, and
/// hands it on with `sending` if it must. Copying such a stage shares its state; don't.
public protocol AudioStage<Input, Output> {
    associatedtype Input
    associatedtype Output

    /// Consumes `input`, appending outputs and events to `output`.
    mutating func process(_ input: Input, into output: inout StageOutput<Output>) throws

    /// Flushes what the stage still holds. Called once, at the end of the stream.
    mutating func finish(into output: inout StageOutput<Output>) throws
}

extension AudioStage {
    /// Feeds the output of this stage into `next`.
    @inlinable
    public func then<Next: AudioStage>(_ next: Next) -> StageChain<Self, Next> where Next.Input == Output {
        StageChain(self, next)
    }

    /// Convenience for tests and one-off use: processes `input` into a fresh output.
    @inlinable
    public mutating func process(_ input: Input) throws -> StageOutput<Output> {
        var output = StageOutput<Output>()
        try process(input, into: &output)
        return output
    }

    /// Convenience for tests and one-off use: finishes into a fresh output.
    @inlinable
    public mutating func finish() throws -> StageOutput<Output> {
        var output = StageOutput<Output>()
        try finish(into: &output)
        return output
    }
}

/// What a stage produced for one call: outputs, in order, and events, in the order they happened.
///
/// Callers reuse one `StageOutput` across calls and `removeAll()` it after reading, so its storage is
/// allocated once.
public struct StageOutput<Element> {
    // Stored internally so the @inlinable mutators below can reach them; read through `items`/`events`.
    @usableFromInline var storedItems: [Element] = []
    @usableFromInline var storedEvents: [StageEvent] = []

    @inlinable
    public init() {}

    /// Outputs, in the order they were produced.
    @inlinable
    public var items: [Element] { storedItems }

    /// Events, in the order they happened.
    @inlinable
    public var events: [StageEvent] { storedEvents }

    @inlinable
    public mutating func emit(_ item: Element) { storedItems.append(item) }

    @inlinable
    public mutating func post(_ event: StageEvent) { storedEvents.append(event) }

    @inlinable
    public mutating func post<Events: Sequence>(contentsOf events: Events) where Events.Element == StageEvent {
        storedEvents.append(contentsOf: events)
    }

    /// Empties the output, keeping its storage for the next call.
    @inlinable
    public mutating func removeAll() {
        storedItems.removeAll(keepingCapacity: true)
        storedEvents.removeAll(keepingCapacity: true)
    }
}

extension StageOutput: Sendable where Element: Sendable {}
