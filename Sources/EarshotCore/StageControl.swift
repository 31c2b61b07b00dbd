/// One input of a stage that takes an application's calls as well as data: an item, or a call, in
/// the order they happened.
public enum Controlled<Item, Control> {
    case item(Item)
    case control(Control)
}

extension Controlled: Sendable where Item: Sendable, Control: Sendable {}

/// A stage that also takes calls between its inputs: the endpointer's stop, cancel and
/// extendTimeout (the SDK's `stopListening`, `cancel` and `extendTimeout`). A call's items and events
/// go to the same output as the stage's own, so whoever reads a chain sees them in order.
///
/// Chains and forks take the calls of their last stage (``StageChain``'s second, ``StageFork``'s
/// second), so a call made to a whole pipeline reaches the stage that understands it without the
/// caller reaching into the pipeline's structure.
public protocol ControllableStage<Input, Output, Control>: AudioStage {
    associatedtype Control
    mutating func control(_ control: Control, into output: inout StageOutput<Output>) throws
}

extension StageChain: ControllableStage where Second: ControllableStage {
    public typealias Control = Second.Control

    @inlinable
    public mutating func control(_ control: Control, into output: inout StageOutput<Output>) throws {
        try second.control(control, into: &output)
    }
}

/// A controllable stage fed one stream of items and calls, processed and applied in order.
public struct ControlledInputs<Stage: ControllableStage>: AudioStage {
    public typealias Input = Controlled<Stage.Input, Stage.Control>
    public typealias Output = Stage.Output

    public var stage: Stage

    @inlinable
    public init(_ stage: Stage) { self.stage = stage }

    @inlinable
    public mutating func process(_ input: Input, into output: inout StageOutput<Output>) throws {
        switch input {
        case .item(let item): try stage.process(item, into: &output)
        case .control(let control): try stage.control(control, into: &output)
        }
    }

    @inlinable
    public mutating func finish(into output: inout StageOutput<Output>) throws {
        try stage.finish(into: &output)
    }
}

extension ControlledInputs: Sendable where Stage: Sendable {}

extension ControllableStage {
    /// This stage taking its items and its calls as one stream (see ``ControlledInputs``).
    @inlinable
    public func takingControls() -> ControlledInputs<Self> { ControlledInputs(self) }
}

/// Calls made at known media times, released into a stream of items: each before the first item whose
/// time is at or after it, those left at the end of the stream up to `end`. How the lab replays an
/// application's calls ("stop at 2.5 s") against a recorded detector track.
public struct ControlSchedule<Item, Control>: AudioStage {
    public typealias Input = Item
    public typealias Output = Controlled<Item, Control>

    @usableFromInline var pending: ArraySlice<(time: Double, control: Control)>
    @usableFromInline let time: @Sendable (Item) -> Double
    @usableFromInline let end: Double

    /// `controls` in any order (sorted by time here; equal times keep their order); `time` gives an
    /// item's media time in seconds; `end` is the stream's end, in seconds.
    @inlinable
    public init(
        _ controls: [(time: Double, control: Control)], endingAt end: Double,
        time: @escaping @Sendable (Item) -> Double
    ) {
        pending = ArraySlice(
            controls.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
                .map(\.element))
        self.time = time
        self.end = end
    }

    @inlinable
    public mutating func process(_ item: Item, into output: inout StageOutput<Output>) {
        release(until: time(item), into: &output)
        output.emit(.item(item))
    }

    @inlinable
    public mutating func finish(into output: inout StageOutput<Output>) {
        release(until: end, into: &output)
    }

    @inlinable
    mutating func release(until time: Double, into output: inout StageOutput<Output>) {
        while let next = pending.first, next.time <= time {
            pending.removeFirst()
            output.emit(.control(next.control))
        }
    }
}

extension ControlSchedule: Sendable where Item: Sendable, Control: Sendable {}
